"""The graph layer: every access goes over Bolt, in Neo4j 5 Cypher.

``open_store(config)`` connects to the user's server when ``config.uri`` is set (Neo4j 5
in production, or any Bolt server) and otherwise to the embedded default: a private
ArcadeDB server under ``config.data_dir``, started as a child process and stopped when the
store closes, or reused when one already runs for that directory (the store then follows
that directory's server, wherever it is restarted). ``open_backend(config)``
gives what the ingest needs beyond Bolt (emptying the graph, bulk loads); ``model`` is the
graph's declared labels, keys, properties and relationships.
"""

# ruff: noqa: E402  (the driver is imported first, without pandas: see _driver_without_dataframes)
from __future__ import annotations

import sys
from pathlib import Path


def _driver_without_dataframes() -> None:
    """Import the neo4j driver without pandas and pyarrow, which it imports whenever they are
    installed (for ``Result.to_df`` and DataFrame parameters, which citegraph never uses): they
    cost 0.2 s of every command that reads the graph. Only the driver's view changes: a module
    that imports pandas later gets it as usual, and one imported before is the driver's too."""
    if "neo4j" in sys.modules:
        return
    hidden = [name for name in ("pandas", "pyarrow") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # its import raises ImportError
    try:
        import neo4j  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name, ...) is None:
                del sys.modules[name]


_driver_without_dataframes()

from ..config import Config
from ..errors import ServerError
from . import model
from .arcadedb import DATABASE, USER, ArcadeServer
from .backend import ArcadeDBBackend, Backend, Neo4jBackend
from .queries import CypherQuery, load
from .store import GraphStore, MessageTooLarge, Write

__all__ = [
    "ArcadeDBBackend",
    "ArcadeServer",
    "Backend",
    "CypherQuery",
    "GraphStore",
    "MessageTooLarge",
    "Neo4jBackend",
    "Write",
    "embedded_server",
    "load",
    "model",
    "open_backend",
    "open_store",
]


def embedded_server(config: Config) -> ArcadeServer:
    return ArcadeServer(Path(config.data_dir) / "arcadedb", heap=config.heap)


def open_backend(config: Config) -> Backend:
    """The database ``open_store(config)`` speaks to, for what Bolt cannot do."""
    return ArcadeDBBackend(embedded_server(config)) if config.embedded else Neo4jBackend()


def open_store(config: Config) -> GraphStore:
    from neo4j import Address, GraphDatabase
    from neo4j.exceptions import AuthError, DriverError, Neo4jError

    if config.uri is not None:  # a server, not config.embedded
        driver = GraphDatabase.driver(config.uri, auth=(config.user, config.require_password()))
        try:
            driver.verify_connectivity()
        except AuthError as exc:
            driver.close()
            raise ServerError(f"{config.uri} refused user '{config.user}': {exc.message}") from exc
        except (DriverError, Neo4jError, OSError) as exc:
            driver.close()
            raise ServerError(f"cannot reach the graph at {config.uri}: {exc}") from exc
        return GraphStore(driver, config.database, read_timeout=config.read_timeout, write_timeout=config.write_timeout)

    server = embedded_server(config)
    info = server.start()
    # a loopback server answers in milliseconds: a slow handshake is not ours (see ArcadeServer.status);
    # each new connection asks where the server of the data directory listens now
    driver = GraphDatabase.driver(
        info.uri,
        auth=(USER, server.password()),
        connection_timeout=10,
        resolver=lambda _: [Address(a) for a in server.bolt_address()],
    )
    on_close = server.stop if server.started_here else None
    return GraphStore(
        driver,
        config.database or DATABASE,
        on_close=on_close,
        gone=server.gone,
        read_timeout=config.read_timeout,
        write_timeout=config.write_timeout,
    )
