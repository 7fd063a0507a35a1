"""GraphStore: named, parameterised Cypher over Bolt with the official neo4j driver.

One small interface for every caller: stream the rows of a named query lazily, write a
batch of named statements in one transaction, apply a multi-statement file, close.
Transient failures (deadlocks, leader switches, a server restarting) are retried with
exponential backoff: writes through the driver's managed transactions, reads until the
first row has been handed to the caller (after that a retry would repeat rows). A server
known to be gone (the embedded child exited) is not waited for: the store says so at once.

Parameters are measured before they are sent to a server other than Neo4j: ArcadeDB
answers a Bolt message over 16 MiB with a failure and then never answers the driver's
RESET, which waits forever. :class:`MessageTooLarge` is raised instead, and the ingest
writer splits its batch.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable, Generator, Mapping
from typing import Any, NamedTuple

from neo4j import READ_ACCESS, WRITE_ACCESS, Driver, Query, Record
from neo4j.exceptions import DriverError, ServiceUnavailable, SessionExpired, TransientError

from ..errors import CitegraphError, ServerError
from .queries import PARAMETER, CypherQuery, load

_WRITES = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|DROP|LOAD\s+CSV)\b", re.IGNORECASE)
_RETRYABLE = (ServiceUnavailable, SessionExpired, TransientError)
_UNREACHABLE = (ServiceUnavailable, SessionExpired)  # IncompleteCommit is a ServiceUnavailable
#: The largest parameters sent in one statement: half of ArcadeDB's 16 MiB Bolt message
#: limit, leaving room for the statement and for :func:`encoded_size` being an estimate.
MAX_MESSAGE = 8 << 20


def message_limit(agent: str) -> int | None:
    """The parameter bytes a statement may carry to a server of this Bolt ``agent``:
    :data:`MAX_MESSAGE` unless it is Neo4j itself, which takes any size in chunks (ArcadeDB
    says 'Neo4j/5.26.0 compatible (ArcadeDB …)')."""
    return None if re.fullmatch(r"Neo4j/[\d.]+", agent) else MAX_MESSAGE


class MessageTooLarge(CitegraphError):
    """A statement's parameters exceed :data:`MAX_MESSAGE`; nothing was sent."""


# ASCII-only JSON, in C: at least the UTF-8 bytes of every string (a non-ASCII character
# becomes a 6-byte escape), a byte or two per container or key for PackStream's headers.
_as_json = json.JSONEncoder(ensure_ascii=True, check_circular=False, separators=(",", ":"), default=repr).encode


def encoded_size(value: Any) -> int:
    """About the bytes ``value`` takes in a Bolt message (PackStream), from above: the
    length of its ASCII JSON text. Measured in C, because a Python walk over a batch's
    parameters took a tenth of a streaming ingest."""
    return len(_as_json(value))


class Write(NamedTuple):
    """One statement of a write batch: a query name and its parameters."""

    query: str
    params: Mapping[str, Any]


def _counters(summary) -> Counter[str]:
    return Counter({k: v for k, v in vars(summary.counters).items()
                    if not k.startswith("_") and isinstance(v, int) and not isinstance(v, bool) and v})


def _writes(query: CypherQuery) -> bool:
    return bool(_WRITES.search(query.text))


