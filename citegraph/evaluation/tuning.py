"""Tuning BM25's k1 and b on validation pools: an evaluation that chooses parameters, so it
lives with the evaluations (retrieval knows nothing of metrics)."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from ..retrieval.base import Retriever
from ..retrieval.bm25 import B_GRID, K1_GRID, bm25
from .metrics import evaluate


@dataclass(frozen=True)
class Tuning:
    """The best (k1, b) of a grid by MAP, and the MAP of every cell."""

    k1: float
    b: float
    map: float
    table: dict[tuple[float, float], float]


def tune(
    retrievers: Callable[[float, float], Retriever] | str | os.PathLike,
    queries: Mapping[str, str],
    qrels: Mapping[str, Mapping[str, int]],
    pools: Mapping[str, Collection[str]] | None = None,
    k1s: Sequence[float] = K1_GRID,
    bs: Sequence[float] = B_GRID,
    depth: int = 500,
) -> Tuning:
    """Grid-search k1 and b for MAP on validation queries, as the MDCR paper tuned BM25.

    ``retrievers`` makes a retriever for (k1, b), or is an index directory (opened with
    each cell's parameters). ``queries`` and ``pools`` are keyed by query id like
    ``qrels``; each query is ranked to ``depth`` (the paper's 500). MAP comes from
    ir_measures, with queries that retrieve nothing counted as 0; the first best cell in
    grid order wins a tie. MAP is :func:`citegraph.evaluation.metrics.evaluate`'s.
    """
    make = retrievers if callable(retrievers) else (lambda k1, b: bm25(retrievers, k1=k1, b=b))
    qids = list(queries)
    texts = [queries[q] for q in qids]
    pool_list = None if pools is None else [pools[q] for q in qids]
    table: dict[tuple[float, float], float] = {}
    for k1 in k1s:
        for b in bs:
            rankings = make(k1, b).search(texts, depth, pool_list)
            table[(k1, b)] = evaluate(qrels, dict(zip(qids, rankings)), ["MAP"], depth).mean["MAP"]
    k1, b = max(table, key=table.__getitem__)
    return Tuning(k1, b, table[(k1, b)], table)
