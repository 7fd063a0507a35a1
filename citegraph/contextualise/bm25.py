"""BM25 over one paper's sentences: each sentence a document, the paper the collection.

The weighting is citegraph's BM25 kernel (:mod:`citegraph.retrieval.bm25.kernel`: the
backends' formula, parity-tested against them), over terms from
:func:`~citegraph.retrieval.bm25.analyze`. N, n and avgdl are the paper's: its number of
sentences (those without a term too, unlike Lucene's docCount: the published table counts
them), the sentences holding the term, their mean length. An index per paper would be
overkill for a few hundred sentences, so the scores are computed directly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..retrieval.bm25 import B_GRID, K1_GRID
from ..retrieval.bm25.kernel import Statistics
from .lm import SentenceSet


def prepare(query: Sequence[str], sentences: SentenceSet) -> tuple[Any, list[int], Statistics]:
    """What scoring needs whatever (k1, b): the query's term frequencies, repeats, statistics."""
    from scipy.sparse import csc_matrix

    counts = Counter(query)
    terms = list(counts)
    every_sentence = np.ones(len(sentences), dtype=bool)
    return csc_matrix(sentences.exact(terms)), [counts[t] for t in terms], Statistics(sentences.length, every_sentence)


def bm25(prepared: tuple[Any, list[int], Statistics], k1: float, b: float) -> np.ndarray:
    frequencies, repeats, statistics = prepared
    return statistics.scores(frequencies, repeats, k1, b)


def grid() -> list[dict]:
    return [{"k1": k1, "b": b} for k1 in K1_GRID for b in B_GRID]