class GraphStore:
    """A Bolt connection to the citation graph.

    Built by :func:`citegraph.graph.open_store`, which also starts the embedded server
    when no URI is configured; closing the store stops a server it started.
    """

    def __init__(self, driver: Driver, database: str | None = None, *, on_close=None,
                 gone: Callable[[], str | None] | None = None,
                 retries: int = 5, backoff: float = 0.5, fetch_size: int = 1000):
        self._driver = driver
        self.database = database
        self._on_close = on_close
        self._gone = gone or (lambda: None)
        self.retries = retries
        self.backoff = backoff
        self.fetch_size = fetch_size
        self._limit: int | None | tuple = ()  # found on the first write (message_limit)

    # -- reads ---------------------------------------------------------------------
    def rows(self, name: str, /, **params: Any) -> Generator[dict[str, Any], None, None]:  # close() ends it early
        """Stream the rows of query ``name`` as dicts, fetched lazily in pages (nodes,
        relationships and paths as the driver's ``Record.data`` renders them)."""
        return self._rows(name, params, Record.data)

    def plain(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """All rows of a query that returns plain values (numbers, strings, lists, maps: no
        node, relationship or path), as the driver decoded them. ``Record.data`` walks every
        nested value looking for graph entities: on the recommender's statements, which
        return lists of thousands of ids, that walk was the service's largest CPU cost."""
        return list(self._rows(name, params, lambda record: dict(zip(record.keys(), record))))

    def _rows(self, name: str, params: dict[str, Any], as_dict: Callable[[Record], dict[str, Any]]
              ) -> Generator[dict[str, Any], None, None]:
        query = load(name)
        query.check(params)
        if len(query.statements) != 1:
            raise ValueError(f"query '{name}' holds {len(query.statements)} statements; use apply()")
        mode = WRITE_ACCESS if _writes(query) else READ_ACCESS
        for attempt in range(self.retries + 1):
            yielded = False
            try:
                with self._driver.session(database=self.database, default_access_mode=mode,
                                          fetch_size=self.fetch_size) as session:
                    result = session.run(Query(query.statements[0]), params)
                    for record in result:
                        yielded = True
                        yield as_dict(record)
                return
            except _RETRYABLE as exc:
                if reason := self._gone():
                    raise ServerError(reason) from exc
                if yielded or attempt == self.retries:
                    raise
                time.sleep(self.backoff * 2**attempt)

    def run(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """All rows of a query known to return few."""
        return list(self.rows(name, **params))

    def value(self, name: str, /, **params: Any) -> Any:
        """The single value of a one-row, one-column query."""
        rows = self.run(name, **params)
        if len(rows) != 1 or len(rows[0]) != 1:
            raise ValueError(f"query '{name}' returned {len(rows)} row(s), expected one value")
        return next(iter(rows[0].values()))

    # -- writes --------------------------------------------------------------------
    def write(self, *steps: Write) -> list[Counter[str]]:
        """Run the statements in one transaction (all or nothing), retried if transient.

        Returns each statement's update counters (nodes_created, relationships_created, ...).
        """
        if reason := self._gone():
            raise ServerError(reason)
        try:
            limit = self._message_limit()
            loaded = []
            for step in steps:
                query = load(step.query)
                query.check(dict(step.params))
                if len(query.statements) != 1:
                    raise ValueError(f"query '{step.query}' holds {len(query.statements)} statements")
                if limit is not None and (size := encoded_size(step.params)) > limit:
                    raise MessageTooLarge(f"the parameters of '{step.query}' take about {size / 2**20:.1f} MiB, over "
                                          f"the graph server's message limit ({limit / 2**20:.0f} MiB per statement)")
                loaded.append((query.statements[0], step.params))

            def work(tx) -> list[Counter[str]]:
                return [_counters(tx.run(text, params).consume()) for text, params in loaded]

            with self._driver.session(database=self.database) as session:
                return session.execute_write(work)
        except _UNREACHABLE as exc:
            raise ServerError(self._gone() or f"the graph server stopped answering: {exc}") from exc

    def _message_limit(self) -> int | None:
        if isinstance(self._limit, tuple):  # not yet found
            self._limit = message_limit(self._driver.get_server_info().agent)
        return self._limit

    def apply(self, name: str, /, **params: Any) -> None:
        """Run every statement of a multi-statement file, each in its own transaction."""
        query = load(name)
        query.check(params)
        with self._driver.session(database=self.database) as session:
            for statement in query.statements:
                used = {k: params[k] for k in PARAMETER.findall(statement)}
                session.run(Query(statement), used).consume()

    # -- lifecycle -----------------------------------------------------------------
    def health(self) -> str | None:
        """Why the graph cannot answer now, or ``None`` when it can (for ``/health``)."""
        if reason := self._gone():
            return reason
        try:
            self._driver.verify_connectivity()
        except (DriverError, OSError) as exc:
            return f"the graph server does not answer: {exc}"
        return None

    def server_info(self) -> dict[str, str]:
        info = self._driver.get_server_info()
        return {"agent": info.agent, "protocol": ".".join(map(str, info.protocol_version)),
                "address": str(info.address)}

    def close(self) -> None:
        self._driver.close()
        if self._on_close is not None:
            self._on_close()
            self._on_close = None

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
