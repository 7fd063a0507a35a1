"""The Faiss index behind an :class:`~citegraph.retrieval.dense.ann.AnnIndex`: what it is built with
(:class:`AnnConfig`, whose fields with an option are the flags of ``citegraph index dense``)
and how each kind is built, a chunk of rows at a time.

Apart from the searching (:mod:`.ann`) and the files (:mod:`.ann_files`) because choosing and
filling an index is a concern of its own; light to import (``faiss`` comes on first use), so
the CLI makes its flags of :class:`AnnConfig` without loading Faiss.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ...errors import UsageError
from ...heavy import faiss
from ...options import option

Metric = Literal["cosine", "l2"]
Kind = Literal["flat", "ivf", "hnsw", "ivfpq", "opq"]
IVF_KINDS: tuple[Kind, ...] = ("ivf", "ivfpq", "opq")  # searched through inverted lists (nlist, nprobe)
PQ_KINDS: tuple[Kind, ...] = ("ivfpq", "opq")  # vectors kept as product-quantiser codes


@dataclass(frozen=True)
class AnnConfig:
    """How an index is built and searched (see :mod:`.ann` for what each kind trades).

    ``metric`` is the similarity of the vectors' model (a dense index takes its encoder's);
    ``nlist``/``nprobe`` shape the inverted lists of ``ivf``, ``ivfpq`` and ``opq`` indexes,
    ``m``/``ef_construction``/``ef_search`` an ``hnsw`` one. ``ivfpq`` (Faiss
    ``IVF{nlist},PQ{pq_m}x{pq_bits}``) keeps each vector as ``pq_m`` codes of ``pq_bits``
    bits, encoding its residual to its list's centroid (Faiss' default, ``by_residual``);
    ``opq`` (``OPQ{pq_m},IVF{nlist},PQ{pq_m}x{pq_bits}``) first rotates the vectors so that
    the sub-vectors quantise with less loss. ``rerank`` > 0 re-scores that many candidates
    exactly from the float vectors when the index has them (:class:`.ann.AnnIndex`'s
    ``vectors``). IVF kinds train on ``train_size`` rows drawn with ``seed`` (default
    ``min(n, 64·nlist)``, and at least 64 per product-quantiser centroid, within Faiss'
    advice of 30–256 points per centroid); ``chunk`` rows are copied at a time;
    ``exact_pool_max`` overrides the rule that picks exact pool scoring
    (:meth:`.ann.AnnIndex.exact_for`).
    """

    kind: Kind = field(
        default="flat", metadata=option("--kind", "Faiss index: exact (flat) as in the paper, or approximate.")
    )
    metric: Metric = "cosine"
    nlist: int = field(default=1024, metadata=option("--nlist", "ivf: inverted lists (clusters).", minimum=1))
    nprobe: int = field(default=32, metadata=option("--nprobe", "ivf: lists searched per query.", minimum=1))
    m: int = field(default=32, metadata=option("--hnsw-m", "hnsw: neighbours per node.", minimum=2))
    ef_construction: int = field(
        default=40, metadata=option("--ef-construction", "hnsw: candidate list while building.", minimum=1)
    )
    ef_search: int = field(default=256, metadata=option("--ef-search", "hnsw: candidate list per query.", minimum=1))
    pq_m: int = field(
        default=48,
        metadata=option(
            "--pq-m", "ivfpq/opq: sub-quantisers, the code's bytes at 8 bits (divides the dim).", minimum=1
        ),
    )
    pq_bits: int = field(
        default=8, metadata=option("--pq-bits", "ivfpq/opq: bits per sub-quantiser code.", minimum=1, maximum=16)
    )
    rerank: int = field(
        default=0,
        metadata=option(
            "--rerank", "ivfpq/opq: candidates re-scored exactly from the stored float vectors (0: none).", minimum=0
        ),
    )
    train_size: int | None = None
    seed: int = 0
    threads: int = field(default=1, metadata=option("--threads", "CPU threads for the encoder and Faiss."))
    chunk: int = 65_536
    exact_pool_max: int | None = None

    def params(self) -> dict[str, int]:
        """The parameters of this config's kind, as an index keeps them (and its manifest)."""
        if self.kind == "ivf":
            return {"nlist": self.nlist, "nprobe": self.nprobe}
        if self.kind in PQ_KINDS:
            return {
                "nlist": self.nlist,
                "nprobe": self.nprobe,
                "pq_m": self.pq_m,
                "pq_bits": self.pq_bits,
                "rerank": self.rerank,
            }
        if self.kind == "hnsw":
            return {"m": self.m, "ef_construction": self.ef_construction, "ef_search": self.ef_search}
        return {}


