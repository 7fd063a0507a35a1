"""Scoring the candidates the graph hands over: BM25 (Lucene or bm25s), dense encoders
with Faiss, and fusions of them, all behind one :class:`~citegraph.retrieval.base.Retriever`.

Indexes live under one folder (``<data dir>/indexes``), one subfolder per retriever name,
so a retriever is opened by its name alone: ``bm25``, ``bm25-multifield``, an encoder name
(``minilm``, ``specter``, ``hf:…``) or a fusion ``rrf:bm25+minilm``. Heavy libraries are
imported only when a retriever is opened.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import CitegraphError
from .base import Document, Hit, Query, Ranking, Retriever

BM25_NAMES = ("bm25", "bm25-multifield")
FUSION_PREFIX = "rrf:"


def index_dir(indexes: Path, name: str) -> Path:
    """Where the index of retriever ``name`` lives."""
    if name in BM25_NAMES:
        return Path(indexes) / name
    return Path(indexes) / ("dense-" + re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_"))


def retriever_choices() -> list[str]:
    from .encoders import encoder_choices

    return [*BM25_NAMES, *encoder_choices(), f"{FUSION_PREFIX}<name>+<name>"]


def open_retriever(name: str, indexes: Path, threads: int = 1) -> Retriever:
    """The retriever ``name`` over the index built earlier under ``indexes``."""
    if name.startswith(FUSION_PREFIX):
        from .fusion import ReciprocalRankFusion

        members = [m for m in name[len(FUSION_PREFIX):].split("+") if m]
        if len(members) < 2:
            raise CitegraphError(f"'{name}': a fusion needs two or more retrievers, e.g. rrf:bm25+minilm")
        return ReciprocalRankFusion([open_retriever(m, indexes, threads) for m in members])
    folder = index_dir(indexes, name)
    if not folder.exists():
        raise CitegraphError(f"no index for '{name}' in {indexes}; build it with `citegraph index "
                             f"{'bm25' if name in BM25_NAMES else 'dense --encoder ' + name}`")
    if name in BM25_NAMES:
        from .bm25 import bm25

        return bm25(folder, threads=threads)
    from .dense import open_dense

    return open_dense(folder, threads=threads)


__all__ = ["BM25_NAMES", "Document", "Hit", "Query", "Ranking", "Retriever", "index_dir", "open_retriever",
           "retriever_choices"]
