"""Re-ranking that encodes only the candidates, once (a real tiny BERT), and the corpus text
kept beside the indexes so that searching needs no graph."""

from __future__ import annotations

import gzip
import json
from itertools import islice
from pathlib import Path

import numpy as np
import pytest

import citegraph
from citegraph.errors import CitegraphError
from citegraph.retrieval.base import Document, query_document, rank
from citegraph.retrieval.dense.encoders import get_encoder
from citegraph.retrieval.dense.pool_encoder import PoolEncoder, VectorCache
from citegraph.retrieval.docstore import DocStore

DOCS = [
    Document("d1", "Graph neural networks for citation recommendation", "We recommend papers with a graph model."),
    Document("d2", "Dense retrieval of scientific papers", "Dense text retrieval with a neural model."),
    Document("d3", "Protein study", "A study of protein and cells."),
    Document("d4", "Cancer cells and genes", "We study gene data from patients with cancer.", "oncology; genes"),
    Document("d5", "Sparse retrieval", "Sparse models for text retrieval and a citation graph."),
]
QUERIES = ["recommending citations with graphs", "cancer genes of patients"]
POOLS = [{"d1", "d2", "d5"}, {"d3", "d4", "d5", "d9"}]  # d9: not in the corpus, left out
with gzip.open(Path(citegraph.__file__).parent / "data" / "acl200" / "papers.jsonl.gz", "rt") as _papers:
    ACL_TITLES = [Document(p["paper_id"], p["title"]) for p in map(json.loads, islice(_papers, 16)) if p["title"]]


@pytest.fixture(scope="module")
def tiny(tiny_bert):
    return get_encoder(f"hf:{tiny_bert}", batch_size=4)


def test_doc_store_records_what_passes_and_upserts(tmp_path):
    store = DocStore(tmp_path)
    assert not store.exists() and store.get(["d1"]) == {}
    assert list(store.recording(DOCS)) == DOCS
    assert store.get(["d4", "d1", "nope"]) == {"d4": DOCS[3], "d1": DOCS[0]}
    changed = Document("d1", "A new title", "")
    list(store.recording([changed]))
    assert store.get(["d1", "d2"]) == {"d1": changed, "d2": DOCS[1]}


def test_pool_encoder_ranks_pools_as_brute_force_and_encodes_each_text_once(tiny, tmp_path):
    store = DocStore(tmp_path / "indexes")
    list(store.recording(DOCS))
    cache = VectorCache(tmp_path / "embeddings", tiny)
    reranker = PoolEncoder(tiny, cache, store.get)
    found = reranker.search(QUERIES, 2, POOLS)
    assert cache.encoded == 5  # the union of the pools that is in the corpus

    vectors = {d.id: v for d, v in zip(DOCS, tiny.encode(DOCS))}
    for query, pool, ranking in zip(QUERIES, POOLS, found):
        q = tiny.encode([query_document(query)])[0]
        members = sorted(pool & set(vectors))
        m = np.stack([vectors[i] for i in members])
        sims = (
            -np.linalg.norm(m - q, axis=1)
            if tiny.spec.similarity == "l2"
            else m @ q / np.linalg.norm(m, axis=1) / np.linalg.norm(q)
        )
        expected = rank(dict(zip(members, map(float, sims))), 2)
        assert [h.id for h in ranking] == [h.id for h in expected]
        assert [h.score for h in ranking] == pytest.approx([h.score for h in expected], abs=1e-5)

    again = VectorCache(tmp_path / "embeddings", tiny)  # a second run: a new process, the same file
    assert PoolEncoder(tiny, again, store.get).search(QUERIES, 2, POOLS) == found
    assert again.encoded == 0
    list(store.recording([Document("d2", "Dense retrieval, revised", "A new abstract.")]))
    PoolEncoder(tiny, again, store.get).search(QUERIES, 2, POOLS)
    assert again.encoded == 1  # only the changed text


@pytest.mark.slow  # loads and runs the real MiniLM
def test_scores_do_not_depend_on_the_order_a_pool_lists_its_candidates(tmp_path):
    """A candidate's vector moves in its last bits with the texts it is batched with (the batch's
    padded width), and pools are sets, whose order changes with each process's string hashing: the
    candidates are encoded in one order whatever the pools' (ACL-200 titles, the packaged MiniLM)."""
    minilm = get_encoder("minilm", batch_size=4)
    store = DocStore(tmp_path / "indexes")
    docs = list(store.recording(ACL_TITLES))
    pool = [d.id for d in docs]
    found = [
        PoolEncoder(minilm, VectorCache(tmp_path / f"cache{n}", minilm), store.get).search(QUERIES, 20, [order] * 2)
        for n, order in enumerate((pool, pool[::-1], pool[1::2] + pool[::2]))
    ]
    assert found[0] == found[1] == found[2]  # ids and scores, to the last bit


def test_pool_encoder_needs_pools(tiny, tmp_path):
    reranker = PoolEncoder(tiny, VectorCache(tmp_path, tiny), DocStore(tmp_path).get)
    with pytest.raises(CitegraphError, match="re-ranks candidates"):
        reranker.search(QUERIES, 2)


def test_doc_store_looks_up_more_ids_than_sqlite_binds(tmp_path):
    """An index's candidate lists can hold thousands of ids: one lookup, whatever their number."""
    store = DocStore(tmp_path)
    list(store.recording(Document(f"P{i}", f"title {i}") for i in range(2500)))
    found = store.get([f"P{i}" for i in range(0, 3000, 2)])  # 1,500 asked, 250 of them never recorded
    assert len(found) == 1250 and found["P2498"].title == "title 2498" and "P2500" not in found
