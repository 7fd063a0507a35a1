"""Scoring the candidates the graph hands over: BM25 (Lucene or bm25s), dense encoders
with Faiss, and fusions of them, all behind one :class:`~citegraph.retrieval.base.Retriever`.

A retriever is named by a spec (:mod:`.spec`: ``bm25``, ``bm25:multifield``, ``minilm``,
``minilm:maxsim``, ``hf:…``, ``rrf(bm25,minilm)``), parsed once by :func:`parse_spec` and
opened from the indexes ``citegraph index`` built under ``<data dir>/indexes``
(``spec.open``) or built over given documents (``spec.build``). Heavy libraries are
imported only when a retriever is opened or built.
"""

from __future__ import annotations

from .base import Document, Hit, Query, Ranking, Retriever
from .spec import BM25, Dense, Fusion, Spec, parse_spec, parse_specs

__all__ = [
    "BM25",
    "Dense",
    "Document",
    "Fusion",
    "Hit",
    "Query",
    "Ranking",
    "Retriever",
    "Spec",
    "parse_spec",
    "parse_specs",
]
