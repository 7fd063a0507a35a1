"""The BM25 weighting in numpy, for documents scored without an index: a paper's sentences
(contextualisation), the graph's citing sentences joined per cited paper (the recommender's
contexts signal). An index per paper, or per query's view, would cost more than the scoring.

The weighting is both backends' (:mod:`citegraph.retrieval.bm25`, the MDCR appendix's
formula in Lucene's variant): a query term adds, once per occurrence in the query,

    idf · f / (f + k1·(1 − b + b·|d|/avgdl)),   idf = ln(1 + (N − n + 0.5)/(n + 0.5)),

without the constant factor (k1 + 1), as Lucene ≥ 8. N, n (the documents holding the term)
and avgdl are taken over the documents the :class:`Statistics` count: by default, as
Lucene's docCount, those having a term. A mask counts a subset instead, exactly as if only
those documents had been indexed: the contexts signal hides the seed's own sentences (and,
as of a year, later ones) per query this way, which an index built once cannot. Lengths are
exact; Lucene keeps them in one byte (exact up to 40 terms), so longer documents may score
slightly apart. tests/test_bm25.py checks the kernel against the formula and against
indexes of both backends, a masked collection against an index of the subset.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np


def idf(document_frequency: int, documents: int) -> float:
    """Lucene's inverse document frequency of a term held by ``document_frequency`` of ``documents``."""
    return math.log(1 + (documents - document_frequency + 0.5) / (document_frequency + 0.5))


class TermCounts:
    """Analysed documents as a sparse term-count matrix (documents × terms), with their lengths."""

    def __init__(self, documents: Iterable[Sequence[str]]):
        from scipy.sparse import csr_matrix

        self.vocabulary: dict[str, int] = {}
        columns, offsets = [], [0]
        for terms in documents:
            columns += [self.vocabulary.setdefault(t, len(self.vocabulary)) for t in terms]
            offsets.append(len(columns))
        self.lengths = np.diff(offsets)
        matrix = csr_matrix((np.ones(len(columns)), columns, offsets), shape=(len(self.lengths), len(self.vocabulary)))
        matrix.sum_duplicates()
        self._by_term = matrix.tocsc()  # a term's column: the documents holding it, with its frequency

    @classmethod
    def of(cls, vocabulary: Sequence[str], lengths: np.ndarray, by_term: Any) -> TermCounts:
        """Counts made before, from their parts (:attr:`vocabulary`'s terms in column order,
        :attr:`lengths`, :meth:`by_term`): what a kept copy restores without analysing again."""
        counts = cls(())
        counts.vocabulary = {term: column for column, term in enumerate(vocabulary)}
        counts.lengths, counts._by_term = np.asarray(lengths), by_term
        return counts

    def by_term(self) -> Any:
        """The documents × terms counts, sparse by column (a term's documents)."""
        return self._by_term

    def __len__(self) -> int:
        return len(self.lengths)

    def frequencies(self, terms: Sequence[str]) -> Any:
        """The frequency of each of ``terms`` in each document (documents × terms, sparse); a
        term no document holds has an empty column."""
        from scipy.sparse import csc_matrix

        known = [(k, self.vocabulary[t]) for k, t in enumerate(terms) if t in self.vocabulary]
        selection = csc_matrix(
            (np.ones(len(known)), ([c for _, c in known], [k for k, _ in known])),
            shape=(len(self.vocabulary), len(terms)),
        )
        return (self._by_term @ selection).tocsc()


class Statistics:
    """The documents BM25's statistics count (N, avgdl; n is counted per term), given every
    document's length: by default those with a term (Lucene's docCount), or the ``counted`` mask."""

    def __init__(self, lengths: np.ndarray, counted: np.ndarray | None = None):
        self.lengths = np.asarray(lengths, dtype=float)
        self.counted = self.lengths > 0 if counted is None else np.asarray(counted, dtype=bool)
        self.documents = int(self.counted.sum())
        self.average_length = float(self.lengths[self.counted].mean()) if self.documents else 0.0

    def scores(self, frequencies: Any, repeats: Sequence[float], k1: float, b: float) -> np.ndarray:
        """BM25 of every document for a query whose k-th distinct term occurs ``repeats[k]`` times
        and has column k of ``frequencies`` (documents × terms, sparse or dense); 0 for a document
        not counted."""
        terms, rows, f = self._entries(frequencies)
        holding = np.bincount(terms, minlength=len(repeats))
        weights = np.asarray(repeats, dtype=float) * np.array([idf(int(n), self.documents) for n in holding])
        return self._sum(terms, rows, f, weights, k1, b)

    def saturations(self, frequencies: Any, repeats: Sequence[float], k1: float, b: float) -> np.ndarray:
        """:meth:`scores` with every idf 1: how well a document matches the query's words
        whatever their rarity (the contexts signal quotes its best sentence by this)."""
        terms, rows, f = self._entries(frequencies)
        return self._sum(terms, rows, f, np.asarray(repeats, dtype=float), k1, b)

    def _entries(self, frequencies: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(query term, document, frequency) of each counted document holding a query term, by term."""
        from scipy.sparse import csc_matrix, issparse

        columns = frequencies.tocsc() if issparse(frequencies) else csc_matrix(frequencies)
        if columns.shape[0] != len(self.lengths):
            raise ValueError(f"{columns.shape[0]} rows of frequencies for {len(self.lengths)} documents")
        terms = np.repeat(np.arange(columns.shape[1]), np.diff(columns.indptr))
        held = self.counted[columns.indices] & (columns.data > 0)
        return terms[held], columns.indices[held], columns.data[held]

    def _sum(
        self, terms: np.ndarray, rows: np.ndarray, f: np.ndarray, weights: np.ndarray, k1: float, b: float
    ) -> np.ndarray:
        """Σ over a document's query terms of weight · f / (f + k1·(1 − b + b·|d|/avgdl)), added
        term by term (any positive avgdl when no document has a term: nothing is added then)."""
        norm = k1 * (1 - b + b * self.lengths[rows] / (self.average_length or 1.0))
        return np.bincount(rows, weights=weights[terms] * f / (f + norm), minlength=len(self.lengths))
