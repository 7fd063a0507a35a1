"""BM25 over one paper's sentences: each sentence a document, the paper the collection.

The same formula and analysis as citegraph's BM25 (:mod:`citegraph.retrieval.bm25`):
IDF = ln((N − n + 0.5)/(n + 0.5) + 1) and tf·/(tf + k1·(1 − b + b·|d|/avgdl)) without
the constant factor (k1 + 1), a query term counted once per occurrence, terms from
:func:`~citegraph.retrieval.bm25.analyze`. N, n and avgdl are the paper's: its number of
sentences, the sentences holding the term, their mean length. An index per paper would be
overkill for a few hundred sentences, so the scores are computed directly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from ..retrieval.bm25 import B_GRID, K1_GRID
from .lm import SentenceSet


def bm25(query: Sequence[str], sentences: SentenceSet, k1: float, b: float) -> np.ndarray:
    counts = Counter(query)
    terms = list(counts)
    tf = sentences.exact(terms)  # (n, Q)
    n = len(sentences)
    if not n or not terms:
        return np.zeros(n)
    df = (tf > 0).sum(axis=0)
    idf = np.log((n - df + 0.5) / (df + 0.5) + 1.0)
    avgdl = sentences.length.mean() or 1.0
    norm = k1 * (1 - b + b * sentences.length / avgdl)
    weight = np.array([counts[t] for t in terms], dtype=float)
    return (tf / (tf + norm[:, None]) * idf) @ weight


def grid() -> list[dict]:
    return [{"k1": k1, "b": b} for k1 in K1_GRID for b in B_GRID]
