"""GraphStore: named, parameterised Cypher over Bolt with the official neo4j driver.

One small interface for every caller: stream the rows of a named query lazily, read all
the rows of one, write a batch of named statements in one transaction, apply a
multi-statement file, close.

Every statement runs in a transaction of the access mode its file's header declares
(``Mode: read|write``, see :mod:`.queries`): against a Neo4j cluster a read may be answered
by a follower, a write goes to the leader. Whole reads and writes are the driver's managed
transactions (``execute_read`` / ``execute_write``), which retry transient failures
(deadlocks, leader switches, a server restarting) with the driver's own back-off. A lazy
stream cannot be one: the driver commits when the transaction function returns, so
:meth:`GraphStore.rows` opens an explicit transaction of the declared mode and is not
retried (a retry after rows were handed out would repeat them). No statement needs an
auto-commit transaction: ``CALL { } IN TRANSACTIONS``, the one that would, is refused by
tests/test_cypher_lint.py. A server known to be gone (the embedded child exited) is not
waited for: the store says so at once.

Each transaction carries a timeout (``Config.read_timeout`` / ``write_timeout``) after
which the server stops it, so a statement whose client died does not run on. Neo4j
enforces it; ArcadeDB 26.10 ignores it and stops a statement only at its own server-wide
``arcadedb.command.timeout`` (tests/test_hostile.py). Either stop is one
:class:`ServerError` naming the query.

Parameters are measured before they are sent to a server other than Neo4j: ArcadeDB
answers a Bolt message over 16 MiB with a failure and then never answers the driver's
RESET, which waits forever. :class:`MessageTooLarge` is raised instead, and the ingest
writer splits its batch.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple, TypeVar

from neo4j import READ_ACCESS, WRITE_ACCESS, Driver, ManagedTransaction, Record, unit_of_work
from neo4j.exceptions import ClientError, DriverError, ServiceUnavailable, SessionExpired

from ..config import ENV_PREFIX
from ..errors import CitegraphError, ServerError
from .queries import PARAMETER, CypherQuery, load

_ACCESS = {"read": READ_ACCESS, "write": WRITE_ACCESS}
#: Neo4j's codes for a transaction stopped at its timeout (…TimedOutClientConfiguration when
#: the client set it); ArcadeDB says TransactionTimedOut at its arcadedb.command.timeout.
_TIMED_OUT = "Neo.ClientError.Transaction.TransactionTimedOut"
_T = TypeVar("_T")
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
    """A statement's parameters exceed :data:`MAX_MESSAGE`: it was not sent (nor was anything
    of its transaction committed)."""


# ASCII-only JSON, in C: at least the UTF-8 bytes of every string (a non-ASCII character
# becomes a 6-byte escape), a byte or two per container or key for PackStream's headers.
_as_json = json.JSONEncoder(ensure_ascii=True, check_circular=False, separators=(",", ":"), default=repr).encode


def encoded_size(value: Any) -> int:
    """About the bytes ``value`` takes in a Bolt message (PackStream), from above: the
    length of its ASCII JSON text. Measured in C, because a Python walk over a batch's
    parameters took a tenth of a streaming ingest."""
    return len(_as_json(value))


class Write(NamedTuple):
    """One statement of a write batch: a query name and its parameters. ``then`` makes, from
    the rows of a statement that reads, the statements that follow it in the same
    transaction: for what Python computes better than the server (ArcadeDB holds each row
    of an ORDER BY in its query heap with every record the row came from)."""

    query: str
    params: Mapping[str, Any]
    then: Callable[[list[dict[str, Any]]], Sequence[Write]] | None = None


def _counters(summary) -> Counter[str]:
    return Counter(
        {
            k: v
            for k, v in vars(summary.counters).items()
            if not k.startswith("_") and isinstance(v, int) and not isinstance(v, bool) and v
        }
    )


def _consume(tx: ManagedTransaction, text: str, params: Mapping[str, Any]) -> None:
    tx.run(text, dict(params)).consume()


def _single(name: str, params: Mapping[str, Any]) -> CypherQuery:
    """The one-statement query ``name``, its parameters checked."""
    query = load(name)
    query.check(dict(params))
    if len(query.statements) != 1:
        raise ValueError(f"query '{name}' holds {len(query.statements)} statements; use apply()")
    return query


class GraphStore:
    """A Bolt connection to the citation graph.

    Built by :func:`citegraph.graph.open_store`, which also starts the embedded server
    when no URI is configured; closing the store stops a server it started.
    """

    def __init__(
        self,
        driver: Driver,
        database: str | None = None,
        *,
        on_close=None,
        gone: Callable[[], str | None] | None = None,
        fetch_size: int = 1000,
        read_timeout: float | None = None,
        write_timeout: float | None = None,
    ):
        self._driver = driver
        self.database = database
        self._on_close = on_close
        self._gone = gone or (lambda: None)
        self.fetch_size = fetch_size
        #: seconds a transaction of each mode may run (0: no limit, None: the server's default)
        self.timeouts: dict[str, float | None] = {"read": read_timeout, "write": write_timeout}
        self._limit: int | None = None
        self._limit_known = False  # the limit is found on the first write (message_limit)

    # -- reads ---------------------------------------------------------------------
    def rows(self, name: str, /, **params: Any) -> Generator[dict[str, Any], None, None]:  # close() ends it early
        """Stream the rows of query ``name`` as dicts, fetched lazily in pages (nodes,
        relationships and paths as the driver's ``Record.data`` renders them), in an
        explicit transaction of the query's mode that lasts until the stream is exhausted
        or closed. Not retried: use :meth:`run` for a result that fits in memory."""
        query = _single(name, params)

        def stream() -> Generator[dict[str, Any], None, None]:
            with (
                self._session(query.mode, name) as session,
                session.begin_transaction(metadata={"query": name}, timeout=self.timeouts[query.mode]) as tx,
            ):
                for record in tx.run(query.statements[0], params):
                    yield record.data()  # committed when the stream ends, rolled back when it is closed

        return stream()

    def run(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """All rows of query ``name`` (``Record.data``), read or written in one managed
        transaction of the query's mode."""
        return self._all(name, params, Record.data)

    def plain(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """All rows of a query that returns plain values (numbers, strings, lists, maps: no
        node, relationship or path), as the driver decoded them. ``Record.data`` walks every
        nested value looking for graph entities: on the recommender's statements, which
        return lists of thousands of ids, that walk was the service's largest CPU cost."""
        return self._all(name, params, lambda record: dict(zip(record.keys(), record)))

    def _all(
        self, name: str, params: dict[str, Any], as_dict: Callable[[Record], dict[str, Any]]
    ) -> list[dict[str, Any]]:
        query = _single(name, params)

        def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
            return [as_dict(record) for record in tx.run(query.statements[0], params)]

        return self._managed(query.mode, name, work)

    def in_id_order(self, ids: str, by_id: str, /, batch: int = 5_000, **params: Any) -> Iterator[dict[str, Any]]:
        """A global stream in id order without the server sorting it: query ``ids`` streams the
        ids alone, sorted (with ``params``), and query ``by_id`` reads their rows ``batch`` ids
        at a time (``$ids``; its rows in id order). ArcadeDB's ORDER BY holds each row whole
        in a query heap all queries share, so a sort of every paper with its texts was refused
        at 2M papers with an 8 GB heap; sorting ids alone holds a few bytes a paper."""
        stream = (row["id"] for row in self.rows(ids, **params))
        while chunk := list(itertools.islice(stream, batch)):
            yield from self.run(by_id, ids=chunk)

    def value(self, name: str, /, **params: Any) -> Any:
        """The single value of a one-row, one-column query."""
        rows = self.run(name, **params)
        if len(rows) != 1 or len(rows[0]) != 1:
            raise ValueError(f"query '{name}' returned {len(rows)} row(s), expected one value")
        return next(iter(rows[0].values()))

    # -- writes --------------------------------------------------------------------
    def write(self, *steps: Write) -> list[Counter[str]]:
        """Run the statements in one write transaction (all or nothing), retried if transient.

        Returns each statement's update counters (nodes_created, relationships_created, ...),
        those of the statements its ``then`` made added to its own.
        """
        limit = self._message_limit()
        loaded = [(self._statement(step, limit), step) for step in steps]

        def run(tx: ManagedTransaction, text: str, step: Write) -> Counter[str]:
            result = tx.run(text, dict(step.params))
            if step.then is None:
                return _counters(result.consume())
            rows = [dict(zip(record.keys(), record)) for record in result]
            counters = _counters(result.consume())
            for follow in step.then(rows):
                counters.update(run(tx, self._statement(follow, limit), follow))
            return counters

        def work(tx: ManagedTransaction) -> list[Counter[str]]:
            return [run(tx, text, step) for text, step in loaded]

        return self._managed("write", ", ".join(dict.fromkeys(step.query for step in steps)), work)

    @staticmethod
    def _statement(step: Write, limit: int | None) -> str:
        """The statement of ``step``, its parameters checked and measured against ``limit``."""
        query = _single(step.query, step.params)
        if limit is not None and (size := encoded_size(step.params)) > limit:
            raise MessageTooLarge(
                f"the parameters of '{step.query}' take about {size / 2**20:.1f} MiB, over citegraph's own limit "
                f"of {limit / 2**20:.0f} MiB a statement (half of ArcadeDB's 16 MiB Bolt message limit)"
            )
        return query.statements[0]

    def _message_limit(self) -> int | None:
        if not self._limit_known:
            with self._reachable():
                self._limit = message_limit(self._driver.get_server_info().agent)
            self._limit_known = True
        return self._limit

    def apply(self, name: str, /, **params: Any) -> None:
        """Run every statement of a multi-statement file, each in its own managed
        transaction of the file's mode (Neo4j runs a schema command in a transaction
        holding nothing else)."""
        query = load(name)
        query.check(params)
        for statement in query.statements:
            used = {k: params[k] for k in PARAMETER.findall(statement)}
            self._managed(query.mode, name, _consume, statement, used)

    # -- transactions --------------------------------------------------------------
    def _managed(self, mode: str, name: str, work: Callable[..., _T], *args: Any) -> _T:
        """``work(tx, *args)`` in a managed transaction of ``mode`` (the driver retries it
        while the failure is transient), named ``name`` in the server's transaction list and
        stopped by the server after the mode's timeout."""
        timed = unit_of_work(metadata={"query": name}, timeout=self.timeouts[mode])(work)
        with self._session(mode, name) as session:
            return (session.execute_read if mode == "read" else session.execute_write)(timed, *args)

    @contextmanager
    def _session(self, mode: str, name: str) -> Iterator[Any]:
        """A session of access ``mode``, in which a transaction the server stops at its time
        limit is one :class:`ServerError` naming the query ``name`` and the timeout."""
        with (
            self._reachable(),
            self._driver.session(
                database=self.database, default_access_mode=_ACCESS[mode], fetch_size=self.fetch_size
            ) as session,
        ):
            try:
                yield session
            except ClientError as exc:
                if not (exc.code or "").startswith(_TIMED_OUT):
                    raise
                raise ServerError(
                    f"the graph server stopped '{name}' at its time limit: {exc.message} (citegraph's "
                    f"{mode} timeout: {self.timeouts[mode]} s, {ENV_PREFIX}{mode.upper()}_TIMEOUT)"
                ) from exc

    @contextmanager
    def _reachable(self) -> Iterator[None]:
        """Fail at once when the server is known to be gone, and say why when it stops
        answering."""
        if reason := self._gone():
            raise ServerError(reason)
        try:
            yield
        except _UNREACHABLE as exc:
            raise ServerError(self._gone() or f"the graph server stopped answering: {exc}") from exc

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
        return {
            "agent": info.agent,
            "protocol": ".".join(map(str, info.protocol_version)),
            "address": str(info.address),
        }

    def close(self) -> None:
        self._driver.close()
        if self._on_close is not None:
            self._on_close()
            self._on_close = None

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
