"""Re-ranking with a dense encoder that encodes only what it re-ranks, once.

Re-ranking the BM25 top 20 of 800 queries touches at most 16,000 papers; encoding the
whole corpus for it (``citegraph index dense``) wastes hours on a large one. A
:class:`PoolEncoder` ranks each query's pool (the candidates it is handed) by the
encoder's similarity, encoding a candidate only when its vector is not cached yet: the
:class:`VectorCache` keeps one vector per (model, text) in a SQLite file, so a second
run over the same candidates encodes nothing but the queries. A paper whose text
changes is encoded again (its key is the text's hash, not its id).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import CitegraphError
from ..base import Document, Hit, Query, Ranking, Retriever, query_document, rank
from ..spec import Dense, Fusion, Spec
from .encoders import Encoder, get_encoder

Lookup = Callable[[Iterable[str]], Mapping[str, Document]]  # ids → their documents (e.g. DocStore.get)


def _text_key(doc: Document) -> str:
    return hashlib.sha256("\0".join((doc.title, doc.abstract, doc.keywords)).encode("utf-8")).hexdigest()[:32]


class VectorCache:
    """One vector per document text for one encoder, in ``<cache dir>/vectors-<model hash>.sqlite``."""

    def __init__(self, cache_dir: Path, encoder: Encoder):
        key = json.dumps(encoder.cache_key(), sort_keys=True, default=str)
        self.path = Path(cache_dir) / f"vectors-{hashlib.sha256(key.encode()).hexdigest()[:16]}.sqlite"
        self.encoder = encoder
        self.encoded = 0  # documents encoded by this object (the rest came from the cache)

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=60)
        db.execute("CREATE TABLE IF NOT EXISTS vec (key TEXT PRIMARY KEY, vector BLOB)")
        return db

    def vectors(self, docs: Sequence[Document]) -> np.ndarray:
        """Each document's vector, in order: cached ones read, the others encoded and cached."""
        keys = [_text_key(d) for d in docs]
        found: dict[str, np.ndarray] = {}
        with closing(self._connect()) as db:
            rows = db.execute(
                "SELECT key, vector FROM vec WHERE key IN (SELECT value FROM json_each(?))",
                (json.dumps(list(dict.fromkeys(keys))),),
            )
            found.update((k, np.frombuffer(v, dtype=np.float32)) for k, v in rows)
            missing = list({k: d for k, d in zip(keys, docs) if k not in found}.items())
            if missing:
                encoded = self.encoder.encode([d for _, d in missing])
                self.encoded += len(missing)
                with db:
                    db.executemany(
                        "INSERT OR REPLACE INTO vec VALUES (?, ?)",
                        [(k, v.astype(np.float32).tobytes()) for (k, _), v in zip(missing, encoded)],
                    )
                found.update((k, v) for (k, _), v in zip(missing, encoded))
        return np.stack([found[k] for k in keys]) if keys else np.zeros((0, self.encoder.dim), dtype=np.float32)


@dataclass
class PoolEncoder:
    """A :class:`~citegraph.retrieval.base.Retriever` that only re-ranks: each query's pool,
    by the encoder's similarity (cosine or L2), candidates encoded through the cache."""

    encoder: Encoder
    cache: VectorCache
    lookup: Lookup
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.name or self.encoder.name
        if self.encoder.spec.similarity not in ("cosine", "l2"):
            raise CitegraphError(
                f"{self.encoder.name}: re-ranking scores by cosine or L2, not {self.encoder.spec.similarity}"
            )

    def search(self, queries: Sequence[Query], k: int, pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        if pools is None:
            raise CitegraphError(f"{self.name} re-ranks candidates: it needs a pool per query (e.g. --rerank-depth)")
        if not queries:
            return []
        # in one order whatever the pools' (sets iterate in each process's hash order): a vector moves
        # in its last bits with the texts it is batched with, and so would the scores from run to run
        ids = sorted({i for pool in pools for i in pool})
        docs = self.lookup(ids)
        known = [i for i in ids if i in docs]
        matrix = self.cache.vectors([docs[i] for i in known])
        row = {doc_id: r for r, doc_id in enumerate(known)}
        asked = self.encoder.encode([query_document(q) for q in queries])
        out = []
        for vector, pool in zip(asked, pools):
            members = [i for i in pool if i in row]
            scores = self._similarity(vector, matrix[[row[i] for i in members]]) if members else np.zeros(0)
            out.append(rank([Hit(i, float(s)) for i, s in zip(members, scores)], k))
        return out

    def _similarity(self, query: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        if self.encoder.spec.similarity == "l2":
            return -np.linalg.norm(candidates - query, axis=1)
        norms = np.linalg.norm(candidates, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
        return candidates @ query / np.maximum(norms, 1e-12)


def open_for_rerank(spec: Spec, indexes: Path, cache_dir: Path, lookup: Lookup, threads: int = 1) -> Retriever:
    """``spec`` as a re-ranker of the pools it is handed: a dense encoder as a :class:`PoolEncoder`
    (no index needed; vectors cached in ``cache_dir``), BM25 on its built index (the pool
    restricts it), a fusion of its members so opened."""
    if isinstance(spec, Dense) and not spec.maxsim:
        encoder = get_encoder(spec.encoder)
        return PoolEncoder(encoder, VectorCache(cache_dir, encoder), lookup, str(spec))
    if isinstance(spec, Fusion):
        from ..fusion import ReciprocalRankFusion, WeightedFusion

        members = [open_for_rerank(m, indexes, cache_dir, lookup, threads) for m in spec.members]
        return ReciprocalRankFusion(members) if spec.weights is None else WeightedFusion(members, spec.weights)
    return spec.open(indexes, threads)
