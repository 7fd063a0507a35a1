"""The corpus text scorers index, exported from the graph.

Indexes are built from what the graph holds, never from the input files, so BM25, dense
and graph scorers see one corpus. A fingerprint of the exported text names an index or an
embedding cache, so a changed corpus is never scored with a stale index.

The graph layer (and with it the neo4j driver) is only named for type checking: BM25
and the dense scorers import :func:`fingerprint` and work on documents from anywhere.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from .base import Document

if TYPE_CHECKING:
    from ..graph import GraphStore


def _document(row: dict) -> Document:
    return Document(row["id"], row["title"] or "", row["abstract"] or "", "; ".join(row["keywords"] or ()))


def documents(store: GraphStore, eligible_only: bool = False, batch: int = 5_000) -> Iterator[Document]:
    """Every corpus paper with a title, by id, streamed: the ids in order from the server,
    the texts ``batch`` papers at a time (the server never sorts texts)."""
    rows = store.in_id_order("corpus/document_ids", "corpus/documents_by_id", batch, eligible_only=eligible_only)
    return map(_document, rows)


def documents_by_id(store: GraphStore, ids: Iterable[str]) -> dict[str, Document]:
    """The given papers' documents (absent ids are missing from the result)."""
    return {row["id"]: _document(row) for row in store.rows("corpus/documents_by_id", ids=list(dict.fromkeys(ids)))}


def fingerprint(docs: Iterable[Document]) -> str:
    """A short hash of the documents' ids and texts, in order."""
    digest = hashlib.sha256()
    for doc in docs:
        for part in (doc.id, doc.title, doc.abstract, *([doc.keywords] if doc.keywords else [])):
            digest.update(part.encode("utf-8"))
            digest.update(b"\0")
    return digest.hexdigest()[:16]