@contextmanager
def omp_threads(threads: int) -> Iterator[None]:
    """Faiss on ``threads`` OpenMP threads for a call, the count restored after it. The count
    is process-wide and torch's CPU matrix products read it too: a one-thread search left
    set would run a later fine-tuning in the same process on one core."""
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(threads)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(before)


def faiss_index(vectors: np.ndarray, config: AnnConfig) -> faiss.Index:
    """The Faiss index of ``config.kind`` over an array or ``np.memmap`` of shape (n, dim).

    Only one chunk is copied at a time (to float32, normalised for cosine), so a 2M×768
    memmap is never loaded whole besides the index's own storage.
    """
    n, dim = vectors.shape
    metric = faiss.METRIC_L2 if config.metric == "l2" else faiss.METRIC_INNER_PRODUCT
    index: faiss.Index
    if config.kind == "flat":
        index = faiss.IndexFlat(dim, metric)
    elif config.kind in IVF_KINDS:
        index = faiss.index_factory(dim, factory_string(config, dim), metric)
        _train(index, vectors, config)
    elif config.kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, config.m, metric)
        index.hnsw.efConstruction = config.ef_construction
    else:
        raise ValueError(f"unknown index kind {config.kind!r}")
    with omp_threads(config.threads):
        for start in range(0, n, config.chunk):
            index.add(prepare(vectors[start : start + config.chunk], config.metric))
    if config.kind in IVF_KINDS:
        faiss.extract_index_ivf(index).make_direct_map()  # lets the exact pool path gather vectors by position
    return index


def factory_string(config: AnnConfig, dim: int) -> str:
    """The Faiss ``index_factory`` description of an IVF kind; a product quantiser whose
    sub-quantisers do not divide ``dim`` is a one-line :class:`UsageError`, not Faiss'
    C++ assertion."""
    if config.kind == "ivf":
        return f"IVF{config.nlist},Flat"
    if dim % config.pq_m:
        raise UsageError(
            f"--pq-m {config.pq_m} does not divide the vectors' dimension {dim}: "
            f"choose a divisor of {dim} (e.g. {dim // 8} or {dim // 16})"
        )
    # "np": no polysemous training (a reordering of the codes for Hamming filtering, which
    # search does not use); it made training 25 times slower (3,000 × 64, PQ16x8: 63 s vs 2.5 s)
    pq = f"IVF{config.nlist},PQ{config.pq_m}x{config.pq_bits}np"
    return f"OPQ{config.pq_m},{pq}" if config.kind == "opq" else pq


def _train(index: faiss.Index, vectors: np.ndarray, config: AnnConfig) -> None:
    """Train an IVF kind on a seeded sample of rows (see :class:`AnnConfig`)."""
    n = len(vectors)
    advised = 64 * max(config.nlist, 2**config.pq_bits if config.kind in PQ_KINDS else 0)
    size = min(n, config.train_size or advised)
    needed = max(config.nlist, 2**config.pq_bits if config.kind in PQ_KINDS else 0)
    if size < needed:  # Faiss would stop with a RuntimeError from its C++ assertion
        raise UsageError(
            f"an {config.kind} index of {config.nlist} lists"
            + (f" and {2**config.pq_bits} codes per sub-quantiser" if config.kind in PQ_KINDS else "")
            + f" needs at least {needed} vectors to train, not {size}: fewer lists (--nlist)"
            + (", fewer bits (--pq-bits)" if config.kind in PQ_KINDS else "")
            + " or a flat index"
        )
    rows = np.random.default_rng(config.seed).choice(n, size=size, replace=False)
    with omp_threads(config.threads):
        index.train(prepare(vectors[np.sort(rows)], config.metric))


def prepare(vectors: np.ndarray, metric: Metric) -> np.ndarray:
    """A contiguous float32 block for Faiss; for cosine a normalised *copy*.

    The copy matters: normalising in place would write into the caller's array or a
    writable memmap of the embedding cache.
    """
    if metric == "cosine":
        block = np.array(vectors, dtype=np.float32, order="C", copy=True)
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        np.divide(block, norms, out=block, where=norms > 0)
        return block
    return np.ascontiguousarray(vectors, dtype=np.float32)
