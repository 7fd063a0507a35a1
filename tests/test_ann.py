"""AnnIndex against brute-force numpy on seeded clustered vectors (20k × 64)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

faiss = pytest.importorskip("faiss")

from citegraph.errors import UsageError  # noqa: E402
from citegraph.retrieval.dense.ann import AnnIndex, recall_against_exact  # noqa: E402  (after the importorskip it needs)
from citegraph.retrieval.dense.ann_build import AnnConfig  # noqa: E402

N, DIM, K = 20_000, 64, 10
IDS = [f"W{i:05d}/ä" for i in range(N)]  # non-ASCII and a slash: ids are opaque strings


CENTRES = np.random.default_rng(0).standard_normal((50, DIM)).astype(np.float32)


def clustered(n: int, seed: int) -> np.ndarray:
    """Points around 50 shared centres: documents and queries come from the same topics."""
    rng = np.random.default_rng(seed)
    return CENTRES[rng.integers(0, 50, n)] + 0.6 * rng.standard_normal((n, DIM), dtype=np.float32)


@pytest.fixture(scope="module")
def vectors() -> np.ndarray:
    return clustered(N, seed=1)


@pytest.fixture(scope="module")
def queries() -> np.ndarray:
    return clustered(50, seed=2)


@pytest.fixture(scope="module")
def flat(vectors) -> AnnIndex:
    return AnnIndex.build(vectors, IDS)


@pytest.fixture(scope="module")
def flat_l2(vectors) -> AnnIndex:
    return AnnIndex.build(vectors, IDS, AnnConfig(metric="l2"))


@pytest.fixture(scope="module")
def ivf(vectors) -> AnnIndex:
    return AnnIndex.build(vectors, IDS, AnnConfig(kind="ivf", nlist=64, nprobe=4))


@pytest.fixture(scope="module")
def hnsw(vectors) -> AnnIndex:
    return AnnIndex.build(vectors, IDS, AnnConfig(kind="hnsw", m=16, ef_search=32))


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def brute_force(
    vectors: np.ndarray, queries: np.ndarray, k: int, metric: str, rows: np.ndarray | None = None
) -> list[list[tuple[str, float]]]:
    """Top k by numpy over all rows (or ``rows``), ties by id, as (id, score) pairs."""
    rows = np.arange(len(vectors)) if rows is None else rows
    base = vectors[rows].astype(np.float64)
    q = queries.astype(np.float64)
    if metric == "cosine":
        scores = unit(q) @ unit(base).T
    else:
        scores = 2 * q @ base.T - (q * q).sum(1)[:, None] - (base * base).sum(1)
    best = np.argsort(-scores, axis=1, kind="stable")[:, : 2 * k]  # then ties by id below
    return [
        sorted(((IDS[rows[c]], row[c]) for c in cols.tolist()), key=lambda h: (-h[1], h[0]))[:k]
        for row, cols in zip(scores, best)
    ]


def assert_same(found, expected, rtol: float = 1e-5) -> None:
    for hits, truth in zip(found, expected, strict=True):
        assert [h.id for h in hits] == [i for i, _ in truth]
        np.testing.assert_allclose([h.score for h in hits], [s for _, s in truth], rtol=rtol, atol=1e-5)


def test_importing_the_module_does_not_import_faiss():
    code = "import sys, citegraph.retrieval.dense.ann; assert 'faiss' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_flat_cosine_equals_brute_force(flat, vectors, queries):
    assert_same(flat.search(queries, K), brute_force(vectors, queries, K, "cosine"))


def test_flat_l2_scores_are_negative_squared_distances(flat_l2, vectors, queries):
    assert_same(flat_l2.search(queries, K), brute_force(vectors, queries, K, "l2"))


@pytest.mark.parametrize("approximate, bound", [("ivf", 0.95), ("hnsw", 0.95)])
def test_approximate_recall_against_exact(approximate, bound, request, flat, queries):
    index = request.getfixturevalue(approximate)
    assert recall_against_exact(index, flat, queries, K) >= bound
    assert recall_against_exact(flat, flat, queries, K) == 1.0


def pools_of(size: int, count: int, seed: int) -> list[set[str]]:
    rng = np.random.default_rng(seed)
    return [{IDS[i] for i in rng.choice(N, size, replace=False)} for _ in range(count)]


def rows_of(pool: set[str]) -> np.ndarray:
    return np.array(sorted(int(doc_id[1:6]) for doc_id in pool))


@pytest.mark.parametrize("size", [10, 1_000, pytest.param(15_000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("exact_pool_max", [N, 0], ids=["exact", "selector"])
@pytest.mark.parametrize("metric", ["cosine", "l2"])
@pytest.mark.parametrize("shared", [False, True], ids=["own-pools", "shared-pool"])
def test_pool_restricted_search_equals_brute_force_over_the_pool(
    size, exact_pool_max, metric, shared, flat, flat_l2, vectors, queries
):
    """Own pools: one search per query; one pool shared by 50 queries: one BLAS product."""
    index = flat if metric == "cosine" else flat_l2
    if not shared:
        queries = queries[:10]
    pools = pools_of(size, 1 if shared else len(queries), seed=size)
    pools = pools * len(queries) if shared else pools
    index.exact_pool_max = exact_pool_max
    try:
        found = index.search(queries, K, pools)
    finally:
        index.exact_pool_max = None
    for hits, pool in zip(found, pools):
        assert {h.id for h in hits} <= pool
    expected = [brute_force(vectors, queries[q : q + 1], K, metric, rows_of(pool))[0] for q, pool in enumerate(pools)]
    assert_same(found, expected)


@pytest.mark.parametrize("approximate", ["ivf", "hnsw"])
def test_small_pools_on_approximate_indexes_are_scored_exactly(approximate, request, vectors, queries):
    index = request.getfixturevalue(approximate)
    pool = pools_of(300, 1, seed=7)[0]
    assert index.exact_for(len(pool), K)
    assert_same(
        index.search(queries, K, [pool] * len(queries)), brute_force(vectors, queries, K, "cosine", rows_of(pool))
    )


def test_selector_path_on_approximate_indexes_keeps_to_the_pool(ivf, hnsw, queries):
    pool = pools_of(15_000, 1, seed=8)[0]
    for index in (ivf, hnsw):
        index.exact_pool_max = 0
        try:
            found = index.search(queries, K, [pool] * len(queries))
        finally:
            index.exact_pool_max = None
        assert all(hits and {h.id for h in hits} <= pool for hits in found)


def test_automatic_pool_strategy(flat, ivf, hnsw):
    assert flat.exact_for(65, 500) and flat.exact_for(N // 8, 500)
    assert not flat.exact_for(N // 8 + 1, 500)
    assert ivf.exact_for(1_279, 10) and not ivf.exact_for(1_280, 10)  # 8·k·nlist/nprobe
    assert hnsw.exact_for(N // 2, 10) and not hnsw.exact_for(N // 2 + 1, 10)


def test_pools_ignore_unknown_ids_and_may_be_smaller_than_k(flat, queries):
    pool = {IDS[3], IDS[7], "not-embedded"}
    found = flat.search(queries[:2], K, [pool, pool])
    assert [sorted(h.id for h in hits) for hits in found] == [[IDS[3], IDS[7]]] * 2
    assert flat.search(queries[:1], K, [set()]) == [[]]


def test_ties_are_broken_by_id():
    """Faiss keeps the first rows among equals; ranks must not depend on row order."""
    vectors = np.array([[1, 0]] * 5 + [[0, 1]], dtype=np.float32)
    index = AnnIndex.build(vectors, ["e", "d", "c", "b", "a", "z"])
    query = np.array([[1, 0]], dtype=np.float32)
    assert [h.id for h in index.search(query, 5)[0]] == ["a", "b", "c", "d", "e"]
    index.exact_pool_max = 6  # the exact path also settles a tie straddling rank k,
    pool = {"a", "b", "c", "d", "e", "z"}
    assert [h.id for h in index.search(query, 2, [pool])[0]] == ["a", "b"]
    many = np.repeat(query, 40, axis=0)  # also when many queries share the pool
    assert {tuple(h.id for h in hits) for hits in index.search(many, 2, [pool] * 40)} == {("a", "b")}


def test_own_vector_maps_back_to_its_string_id(flat, vectors):
    rows = [0, 123, N - 1]
    assert [hits[0].id for hits in flat.search(vectors[rows], 1)] == [IDS[r] for r in rows]


@pytest.mark.parametrize("kind", ["flat", "ivf", "hnsw"])
def test_save_load_round_trip(kind, request, queries, tmp_path):
    index = request.getfixturevalue(kind)
    index.key = "specter2@cache-1"
    index.save(tmp_path)
    loaded = AnnIndex.load(tmp_path, key="specter2@cache-1")
    assert (loaded.kind, loaded.metric, loaded.params, loaded.ids) == (
        index.kind,
        index.metric,
        index.params,
        index.ids,
    )
    pools = pools_of(1_000, len(queries), seed=3)
    assert loaded.search(queries, K) == index.search(queries, K)
    assert loaded.search(queries, K, pools) == index.search(queries, K, pools)
    with pytest.raises(ValueError, match="built for key"):
        AnnIndex.load(tmp_path, key="another-model")


def test_ids_with_line_separators_other_than_newline_survive_saving(tmp_path):
    ids = ["a\rb", "c\u2028d", "e"]
    index = AnnIndex.build(np.eye(3, dtype=np.float32), ids)
    assert AnnIndex.load(index.save(tmp_path)).ids == ids
    with pytest.raises(ValueError, match="newline"):
        AnnIndex.build(np.eye(1, dtype=np.float32), ["a\nb"])


def test_build_from_read_only_memmap_in_chunks(vectors, flat, queries, tmp_path):
    path = tmp_path / "vectors.f32"
    vectors.tofile(path)
    mapped = np.memmap(path, dtype=np.float32, mode="r", shape=vectors.shape)
    index = AnnIndex.build(mapped, IDS, AnnConfig(chunk=3_000))  # cosine normalises copies, not the map
    assert index.search(queries, K) == flat.search(queries, K)
    np.testing.assert_array_equal(np.fromfile(path, dtype=np.float32).reshape(vectors.shape), vectors)


def test_thread_setting_is_honoured_for_the_call_only(vectors, queries, tmp_path, monkeypatch):
    """Each call runs on the index's threads, and the process-wide OpenMP count is restored
    after it: torch's matrix products read that count, and a bi-encoder fine-tuned after a
    one-thread dense search ran on one core (issue 12's epoch run)."""
    import citegraph.retrieval.dense.ann as ann
    import citegraph.retrieval.dense.ann_build as ann_build

    seen, prepare = [], ann_build.prepare

    def observed(*args):
        seen.append(faiss.omp_get_max_threads())
        return prepare(*args)

    monkeypatch.setattr(ann_build, "prepare", observed)  # building
    monkeypatch.setattr(ann, "prepare", observed)  # searching
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(3)
    try:
        one = AnnIndex.build(vectors[:1_000], IDS[:1_000], AnnConfig(threads=1))
        two = AnnIndex.build(vectors[:1_000], IDS[:1_000], AnnConfig(threads=2))
        assert seen[-2:] == [1, 2] and faiss.omp_get_max_threads() == 3  # build prepares its chunks
        one.search(queries, K)
        two.search(queries, K, [set(IDS[:50])] * len(queries))
        one.save(tmp_path / "one")
        AnnIndex.load(tmp_path / "one", threads=1).search(queries, K)
        assert seen[-3:] == [1, 2, 1] and faiss.omp_get_max_threads() == 3
    finally:
        faiss.omp_set_num_threads(before)


@pytest.mark.gpu
@pytest.mark.skipif(faiss.get_num_gpus() == 0, reason="no GPU visible to Faiss (faiss-gpu and a CUDA device)")
def test_a_gpu_copy_answers_unrestricted_searches_as_the_cpu_index(vectors, queries):
    """The same code path on a GPU: the index keeps a GPU copy for unrestricted searches,
    which ranks as brute force does."""
    index = AnnIndex.build(vectors, IDS)
    assert index._gpu is not None
    assert_same(index.search(queries, K), brute_force(vectors, queries, K, "cosine"), rtol=1e-3)


def test_an_ivf_index_with_more_lists_than_vectors_is_refused_in_one_line():
    """Faiss cannot train more centroids than it has points; its RuntimeError was a traceback
    from `citegraph index dense --kind ivf` on any corpus under 1,024 papers."""
    with pytest.raises(UsageError, match=r"ivf index of 64 lists needs at least 64 vectors.*not 20.*--nlist"):
        AnnIndex.build(clustered(20, seed=4), IDS[:20], AnnConfig(kind="ivf", nlist=64))
