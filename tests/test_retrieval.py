"""Dense retrieval, fusion and retrievers opened by name, on real (tiny) models and indexes."""

from __future__ import annotations

import re

import numpy as np
import pytest

from citegraph.errors import CitegraphError
from citegraph.retrieval.base import Document, Retriever
from citegraph.retrieval.bm25 import build_bm25
from citegraph.retrieval.dense import DenseRetriever, MultiVectorRetriever, build_dense, maxsim, open_dense
from citegraph.retrieval.dense.encoders import get_encoder
from citegraph.retrieval.fusion import ReciprocalRankFusion, WeightedFusion
from citegraph.retrieval.spec import BM25, Dense, parse_spec, parse_specs

pytest.importorskip("faiss")

DOCS = [
    Document("d1", "Graph neural networks for citation recommendation", "We recommend papers with a graph model."),
    Document("d2", "Dense retrieval of scientific papers", "Dense text retrieval with a neural model."),
    Document("d3", "Protein study", "A study of protein and cells."),
    Document("d4", "Cancer cells and genes", "We study gene data from patients with cancer."),
    Document("d5", "Sparse retrieval", "Sparse models for text retrieval and a citation graph."),
    Document("d6", "Learning on graphs", "This paper is on learning with graph networks."),
    Document("d7", "Citation networks", "Citations between papers form a network."),
    Document("d8", "Gene expression", "Genes and cells of patients."),
]
QUERIES = [
    Document("q1", "Recommending citations with graphs", "A graph model for citation recommendation."),
    "cancer genes of patients",
]


@pytest.fixture(scope="module")
def tiny(tiny_bert):
    return get_encoder(f"hf:{tiny_bert}", batch_size=4)


def brute_force(encoder, queries, docs, k, pool=None):
    from citegraph.retrieval.base import query_document, rank

    q = encoder.encode([query_document(x) for x in queries])
    d = encoder.encode(docs)
    out = []
    for row in q:
        scores = (
            -((d - row) ** 2).sum(1)
            if encoder.spec.similarity == "l2"
            else d @ row / np.linalg.norm(d, axis=1) / np.linalg.norm(row)
        )
        out.append(
            [
                h.id
                for h in rank({doc.id: float(s) for doc, s in zip(docs, scores) if pool is None or doc.id in pool}, k)
            ]
        )
    return out


def test_dense_retriever_equals_brute_force_and_reopens(tiny, tmp_path):
    retriever = build_dense(DOCS, tiny, tmp_path / "index", tmp_path / "cache")
    assert isinstance(retriever, DenseRetriever) and isinstance(retriever, Retriever)
    found = retriever.search(QUERIES, 5)
    assert [[h.id for h in r] for r in found] == brute_force(tiny, QUERIES, DOCS, 5)
    pool = {"d3", "d4", "d8"}
    pooled = retriever.search(QUERIES, 5, [pool, pool])
    assert [[h.id for h in r] for r in pooled] == brute_force(tiny, QUERIES, DOCS, 5, pool)
    again = open_dense(tmp_path / "index")
    assert again.search(QUERIES, 5) == found


def test_multi_vector_retriever_scores_the_best_sentence_pair(tiny_bert, tmp_path):
    encoder = get_encoder(f"hf:{tiny_bert}", pooling="sentences", batch_size=4)
    retriever = build_dense(DOCS, encoder, tmp_path / "index", tmp_path / "cache")
    assert isinstance(retriever, MultiVectorRetriever)
    [ranking] = retriever.search(QUERIES[:1], 3, [{"d1", "d2", "d5", "d7"}])
    query = encoder.encode_sentences([QUERIES[0]])[0]
    pool_docs = [d for d in DOCS if d.id in {"d1", "d2", "d5", "d7"}]
    scores = maxsim(query, encoder.encode_sentences(pool_docs), encoder.spec.similarity)
    expected = sorted(zip(pool_docs, scores), key=lambda p: (-p[1], p[0].id))[:3]
    assert [h.id for h in ranking] == [d.id for d, _ in expected]
    assert [h.score for h in ranking] == pytest.approx([float(s) for _, s in expected], abs=1e-5)


