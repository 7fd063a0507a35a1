"""BM25 with bm25s over the documents' analysed terms (:func:`.analysis.analyze`, Lucene's
analysis imitated): the ``bm25s`` backend of :mod:`citegraph.retrieval.bm25`. bm25s stores
scores for one (k1, b), so the index also keeps each field's term ids, and opening it with
other parameters rescores them."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import CitegraphError
from ..base import Document, Hit, Query, Ranking, query_text, rank
from .analysis import analyze
from .shared import FIELDS, K1, NAME, B, field_weights, fingerprinted, pool_sets


class _FieldTokens:
    """One field's analysed documents while building: the rows that have terms, term ids."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self.rows: list[int] = []
        self.docs: list[list[int]] = []

    def add(self, row: int, text: str) -> None:
        terms = analyze(text)
        if terms:  # like Lucene, a document without terms is not in the field's statistics
            self.rows.append(row)
            self.docs.append([self.vocab.setdefault(t, len(self.vocab)) for t in terms])

    def save(self, path: Path, k1: float, b: float) -> None:
        if not self.docs:
            raise CitegraphError(f"no document has any term in field {path.name!r}")
        _scored(self.docs, self.vocab, k1, b).save(str(path), show_progress=False)
        np.save(path / "rows.npy", np.asarray(self.rows, dtype=np.int64))
        np.save(path / "offsets.npy", np.cumsum([0, *map(len, self.docs)], dtype=np.int64))
        np.save(path / "tokens.npy", np.fromiter((t for doc in self.docs for t in doc), dtype=np.int32))


def _scored(docs: list[list[int]], vocab: dict[str, int], k1: float, b: float) -> Any:
    import bm25s

    model = bm25s.BM25(k1=k1, b=b, method="lucene")
    model.index((docs, vocab), create_empty_token=False, show_progress=False)
    return model


def build_bm25s(docs: Iterable[Document], target: Path, multifield: bool, k1: float, b: float) -> tuple[str, int]:
    names = FIELDS if multifield else ("contents",)
    fields = {name: _FieldTokens() for name in names}
    ids: list[str] = []

    def write(doc: Document) -> None:
        if multifield:
            fields["title"].add(len(ids), doc.title)
            fields["abstract"].add(len(ids), doc.abstract)
        else:
            fields["contents"].add(len(ids), doc.text)
        ids.append(doc.id)

    exported = fingerprinted(docs, write)
    for name, tokens in fields.items():
        (target / name).mkdir(parents=True)
        tokens.save(target / name, k1, b)
    (target / "ids.json").write_text(json.dumps(ids))
    return exported


@dataclass(frozen=True)
class _Field:
    model: Any  # bm25s.BM25, over the documents that have terms in this field
    rows: np.ndarray  # document row of each of the model's documents

    @classmethod
    def open(cls, path: Path, k1: float, b: float) -> _Field:
        import bm25s

        model = bm25s.BM25.load(str(path), mmap=True, show_progress=False)
        if (model.k1, model.b) != (k1, b):  # scores are stored for the build's (k1, b): rescore
            tokens, offsets = np.load(path / "tokens.npy"), np.load(path / "offsets.npy")
            docs = [tokens[start:end].tolist() for start, end in itertools.pairwise(offsets)]
            model = _scored(docs, model.vocab_dict, k1, b)
        return cls(model, np.load(path / "rows.npy"))

    def add_scores(self, terms: list[str], weight: float, total: np.ndarray) -> None:
        vocab = self.model.vocab_dict
        ids = [vocab[t] for t in terms if t in vocab]
        if ids:
            total[self.rows] += weight * self.model.get_scores_from_ids(ids)


class Bm25sBM25:
    """BM25 with bm25s, over the documents' analysed terms. See the module doc."""

    def __init__(
        self, index_dir: str | os.PathLike, k1: float = K1, b: float = B, fields: Mapping[str, float] | None = None
    ):
        self.index_dir = Path(index_dir)
        self.k1, self.b = k1, b
        self.fields = field_weights(fields)
        self.name = NAME if fields is None else f"{NAME}:multifield"
        root = self.index_dir / "bm25s"
        self._ids: list[str] = json.loads((root / "ids.json").read_text())
        self._row = {doc_id: row for row, doc_id in enumerate(self._ids)}
        weights = self.fields or {"contents": 1.0}
        self._scorers = [(_Field.open(root / name, k1, b), weight) for name, weight in weights.items()]
        self.documents = len(self._ids)

    def search(self, queries: Sequence[Query], k: int, pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        asked = [query_text(q) for q in queries]
        if pools is None:
            return [self._top(self._scores(text), None, k) for text in asked]
        rows: dict[int, np.ndarray] = {}
        for key, pool in pool_sets(pools, asked).items():
            found = (self._row.get(doc_id) for doc_id in pool)
            rows[key] = np.fromiter((r for r in found if r is not None), dtype=np.int64)
        return [self._top(self._scores(text), rows[id(pool)], k) for text, pool in zip(asked, pools)]

    def _scores(self, text: str) -> np.ndarray:
        terms = analyze(text)
        total = np.zeros(self.documents, dtype=np.float32)
        for scorer, weight in self._scorers:
            scorer.add_scores(terms, weight, total)
        return total

    def _top(self, scores: np.ndarray, rows: np.ndarray | None, k: int) -> Ranking:
        """The best ``k`` matching documents (of ``rows``), ties by id."""
        values = scores if rows is None else scores[rows]
        found = np.flatnonzero(values > 0)
        if len(found) > k > 0:
            kth = np.partition(values[found], len(found) - k)[len(found) - k]
            found = found[values[found] >= kth]  # keeps every tie of the k-th score
        docs = found if rows is None else rows[found]
        return rank([Hit(self._ids[d], float(values[f])) for d, f in zip(docs, found)], k)
