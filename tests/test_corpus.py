"""The corpus text scorers index is exported from the graph."""

from __future__ import annotations

import json

import pytest

from citegraph.config import Config
from citegraph.graph import ArcadeServer, Write, open_store
from citegraph.graph.schema import apply_schema
from citegraph.ingest import formats, ingest
from citegraph.local.data import contexts_from_graph, graph_papers
from citegraph.retrieval.corpus import documents, documents_by_id, fingerprint

from conftest import shared


def test_documents_are_the_titled_corpus_papers_by_id(store):
    path = shared("samples/s2orc/metadata_sample.jsonl")
    summary = ingest(store, formats.get("s2orc"), [path])
    rows = [json.loads(line) for line in path.open()]
    titled = sorted(r["paper_id"] for r in rows if (r["title"] or "").strip())
    docs = list(documents(store))
    assert [d.id for d in docs] == titled  # no :External stubs, ordered by id
    by_id = {r["paper_id"]: r for r in rows}
    doc = next(d for d in docs if d.id == "2871678")
    assert doc.title == by_id["2871678"]["title"] and doc.abstract == by_id["2871678"]["abstract"].strip()
    assert doc.text.startswith(doc.title + " ")
    eligible = list(documents(store, eligible_only=True))
    assert len(eligible) == summary.eligibility["eligible"] and {d.id for d in eligible} <= set(titled)
    assert set(documents_by_id(store, ["2871678", "nope"])) == {"2871678"}
    assert fingerprint(documents(store)) == fingerprint(docs) != fingerprint(docs[1:])


@pytest.mark.slow
def test_the_global_streams_come_in_order_without_the_server_sorting_their_texts(tmp_path, monkeypatch):
    """ArcadeDB refused to export 2M synthetic papers for BM25 with an 8 GB heap, and the
    local stages' papers as well: the statements' ORDER BY held every text in the query
    heap budget. A 1 MB budget and 600 papers and citation contexts of 4 KB reproduce it;
    the ids are sorted alone, the texts come in batches (GraphStore.in_id_order)."""
    monkeypatch.setenv("JAVA_TOOL_OPTIONS", "-Darcadedb.queryMaxHeapRAM=1")  # MB, all queries together
    server = ArcadeServer(tmp_path / "home", heap="512m")
    info = server.start()
    try:
        config = Config(uri=info.uri, user="root", password=server.password(), database="citegraph")
        with open_store(config) as store:
            apply_schema(store)
            papers = [
                {"id": f"P{i:04d}", "props": {"title": f"paper {i}", "abstract": "word " * 800}} for i in range(600)
            ]
            store.write(Write("ingest/papers", {"ingested": "2024-01-01", "rows": papers[::-1]}))
            context = {"contexts": ["as [CIT] shows, " + "word " * 800], "sections": ["Introduction"]}
            cites = [{"citing": p["id"], "refs": [{"cited": "P0000", "props": context}]} for p in papers[:0:-1]]
            store.write(Write("ingest/cites", {"rows": cites}))
            docs = list(documents(store, batch=40))
            local_papers = list(graph_papers(store, batch=40))
            contexts = list(contexts_from_graph(store, batch=40))
    finally:
        server.stop()
    assert [d.id for d in docs] == [p["id"] for p in papers] == [p["id"] for p in local_papers]
    assert docs[7].title == "paper 7" and docs[7].abstract == "word " * 800 == local_papers[7]["abstract"]
    assert [c.citing for c in contexts] == [p["id"] for p in papers[1:]]
    assert contexts[0].cited == ("P0000",) and contexts[0].text.endswith("word " * 799 + "word")
