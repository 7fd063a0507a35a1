"""Dense retrieval: a corpus encoded once (cached on disk), queries encoded on the fly.

Single-vector encoders (SciBERT, SPECTER, SciNCL, MiniLM, any ``hf:`` model) put their
document vectors in a Faiss index (:class:`~citegraph.retrieval.dense.ann.AnnIndex`) searched
with the metric the model was trained for (L2 for SPECTER-style models, cosine for
sentence-transformers). Multi-vector encoders (TS-Aspire: a vector per sentence) score a
candidate by its best sentence pair with the query, exhaustively over the pool (or the
whole corpus), as the MDCR paper scores Aspire. Any encoder scores that way with
``<encoder>:maxsim`` (:func:`build_maxsim`): each sentence encoded alone, in memory.

An index directory holds ``dense.json`` (which encoder, which embedding store) and, for
single-vector encoders, the Faiss index; the vectors stay in the embedding store, keyed
by model and corpus fingerprint, so rebuilding an index or resuming an interrupted
encoding never encodes a document twice. Vectors computed elsewhere (S2AG's SPECTER2
embeddings, :func:`build_precomputed`) go into such a store too, under the name of the
encoder that made them: queries are then encoded by that encoder, or refused in one line
where it is missing. A compressed index (``ivfpq``/``opq``) re-ranks from the store's vectors.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import numpy as np

from ...errors import CitegraphError
from ..base import Document, Query, Ranking, query_document, rank
from ..sentences import sentence_units, split_sentences
from .ann import AnnIndex
from .ann_build import AnnConfig, Metric
from .corpus_vectors import EmbeddingStore, encode_corpus, store_dir
from .encoder_specs import ENCODERS, EncoderSpec, Similarity
from .encoders import Encoder, ProgressCallback

MANIFEST = "dense.json"


@dataclass
class DenseRetriever:
    """Single-vector encoder + Faiss index."""

    encoder: Encoder
    index: AnnIndex

    @property
    def name(self) -> str:
        return self.encoder.name

    def search(self, queries: Sequence[Query], k: int, pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        if not queries:
            return []
        vectors = self.encoder.encode([query_document(q) for q in queries])
        return self.index.search(vectors, k, pools)


class SentenceVectors(Protocol):
    """Documents' sentence vectors by row: an :class:`EmbeddingStore` or :class:`SentenceMatrices`."""

    ids: list[str]

    def matrix(self, doc: int) -> np.ndarray: ...


@dataclass
class SentenceMatrices:
    """Sentence vectors held in memory (``:maxsim`` over given documents)."""

    ids: list[str]
    matrices: list[np.ndarray]

    def matrix(self, doc: int) -> np.ndarray:
        return self.matrices[doc]


