"""Nearest-neighbour search over document embeddings (Faiss), with per-query pools.

A dense retriever embeds its queries and asks an :class:`AnnIndex` for the closest
documents; this module searches, :mod:`.ann_build` builds the Faiss index (what with:
:class:`~.ann_build.AnnConfig`) and :mod:`.ann_files` keeps it on disk. Choices and why:

* **Exact search is the default** (``kind="flat"``), as in the MDCR paper, and at the
  pool sizes the graph hands over exact scoring is cheap. ``ivf``
  (``nlist``, ``nprobe``) and ``hnsw`` (``m``, ``ef_search``) trade recall for speed on
  whole-corpus search; :func:`recall_against_exact` reports what they lose.
* **Compressed** (``ivfpq``, ``opq``): an IVF index whose rows are product-quantiser codes
  (``pq_m`` bytes at 8 bits instead of ``4·dim``), for corpora whose float vectors do not
  fit in memory. Its scores are approximate; given the float vectors (``vectors``: the
  embedding store's memmap, which :mod:`citegraph.retrieval.dense` passes; the index folder keeps only the
  codes) it re-scores its top ``rerank`` candidates exactly, and pools it scores exactly
  are scored from those vectors rather than from decoded codes.
* **Metric at build**: ``"cosine"`` stores L2-normalised vectors in an inner-product
  index (queries are normalised too), ``"l2"`` keeps raw vectors for models trained with
  Euclidean distance (SPECTER). Scores are similarities, higher is better: the cosine,
  or for ``"l2"`` the *negative squared* Euclidean distance ``-‖q − x‖²`` (what Faiss
  computes; same order as the distance, no square root).
* **Pools**: a query restricted to a pool is either scored exactly over the pool's
  vectors — read in place by Faiss' ``fvec_*_by_idx`` (no copy, no numpy BLAS), or for
  a pool shared by many queries gathered once into one matrix product — or searched
  by the index itself with an ``IDSelectorBitmap`` (in our measurements 20–40 %
  faster than ``IDSelectorBatch`` for the large pools this path gets). Which one is
  decided per pool (:meth:`AnnIndex.exact_for`), from measurements on one thread,
  768-d, k=100 (``benchmarks/ann.py`` prints them):

  - ``flat``: exact up to an eighth of the corpus. The selector scans every row of
    the corpus, so it only pays off for pools that are a sizeable share of it; at 200k
    rows the two crossed between 20k- and 40k-document pools (per query: 65 ids
    0.004 ms vs 0.4 ms; 1k 0.35 vs 1.2; 10k 1.8 vs 4.3; 20k 9.5 vs 9.6; 60k 23 vs 28
    on a busy machine, so ±30 %). Both are exact here.
  - ``ivf``: exact while fewer than ``8·k`` pool members are expected in the ``nprobe``
    probed lists (``pool · nprobe / nlist``). A selector only sees pool members in the
    lists it probes: against exact pool ranking it kept 24 % of the top 100 at a 1k
    pool, 83 % at 12k and 99.4 % at 25k (nlist 1024, nprobe 32), so below that bound it
    is fast but wrong.
  - ``hnsw``: exact up to half the corpus: filtered graph search loses its way when few
    nodes pass (top-100 overlap 10 % at a 1 % pool, 80 % at 24 %, 99.6 % at 50 %).

  ``exact_pool_max`` overrides the rule with a fixed size (0 = always the selector).
  Mapping a pool's string ids to rows (a dict look-up each) costs as much as scoring
  them; it is done once per distinct pool object per call, so queries sharing a pool
  share it. Pool ids that are not in the index are ignored (papers without embedding).
* **Threads**: set explicitly (default 1) before every build and search, because on a
  busy 2-core machine two OpenMP threads ran slower than one.
* **GPU**: when Faiss sees a GPU, ``flat`` and ``ivf`` searches without pools run on a
  GPU copy. Pool-restricted searches stay on the CPU index since GPU indexes ignore
  ``IDSelector`` silently; HNSW has no GPU form.
* ``faiss`` is imported lazily, so that importing citegraph needs no Faiss.

Ties are broken by id (:func:`citegraph.retrieval.base.rank`): exactly on the exact
path; on the index path among the hits Faiss returned (a tie straddling rank ``k`` is
resolved by Faiss).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Sequence
from itertools import repeat
from pathlib import Path
from typing import cast

import numpy as np

from ...heavy import faiss
from ..base import Ranking, rank
from .ann_build import IVF_KINDS, PQ_KINDS, AnnConfig, Kind, Metric, faiss_index, omp_threads, prepare
from .ann_files import Manifest, read_index, write_index

GPU_MAX_K = 2048  # Faiss GPU k-selection limit; larger k is searched on the CPU
SHARED_POOL_QUERIES = 32  # from this many queries on one pool, score it by one BLAS product


def _in_threads(method: Callable) -> Callable:
    """An index method run on the index's ``threads`` (:func:`omp_threads`)."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with omp_threads(self.threads):
            return method(self, *args, **kwargs)

    return run


