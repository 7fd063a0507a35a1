"""The database behind a store, for what Bolt cannot do: empty the graph, load it in bulk.

Queries go through :class:`~citegraph.graph.store.GraphStore` whatever the database; the
ingest needs a little more, and asks it of a backend instead of the server:

* :class:`ArcadeDBBackend`, the embedded ArcadeDB child process: dropping and creating
  the database takes milliseconds, and a bulk load runs a loader process over the
  database files while the server has the database closed (server commands of ArcadeDB's
  HTTP API; a thin layer over :class:`~citegraph.graph.arcadedb.ArcadeServer`).
* :class:`Neo4jBackend`, a user's Neo4j 5 server: the graph is emptied in batches of
  Cypher, and a bulk load is the offline ``neo4j-admin database import full`` of CSV
  files, whose command line it writes.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from ..errors import ServerError
from .arcadedb import DATABASE, ArcadeServer
from .processes import tied_to_parent
from .schema import clear_graph
from .store import GraphStore

#: The exit code of an offline loader that stopped on an error it explained: its standard
#: error's last line says what happened and what to do (e.g. run with more --build-memory).
EXPLAINED_EXIT = 3


class ArcadeDBBackend:
    """The embedded ArcadeDB server of a data directory."""

    def __init__(self, server: ArcadeServer, database: str = DATABASE):
        self.server = server
        self.database = database

    @property
    def work_root(self) -> Path:
        """Where a bulk load keeps its work folder: beside the database files."""
        return self.server.home

    def clear(self, store: GraphStore) -> str:
        """Drop and create the database (the schema goes with it: apply it again)."""
        self.server.recreate_database()
        return "dropped and created the embedded database"

    def load_offline(self, module: str, *args: str, heap: str | None, log: Path) -> str:
        """Run ``python -m module DATABASE_DIR HEAP *args`` while the server has the
        database closed, and reopen it; returns the loader's standard output.

        The loader runs in the server's home because ArcadeDB writes its log to ./log;
        ``heap`` is its JVM heap (default: the server's). It dies with this process, even
        one killed with SIGKILL: an orphan would hold the database's files (and a GB) while
        the next ingest starts. Raises :class:`ServerError` with the tail of ``log`` (the
        loader's standard error) if it fails.
        """
        command = [
            sys.executable,
            "-m",
            module,
            str(self.server.home / "databases" / self.database),
            heap or self.server.heap or "",
            *args,
        ]
        self.server.server_command(f"close database {self.database}")
        try:
            with open(log, "w") as stderr:
                # this thread waits for the loader, so the loader cannot outlive it
                done = subprocess.run(
                    command,
                    stdout=subprocess.PIPE,
                    stderr=stderr,
                    text=True,
                    cwd=self.server.home,
                    check=False,
                    preexec_fn=tied_to_parent(signal.SIGKILL),
                )
        finally:
            self.server.server_command(f"open database {self.database}")
        if done.returncode == EXPLAINED_EXIT:
            said = next(line for line in reversed(log.read_text(errors="replace").splitlines()) if line.strip())
            raise ServerError(
                f"{said} (the ArcadeDB bulk loader stopped; the database may hold part of the graph, so "
                f"recreate it before trying again; its log: {log})"
            )
        if done.returncode:
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-20:])
            raise ServerError(
                f"the ArcadeDB bulk loader failed (exit {done.returncode}); the database may hold "
                f"part of the graph, so recreate it before trying again. Last lines of its log:\n{tail}"
            )
        return done.stdout


class Neo4jBackend:
    """A user's Bolt server (Neo4j 5): no admin API beyond Cypher."""

    def clear(self, store: GraphStore) -> str:
        return f"deleted {clear_graph(store):,} nodes"

    @staticmethod
    def import_command(
        database: str, nodes: list[tuple[str, str]], relationships: list[tuple[str, str]], array_delimiter: str
    ) -> list[str]:
        """The Neo4j 5 bulk load of CSV files: ``nodes`` are (labels 'A:B', 'header,data')
        pairs, ``relationships`` (type, 'header,data'), whose ends are the nodes' integer
        import IDs. The database must not exist yet."""
        return [
            "neo4j-admin",
            "database",
            "import",
            "full",
            database,
            f"--array-delimiter=U+{ord(array_delimiter):04X}",
            "--multiline-fields=true",
            "--id-type=integer",
            *(f"--nodes={labels}={files}" for labels, files in nodes),
            *(f"--relationships={kind}={files}" for kind, files in relationships),
        ]


Backend = ArcadeDBBackend | Neo4jBackend