def test_fusions_follow_their_formulas(tiny, tmp_path):
    sparse = build_bm25(DOCS, tmp_path / "bm25", backend="bm25s")
    dense = build_dense(DOCS, tiny, tmp_path / "dense", tmp_path / "cache")
    runs = [sparse.search(QUERIES, 8), dense.search(QUERIES, 8)]
    rrf = ReciprocalRankFusion([sparse, dense], depth=8).search(QUERIES, 3)
    for q in range(len(QUERIES)):
        expected: dict[str, float] = {}
        for run in runs:
            for position, hit in enumerate(run[q], start=1):
                expected[hit.id] = expected.get(hit.id, 0) + 1 / (60 + position)
        best = sorted(expected.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        assert [(h.id, round(h.score, 12)) for h in rrf[q]] == [(i, round(s, 12)) for i, s in best]
    only_sparse = WeightedFusion([sparse, dense], [1.0, 0.0], depth=8).search(QUERIES, 3)
    for fused, run in zip(only_sparse, runs[0]):  # weight 0: the dense members add nothing
        scored = [h.id for h in fused if h.score > 0]
        assert scored and scored == [h.id for h in run][: len(scored)]
    top = WeightedFusion([sparse, dense], [0.5, 0.5], depth=8).search(QUERIES, 1)
    assert all(0 < r[0].score <= 1.0 for r in top)  # min-max normalised, weights sum to one
    with pytest.raises(ValueError, match="2 members but 1 weights"):
        WeightedFusion([sparse, dense], [1.0])


def test_specs_open_prebuilt_indexes(tiny_bert, tmp_path):
    name = f"hf:{tiny_bert}"
    build_bm25(DOCS, tmp_path / BM25().folder, backend="bm25s")  # as `citegraph index bm25 --backend bm25s`
    build_dense(DOCS, get_encoder(name), tmp_path / Dense(name).folder, tmp_path / "cache")
    bm25, dense = parse_spec("bm25").open(tmp_path), open_dense(tmp_path / Dense(name).folder)
    assert (bm25.name, parse_spec("bm25:bm25s").open(tmp_path).name) == ("bm25", "bm25:bm25s")
    fused = parse_spec(f"rrf(bm25,{name})").open(tmp_path)
    assert fused.name == f"rrf(bm25,{name})"
    assert fused.search(QUERIES, 4) == ReciprocalRankFusion([bm25, dense]).search(QUERIES, 4)
    weighted = parse_spec(f"wsum(0.7*bm25,0.3*{name})").open(tmp_path)
    assert weighted.name == f"wsum(0.7*bm25,0.3*{name})"
    assert weighted.search(QUERIES, 4) == WeightedFusion([bm25, dense], [0.7, 0.3]).search(QUERIES, 4)
    for spec, advice in (
        ("minilm", "citegraph index dense --encoder minilm"),
        ("bm25:multifield", "citegraph index bm25 --multifield`"),
        ("bm25:lucene", "citegraph index bm25 --backend lucene"),  # the index is bm25s'
        (f"rrf(bm25,{name}:maxsim)", "encodes sentences over given documents"),
    ):
        with pytest.raises(CitegraphError, match=re.escape(advice)):
            parse_spec(spec).open(tmp_path)


def test_specs_build_over_documents(tiny_bert, tmp_path):
    name = f"hf:{tiny_bert}"
    specs = parse_specs(f"bm25:bm25s,bm25:multifield:bm25s,{name},{name}:maxsim,rrf(bm25:bm25s,{name})")
    built = {str(spec): spec.build(DOCS, tmp_path) for spec in specs}
    assert [r.name for r in built.values()] == list(built)  # a retriever is named by its spec
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["bm25-bm25s", "bm25-multifield-bm25s", Dense(name).folder, "embeddings"]
    )
    assert built["bm25:bm25s"].search(QUERIES, 8) == build_bm25(DOCS, tmp_path / "again", "bm25s").search(QUERIES, 8)

    # :maxsim — each sentence encoded alone, a paper scored by its closest pair (l2 for this model)
    encoder = get_encoder(name)

    def vectors(texts):
        return np.concatenate(encoder.encode_sentences([Document(str(i), t) for i, t in enumerate(texts)]))

    text = "Genes of patients with cancer. Graph models for citations."
    query = vectors(["Genes of patients with cancer.", "Graph models for citations."])
    expected = {d.id: -min(float(np.linalg.norm(a - b)) for a in query for b in vectors([d.abstract])) for d in DOCS}
    [ranking] = built[f"{name}:maxsim"].search([text], 8)
    assert [h.id for h in ranking] == sorted(expected, key=lambda i: (-expected[i], i))
    assert [h.score for h in ranking] == pytest.approx([expected[h.id] for h in ranking], abs=1e-5)
