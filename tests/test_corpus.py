"""The corpus text scorers index is exported from the graph."""

from __future__ import annotations

import json

from citegraph.ingest import formats, ingest
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