class AnnIndex:
    """A Faiss index over float32 vectors whose rows are documents with string ids.

    Row ``i`` of the index is ``ids[i]``: Faiss' own sequential ids are the positions, so
    no ``IndexIDMap`` is needed and selectors take positions directly.
    """

    def __init__(
        self,
        index: faiss.Index,
        ids: Sequence[str],
        *,
        metric: Metric,
        kind: Kind,
        params: dict[str, int],
        key: str = "",
        threads: int = 1,
        exact_pool_max: int | None = None,
        vectors: np.ndarray | None = None,
    ):
        if index.ntotal != len(ids):
            raise ValueError(f"index holds {index.ntotal} vectors but {len(ids)} ids were given")
        if vectors is not None and vectors.shape != (len(ids), index.d):
            raise ValueError(f"float vectors of shape {vectors.shape} for {len(ids)} rows of {index.d} dimensions")
        self.index = index
        self.ids = list(ids)
        self.metric: Metric = metric
        self.kind: Kind = kind
        self.params = dict(params)
        self.key = key
        self.threads = threads
        self.exact_pool_max = exact_pool_max
        self.vectors = vectors if kind in PQ_KINDS else None  # the exact rows behind codes
        self._position = {doc_id: i for i, doc_id in enumerate(self.ids)}
        if len(self._position) != len(self.ids):
            raise ValueError("document ids are not unique")
        self._apply_params()
        self._storage = self._flat_storage()
        self._gpu = self._gpu_copy()

    # ---------------------------------------------------------------- building

    @classmethod
    def build(
        cls, vectors: np.ndarray, ids: Sequence[str], config: AnnConfig = AnnConfig(), *, key: str = ""
    ) -> AnnIndex:
        """Build over an array or ``np.memmap`` of shape (n, dim), one row per id
        (:func:`.ann_build.faiss_index`); ``key`` names the embeddings, for :meth:`load`."""
        if vectors.ndim != 2 or len(vectors) != len(ids):
            raise ValueError(f"need one row per id: {vectors.shape} for {len(ids)} ids")
        if any("\n" in doc_id for doc_id in ids):
            raise ValueError("document ids must not contain newlines")
        return cls(
            faiss_index(vectors, config),
            ids,
            metric=config.metric,
            kind=config.kind,
            params=config.params(),
            key=key,
            threads=config.threads,
            exact_pool_max=config.exact_pool_max,
            vectors=vectors,
        )

    # ------------------------------------------------------------ persistence

    def save(self, directory: str | Path) -> Path:
        """Write the index's folder (:mod:`.ann_files`)."""
        directory = Path(directory)
        manifest = Manifest(self.metric, self.kind, self.params, self.dim, len(self.ids), self.key)
        write_index(directory, self.index, self.ids, manifest)
        return directory

    @classmethod
    def load(
        cls,
        directory: str | Path,
        *,
        key: str | None = None,
        threads: int = 1,
        exact_pool_max: int | None = None,
        vectors: np.ndarray | None = None,
    ) -> AnnIndex:
        """Read an index written by :meth:`save`; with ``key``, a stale one (built from other
        embeddings) raises ``ValueError``. ``vectors``: the float rows a compressed index
        re-ranks with (its folder keeps only codes)."""
        index, ids, manifest = read_index(Path(directory), key, threads)
        return cls(
            index,
            ids,
            metric=manifest.metric,
            kind=manifest.kind,
            params=manifest.params,
            key=manifest.key,
            threads=threads,
            exact_pool_max=exact_pool_max,
            vectors=vectors,
        )

    # -------------------------------------------------------------- searching

    @property
    def dim(self) -> int:
        return int(self.index.d)

    def __len__(self) -> int:
        return len(self.ids)

    @_in_threads
    def search(
        self, query_vectors: np.ndarray, k: int, pools: Sequence[Collection[str]] | None = None
    ) -> list[Ranking]:
        """The ``k`` most similar documents per query row, best first.

        ``pools`` as in :class:`citegraph.retrieval.base.Retriever`: one collection of
        allowed ids per query; queries sharing one pool object are searched together.
        """
        queries = prepare(np.atleast_2d(query_vectors), self.metric)
        if pools is None:
            return self._ranked(queries, k)
        if len(pools) != len(queries):
            raise ValueError(f"{len(queries)} queries but {len(pools)} pools")
        groups: dict[int, list[int]] = {}
        for q, pool in enumerate(pools):
            groups.setdefault(id(pool), []).append(q)
        rankings: list[Ranking] = [[] for _ in range(len(queries))]
        for rows in groups.values():
            positions = self._positions(pools[rows[0]])
            if self.exact_for(len(positions), k):
                results = self._search_exact(queries[rows], positions, k)
            else:
                results = self._ranked(queries[rows], k, positions)
            for q, ranking in zip(rows, results):
                rankings[q] = ranking
        return rankings

    def exact_for(self, pool_size: int, k: int) -> bool:
        """Whether a pool of this many indexed documents is scored exactly (see above)."""
        if self.exact_pool_max is not None:
            return pool_size <= self.exact_pool_max
        if self.kind in IVF_KINDS:
            return pool_size * self.params["nprobe"] / self.params["nlist"] < 8 * k
        return pool_size <= len(self.ids) // (8 if self.kind == "flat" else 2)

    def _positions(self, pool: Collection[str]) -> np.ndarray:
        """Sorted, distinct row positions of a pool's indexed ids (others are ignored)."""
        rows = np.fromiter(
            map(self._position.get, pool, repeat(-1)), dtype=np.int64, count=len(pool)
        )  # look-ups in C: a third faster than a genexpr
        return np.unique(rows[rows >= 0])

    def _ranked(self, queries: np.ndarray, k: int, positions: np.ndarray | None = None) -> list[Ranking]:
        """The index's own top ``k`` (within ``positions`` when given); a compressed index
        with float vectors re-scores its top ``rerank`` candidates exactly first."""
        depth = max(k, self.params.get("rerank", 0)) if self.vectors is not None else k
        distances, found = self._search(queries, depth, positions)
        if depth == k:
            return self._rankings(distances, found, k)
        return [
            self._top(self._pool_scores(queries[q : q + 1], rows)[0], rows, k)
            for q, rows in enumerate(row[row >= 0] for row in found)
        ]

    def _search(
        self, queries: np.ndarray, k: int, positions: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Faiss search, restricted to ``positions`` by a selector when given."""
        if positions is None:
            index = self._gpu if self._gpu is not None and k <= GPU_MAX_K else self.index
            return index.search(queries, k)
        bitmap = np.zeros(len(self.ids), dtype=bool)
        bitmap[positions] = True
        # the keyword arguments and the bitmap-only constructor are faiss's Python wrappers (class_wrappers.py),
        # which its SWIG-generated stubs do not know
        selector = faiss.IDSelectorBitmap(np.packbits(bitmap, bitorder="little"))  # type: ignore[call-arg, arg-type]
        if self.kind in IVF_KINDS:
            params = faiss.SearchParametersIVF(sel=selector, nprobe=self.params["nprobe"])  # type: ignore[call-arg]
        elif self.kind == "hnsw":
            params = faiss.SearchParametersHNSW(  # type: ignore[attr-defined]  # missing from the stubs
                sel=selector, efSearch=self.params["ef_search"]
            )
        else:
            params = faiss.SearchParameters(sel=selector)  # type: ignore[call-arg]
        return self.index.search(queries, k, params=params)

    def _search_exact(self, queries: np.ndarray, positions: np.ndarray, k: int) -> list[Ranking]:
        """Exact top ``k`` over the pool's vectors, ties broken by id even across rank k.

        Up to ``SHARED_POOL_QUERIES`` queries each read the pool rows in place; more
        queries sharing a pool (dataset-level pools in an evaluation) gather its rows
        once and search them as a Faiss flat index, a BLAS matrix product — about 1.3×
        faster at 50 queries and 2× at 100 (200k × 768, 1k–20k pools). Where Faiss'
        k-th and (k+1)-th scores tie, that query is redone over all pool scores.
        """
        if len(positions) == 0:
            return [[] for _ in range(len(queries))]
        if len(queries) < SHARED_POOL_QUERIES:
            return [self._top(row, positions, k) for row in self._pool_scores(queries, positions)]
        pool = faiss.IndexFlat(self.dim, self.index.metric_type)
        pool.add(self._rows(positions))
        depth = min(k + 1, len(positions))
        scores, rows = pool.search(queries, depth)
        if self.metric == "l2":
            np.negative(scores, out=scores)
        return [
            self._top(self._pool_scores(queries[q : q + 1], positions)[0], positions, k)
            if depth > k and scores[q, k - 1] == scores[q, k]
            else self._hits(positions[rows[q, :k]], scores[q, :k], k)
            for q in range(len(queries))
        ]

    def _top(self, scores: np.ndarray, positions: np.ndarray, k: int) -> Ranking:
        """The top ``k`` of one query's pool scores plus anything tied with the k-th."""
        if len(scores) > k:
            kth = np.partition(scores, len(scores) - k)[len(scores) - k]
            keep = np.flatnonzero(scores >= kth)
            positions, scores = positions[keep], scores[keep]
        return self._hits(positions, scores, k)

    def _hits(self, positions: np.ndarray, scores: np.ndarray, k: int) -> Ranking:
        """Rows as ranked hits by id; position -1 is Faiss' mark for a missing result."""
        found = positions >= 0
        ids = map(self.ids.__getitem__, positions[found].tolist())
        return rank(dict(zip(ids, scores[found].tolist())), k)

    def _pool_scores(self, queries: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Similarities (n_queries × pool) computed in place in the index's storage.

        Faiss' ``fvec_*_by_idx`` reads the pool rows where they are stored; gathering
        them into a matrix for numpy first cost 5–15× more (a copy per pool row, and
        numpy's threaded BLAS stalls on a busy machine). IVF keeps no contiguous
        matrix, so there the pool's rows are gathered (:meth:`_rows`).
        """
        if self._storage is None:
            base = self._rows(positions)
            pointer, rows = faiss.swig_ptr(base), np.arange(len(positions), dtype=np.int64)
        else:
            pointer, rows = self._storage.get_xb(), positions
        subset = np.ascontiguousarray(np.broadcast_to(rows, (len(queries), len(rows))))
        scores = np.empty(subset.shape, dtype=np.float32)
        if self.metric == "l2":
            faiss.fvec_L2sqr_by_idx(  # type: ignore[attr-defined]  # missing from the stubs
                faiss.swig_ptr(scores),
                faiss.swig_ptr(queries),
                pointer,
                faiss.swig_ptr(subset),
                self.dim,
                *subset.shape,
            )
            np.negative(scores, out=scores)
        else:
            faiss.fvec_inner_products_by_idx(  # type: ignore[attr-defined]  # missing from the stubs
                faiss.swig_ptr(scores),
                faiss.swig_ptr(queries),
                pointer,
                faiss.swig_ptr(subset),
                self.dim,
                *subset.shape,
            )
        return scores

    def _rows(self, positions: np.ndarray) -> np.ndarray:
        """Rows as the index compares them: from the float vectors when it has them (a
        compressed index's codes decode only approximately), else reconstructed by Faiss."""
        if self.vectors is None:
            return self.index.reconstruct_batch(positions)
        return prepare(self.vectors[positions], self.metric)

    def _rankings(self, distances: np.ndarray, positions: np.ndarray, k: int) -> list[Ranking]:
        """Faiss results as hits (-1 marks a missing result; L2 distances negated)."""
        scores = -distances if self.metric == "l2" else distances
        return [self._hits(prow, srow, k) for prow, srow in zip(positions, scores)]

    # ------------------------------------------------------------ environment

    def _apply_params(self) -> None:
        if self.kind in IVF_KINDS:
            faiss.extract_index_ivf(self.index).nprobe = self.params["nprobe"]
        elif self.kind == "hnsw":
            # downcast_index returns the concrete class; the stubs say Index
            faiss.downcast_index(self.index).hnsw.efSearch = self.params["ef_search"]  # type: ignore[attr-defined]

    def _flat_storage(self) -> faiss.IndexFlat | None:
        """The contiguous vector matrix of ``flat`` and ``hnsw`` indexes (IVF has none)."""
        if self.kind == "flat":
            return cast(faiss.IndexFlat, self.index)
        if self.kind == "hnsw":
            return faiss.downcast_index(self.index.storage)  # type: ignore[attr-defined, return-value]  # as above
        return None

    def _gpu_copy(self) -> faiss.Index | None:
        if self.kind == "hnsw" or faiss.get_num_gpus() == 0:
            return None
        gpu = faiss.index_cpu_to_all_gpus(self.index)
        if self.kind in IVF_KINDS:
            faiss.GpuParameterSpace().set_index_parameter(gpu, "nprobe", self.params["nprobe"])
        return gpu


def recall_against_exact(index: AnnIndex, exact: AnnIndex, queries: np.ndarray, k: int) -> float:
    """Mean share of the exact top ``k`` that ``index`` also returns in its top ``k``."""
    found = index.search(queries, k)
    truth = exact.search(queries, k)
    shares = [len({h.id for h in f} & {h.id for h in t}) / len(t) for f, t in zip(found, truth) if t]
    return float(np.mean(shares)) if shares else 1.0
