"""The saved Neo4j Browser queries (cypher/browser/) run on ArcadeDB with the literal
example parameters their headers give, on a small graph whose answers are worked out here
in Python from the input records."""

from __future__ import annotations

import json
import re
from collections import Counter
from importlib import resources

import pytest

from citegraph.graph import queries
from citegraph.ingest import formats, ingest
from citegraph.ingest.sources.taxonomy import BUNDLED

PAPERS = [
    {"id": "A", "title": "Paper A", "year": 2010, "fields": ["Computer Science"], "categories": ["cs.CL"]},
    {
        "id": "B",
        "title": "Paper B",
        "year": 2011,
        "fields": ["Computer Science"],
        "categories": ["cs.CL"],
        "references": ["A"],
    },
    {
        "id": "C",
        "title": "Paper C",
        "year": 2012,
        "fields": ["Mathematics"],
        "categories": ["cs.LG"],
        "references": ["A", "B"],
    },
    {
        "id": "D",
        "title": "Paper D",
        "year": 2013,
        "fields": ["Computer Science", "Mathematics"],
        "categories": ["cs.IR"],
        "references": ["B", "C"],
    },
    {"id": "E", "title": "Paper E", "year": 2014, "fields": ["Computer Science"], "references": ["A", "C", "D"]},
    {"id": "F", "title": "Paper F", "year": 2014, "fields": ["Biology"], "references": ["A"]},
]
BY_ID = {p["id"]: p for p in PAPERS}
CITED = Counter(r for p in PAPERS for r in p.get("references", []))


@pytest.fixture
def graph(store, tmp_path):
    path = tmp_path / "papers.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PAPERS), encoding="utf-8")
    ingest(store, formats.get("taxonomy"), [BUNDLED])
    ingest(store, formats.get("jsonl"), [path])
    return store


def end(path: list):
    node = path[-1]
    return node.get("id") or node.get("code") or node.get("name")


def test_every_saved_query_is_documented_with_an_example():
    names = [n for n in queries.names() if n.startswith("browser/")]
    assert len(names) == 6
    for name in names:
        query = queries.load(name)
        assert query.doc.splitlines()[0] and "Returns:" in query.doc
        for parameter in query.parameters.values():
            assert re.search(r"e\.g\. \S", parameter.doc), (name, parameter)
    grass = (resources.files("citegraph") / "cypher" / "browser" / "citegraph.grass").read_text()
    for label in ("Paper", "External", "Field", "ArxivCategory", "AcmConcept", "Topic", "Author"):
        assert f"node.{label} {{" in grass
    assert grass.count("{") == grass.count("}")


def test_ego_network(graph):
    rows = graph.run("browser/ego_network", id="D", limit=1)
    ends = [end(r["path"]) for r in rows]
    assert ends[0] == "B"  # of B and C (2 citations each) the first by id; limit 1
    assert "C" not in ends and "E" in ends  # cited by E
    assert {"Computer Science", "Mathematics", "cs.IR"} <= {
        r["path"][2].get("code") or r["path"][2].get("name") for r in rows
    }
    acm = {end(r["path"]) for r in rows if len(r["path"]) == 5}
    mapped = next(row["acm"] for row in graph.run("local/categories") if row["code"] == "cs.IR")
    assert acm == set(mapped) and acm


def test_field_citation_flows(graph):
    flows = Counter(
        (fa, fb) for p in PAPERS for r in p.get("references", []) for fa in p["fields"] for fb in BY_ID[r]["fields"]
    )
    expected = sorted(flows.items(), key=lambda kv: (-kv[1], kv[0]))[:50]
    rows = graph.run("browser/field_citation_flows", limit=50)
    assert [((r["citing_field"], r["cited_field"]), r["citations"]) for r in rows] == expected
    assert expected[0] == (("Computer Science", "Computer Science"), 4)


def test_arxiv_acm_tree(graph):
    rows = graph.run("browser/arxiv_acm_tree", archive="cs")
    pairs = {(r["path"][0]["code"], r["path"][2]["code"]) for r in rows}
    expected = {
        (row["code"], acm)
        for row in graph.run("local/categories")
        if row["code"].startswith("cs.")
        for acm in row["acm"]
    }
    assert pairs == expected and len(expected) > 50
    for r in rows:
        assert r["path"][1] == "MAPS_TO" and set(r["path"][3::2]) <= {"BROADER"}
        assert "." not in end(r["path"])  # up to a root of the ACM 1998 tree (I, H, …)
    assert not graph.run("browser/arxiv_acm_tree", archive="math")  # only cs.* categories map to ACM


def test_openalex_topic_tree(store):
    from test_ingest_openalex import FIXTURE, by_id

    ingest(store, formats.get("openalex"), [FIXTURE])
    rows = store.run("browser/openalex_topic_tree", id="fields/17")
    primary = Counter(link.topic_id for paper in by_id().values() for link in paper.topics if link.primary)
    under = {link.topic_id for paper in by_id().values() for link in paper.topics if link.lineage[1].id == "fields/17"}
    assert {r["path"][0]["id"]: r["works"] for r in rows} == {t: primary[t] for t in under}
    assert len(under) == 5 and [r["works"] for r in rows] == sorted((primary[t] for t in under), reverse=True)
    assert {end(r["path"]) for r in rows} == {"fields/17"} and {r["path"][1] for r in rows} == {"BROADER_TOPIC"}
    assert store.run("browser/openalex_topic_tree", id="domains/4")[0]["path"][0]["id"] == "T13702"


def test_most_cited_per_field(graph):
    rows = graph.run("browser/most_cited_per_field", per_field=2)
    expected = []
    for field in sorted({f for p in PAPERS for f in p["fields"]}):
        ranked = sorted((p for p in PAPERS if field in p["fields"]), key=lambda p: (-CITED[p["id"]], p["id"]))[:2]
        expected += [(field, p["id"], CITED[p["id"]]) for p in ranked]
    assert [(r["field"], r["id"], r["citations"]) for r in rows] == expected


def test_candidate_pool(graph):
    rows = graph.run("browser/candidate_pool", id="E", limit=20)
    found = {(r["type"], r["id"]): r["links"] for r in rows}
    # E cites A, C, D. Its references cite B (C and D do); B is co-cited with A (by C) and
    # with C (by D); B and F cite a reference (A). E itself and its references never come back.
    assert found == {
        ("reference", "A"): 1,
        ("reference", "C"): 1,
        ("reference", "D"): 1,
        ("cited_by_reference", "B"): 2,
        ("co_cited", "B"): 2,
        ("coupled", "B"): 1,
        ("coupled", "F"): 1,
    }
    assert [r["type"] for r in rows] == sorted(
        (r["type"] for r in rows), key=["reference", "cited_by_reference", "co_cited", "coupled"].index
    )
    assert len(graph.run("browser/candidate_pool", id="E", limit=1)) == 3 + 1 + 1 + 1