@dataclass
class MultiVectorRetriever:
    """A candidate's score is its best sentence pair with the query.

    Without ``sentences``, the encoder's own sentence vectors (TS-Aspire's contextual
    ones, from the embedding store); with it (``<encoder>:maxsim``), each sentence that
    ``sentences`` cuts from a text encoded alone, as the CSFCube paper scores SentBERT.
    """

    encoder: Encoder
    store: SentenceVectors
    sentences: Callable[[Query], list[str]] | None = None

    @property
    def name(self) -> str:
        return self.encoder.name + (":maxsim" if self.sentences else "")

    def search(self, queries: Sequence[Query], k: int, pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        if self.sentences is None:
            matrices = self.encoder.encode_sentences([query_document(q) for q in queries])
        else:
            matrices = encode_each(self.encoder, [self.sentences(q) for q in queries])
        row = {doc_id: i for i, doc_id in enumerate(self.store.ids)}
        rankings = []
        for q, query in enumerate(matrices):
            candidates = [row[i] for i in pools[q] if i in row] if pools is not None else range(len(row))
            scores = maxsim(query, [self.store.matrix(i) for i in candidates], self.encoder.spec.similarity)
            rankings.append(rank({self.store.ids[i]: float(s) for i, s in zip(candidates, scores)}, k))
        return rankings


def maxsim(query: np.ndarray, candidates: Sequence[np.ndarray], similarity: Similarity = "l2") -> np.ndarray:
    """Each candidate's score: its best sentence pair with the query (TS-Aspire's ranking).

    ``l2`` scores by minus the smallest Euclidean distance (the Aspire model card's
    "minimal L2 distance"), ``cosine``/``dot`` by the largest similarity. A candidate
    without sentences scores ``-inf``.
    """
    scores = np.full(len(candidates), -np.inf, dtype=np.float32)
    if len(candidates) == 0 or len(query) == 0:
        return scores
    sizes = np.array([len(c) for c in candidates])
    rows = np.concatenate([np.asarray(c, dtype=np.float32) for c in candidates if len(c)])
    q = np.asarray(query, dtype=np.float32)
    if similarity == "cosine":
        q = q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
        rows = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    pair = q @ rows.T  # (query sentences, all candidate sentences)
    if similarity == "l2":
        sq = (q * q).sum(1)[:, None] + (rows * rows).sum(1)[None, :] - 2 * pair
        pair = -np.sqrt(np.maximum(sq, 0))
    best = pair.max(axis=0)
    nonempty = sizes > 0
    scores[nonempty] = np.maximum.reduceat(best, np.cumsum(sizes)[nonempty] - sizes[nonempty])
    return scores


def encode_each(encoder: Encoder, groups: list[list[str]]) -> list[np.ndarray]:
    """One matrix of sentence vectors per group of sentences, each sentence encoded alone, in one call.

    A sentence is encoded as a title-only document; a group without sentences gets no rows.
    """
    flat = [Document(str(i), s) for i, s in enumerate(s for group in groups for s in group)]
    rows = encoder.encode_sentences(flat)
    bounds = np.cumsum([0, *map(len, groups)])
    empty = np.zeros((0, encoder.dim), dtype=np.float32)
    return [np.concatenate(rows[a:b]) if b > a else empty for a, b in itertools.pairwise(bounds)]


def units(query: Query) -> list[str]:
    """A query's sentences by punctuation: a text's, or a paper's abstract's (its title without one)."""
    return split_sentences(query) if isinstance(query, str) else sentence_units(query)


def build_maxsim(
    docs: Sequence[Document], encoder: Encoder, sentences: Callable[[Query], list[str]] | None = None
) -> MultiVectorRetriever:
    """Every sentence of ``docs`` (cut by ``sentences``, default :func:`units`) encoded alone, in memory."""
    sentences = sentences or units
    return MultiVectorRetriever(
        encoder, SentenceMatrices([d.id for d in docs], encode_each(encoder, [sentences(d) for d in docs])), sentences
    )


def build_dense(
    docs: Sequence[Document],
    encoder: Encoder,
    index_dir: Path,
    cache_dir: Path,
    *,
    ann: AnnConfig = AnnConfig(),
    progress: ProgressCallback | None = None,
    log: Callable[[str], None] | None = None,
) -> DenseRetriever | MultiVectorRetriever:
    """Encode ``docs`` (resuming from the cache) and write the index of ``encoder`` to ``index_dir``,
    built as ``ann`` says with the metric the encoder was trained for."""
    store = encode_corpus(encoder, docs, cache_dir, progress=progress, log=log)
    if encoder.multi_vector:
        _write_manifest(index_dir, encoder.name, store)
        return MultiVectorRetriever(encoder, store)
    return DenseRetriever(encoder, _index_store(store, encoder.name, _metric(encoder.spec), index_dir, ann))


def build_precomputed(
    encoder_name: str,
    ids: Sequence[str],
    dim: int,
    blocks: Callable[[int], Iterable[np.ndarray]],
    index_dir: Path,
    cache_dir: Path,
    *,
    source: Mapping[str, object],
    ann: AnnConfig = AnnConfig(),
) -> AnnIndex:
    """Index vectors that ``encoder_name`` computed elsewhere (e.g. S2AG's SPECTER2 dataset).

    ``ids`` are the rows in order; ``blocks(start)`` yields their vectors from row ``start``
    on, a block at a time, each written to the embedding store (named by ``source`` and
    the ids) before the next is read, so a stopped load resumes and the vectors are held
    once, on disk. The index is built from the store as :func:`build_dense` builds it.
    """
    key = {
        "encoder": encoder_name,
        **source,
        "corpus": hashlib.sha256("\n".join(ids).encode("utf-8")).hexdigest()[:16],
        "storage": "float32",
    }
    store = EmbeddingStore.open_or_create(store_dir(cache_dir, key), key, ids, dim)
    start = store.complete_docs
    for block in blocks(start):
        store.write(start, block)
        start += len(block)
    return _index_store(store, encoder_name, _metric(ENCODERS[encoder_name]), index_dir, ann)


def _index_store(store: EmbeddingStore, encoder_name: str, metric: Metric, index_dir: Path, ann: AnnConfig) -> AnnIndex:
    """The Faiss index of a store's vectors, saved with the manifest naming its encoder."""
    index = AnnIndex.build(store.vectors, store.ids, replace(ann, metric=metric), key=store.directory.name)
    index.save(index_dir)
    _write_manifest(index_dir, encoder_name, store)
    return index


def _write_manifest(index_dir: Path, encoder_name: str, store: EmbeddingStore) -> None:
    index_dir = Path(index_dir)
    index_dir.mkdir(parents=True, exist_ok=True)
    manifest = {"encoder": encoder_name, "store": str(store.directory.resolve()), "key": store.directory.name}
    (index_dir / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def open_dense(
    index_dir: Path,
    encoder: Encoder | None = None,
    threads: int = 1,
    make_encoder: Callable[[str], Encoder] | None = None,
) -> DenseRetriever | MultiVectorRetriever:
    """The retriever whose index ``build_dense`` wrote to ``index_dir``."""
    path = Path(index_dir) / MANIFEST
    if not path.is_file():
        raise CitegraphError(f"no dense index in {index_dir}; build it with `citegraph index dense`")
    manifest = json.loads(path.read_text(encoding="utf-8"))
    if encoder is None:
        from .encoders import get_encoder

        encoder = (make_encoder or get_encoder)(manifest["encoder"])
    store = EmbeddingStore.open(Path(manifest["store"]))
    if encoder.multi_vector:
        return MultiVectorRetriever(encoder, store)
    index = AnnIndex.load(index_dir, key=manifest["key"], threads=threads, vectors=store.vectors)
    return DenseRetriever(encoder, index)


def _metric(spec: EncoderSpec) -> Metric:
    similarity = spec.similarity
    if similarity == "dot":
        raise CitegraphError(
            f"{spec.name}: dot-product scoring is not supported by the Faiss index; use cosine (normalised) or l2"
        )
    return similarity
