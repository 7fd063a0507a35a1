"""One benchmark protocol and one harness (the kernel; benchmarks by name: :mod:`.registry`).

A **benchmark** is what a paper's table is computed from: queries, the documents they are
answered from, judgements (qrels), optionally the pool each query may be answered from,
and the benchmark's own official measures and table layout. Each benchmark implements
:class:`Benchmark`: ``score(retrievers, out, log)`` ranks with the given retrievers (already
constructed objects with ``.name`` and ``.search(queries, k, pools)``; naming them is the
caller's business) or with the benchmark's own systems, and returns :class:`Scores`.

:func:`run` is the one harness: it scores a benchmark and writes, for every benchmark
alike, ``results.json`` (configuration, tables, per-query values), ``results.csv``,
``results.md`` and the tables' figures (:mod:`.report`).

Retriever-over-pools benchmarks (large-scale pools, MDCR) share :class:`Topics` and
:func:`score_topics`: queries, qrels and pools put to a retriever and scored by
:func:`.metrics.evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..retrieval.base import Document, Query, Ranking, Retriever
from .metrics import DEPTH, Evaluation, Qrels, evaluate
from .report import Table, draw, write_results

Log = Callable[[str], None]


def quiet(message: str) -> None:
    """The default log: say nothing."""


@dataclass(frozen=True)
class Topics:
    """Queries (in order), their judgements and, optionally, the pool each may be answered from."""

    queries: Mapping[str, Query]
    qrels: Qrels
    pools: Sequence[Collection[str]] | None = None
    leave_out_query: bool = False  # a query paper can sit in the pool it is ranked in: never rank it

    def rank(self, retriever: Retriever, k: int, depth: int = DEPTH) -> dict[str, Ranking]:
        """Each query's top ``depth`` of the ``k`` hits asked for."""
        rankings = retriever.search(list(self.queries.values()), k, self.pools)
        return {
            q: [h for h in ranking if not self.leave_out_query or h.id != q][:depth]
            for q, ranking in zip(self.queries, rankings)
        }


def score_topics(
    retriever: Retriever, topics: Topics, measures: Sequence[str], k: int, depth: int = DEPTH
) -> Evaluation:
    """``retriever`` on ``topics``: ranked (:meth:`Topics.rank`) and scored with ``measures``."""
    return evaluate(topics.qrels, topics.rank(retriever, k, depth), measures, depth)


@dataclass
class Scores:
    """What a benchmark computed: its tables, its configuration, every per-query value,
    and ``details`` a caller in Python may want (not written)."""

    tables: list[Table]
    config: dict[str, Any]
    per_query: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Results(Scores):
    """:class:`Scores` as written by :func:`run`: where, and the figures drawn."""

    out: Path = Path()
    figures: list[Path] = field(default_factory=list)


class Benchmark(Protocol):
    """A benchmark scores retrievers (or its own systems) and lays out its tables."""

    @property
    def name(self) -> str: ...  # read-only: frozen dataclasses implement it

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log) -> Scores:
        """Rank and score; ``out`` may receive the benchmark's own artefacts (runs, indexes)."""
        ...


class WithDocuments(Benchmark, Protocol):
    """A benchmark bringing its own documents (MDCR's release files): retrievers are indexed over them."""

    def documents(self) -> list[Document]: ...


def run(benchmark: Benchmark, retrievers: Sequence[Retriever], out: str | Path, *, log: Log = quiet) -> Results:
    """The harness: score ``benchmark`` and write results.json/.csv/.md and figures to ``out``."""
    out = Path(out)
    scores = benchmark.score(list(retrievers), out, log)
    write_results(out, scores.config, scores.tables, scores.per_query)
    return Results(scores.tables, scores.config, scores.per_query, scores.details, out, draw(scores.tables, out))
