"""Pools, MDCR and graph signals from Cypher, checked against networkx as the oracle on a
hand-built graph, and run on the real ACL-200 graph."""

from __future__ import annotations

import json
import random
from pathlib import Path

import networkx as nx
import pytest

from citegraph.errors import CitegraphError
from citegraph.evaluation.large_scale import pools
from citegraph.evaluation.large_scale.config import PoolsConfig
from citegraph.evaluation.mdcr import build as mdcr
from citegraph.evaluation.mdcr.config import MDCRConfig
from citegraph.ingest import IngestOptions, Prefilter, formats, ingest
from citegraph.recommend import Recommender
from citegraph.retrieval.signals import enrich, pair_counts

from conftest import ACL200, write_jsonl

FIELDS = ["Medicine", "Physics"]


def hand_built(tmp_path: Path) -> tuple[Path, list[dict]]:
    """40 papers over 2000–2013 in two fields, each citing 2–6 earlier ones, a few stubs."""
    rng = random.Random(7)
    rows = []
    for i in range(40):
        refs = rng.sample([f"P{j:02}" for j in range(i)], min(i, rng.randint(2, 6))) if i else []
        if i % 7 == 3:
            refs.append(f"X{i % 2}")  # cited papers outside the corpus
        fields = ["Medicine"] if i % 3 == 0 else ["Physics"] if i % 3 == 1 else ["Medicine", "Physics"]
        rows.append(
            {
                "id": f"P{i:02}",
                "title": f"Paper number {i}",
                "year": 2000 + i // 3,
                "abstract": None if i % 11 == 5 else f"A study of topic {i % 5} written for the tests.",
                "fields": fields,
                "references": refs,
            }
        )
    return write_jsonl(tmp_path / "hand.jsonl", rows), rows


@pytest.fixture
def graph(store, tmp_path):
    path, rows = hand_built(tmp_path)
    ingest(store, formats.get("jsonl"), [path], IngestOptions(prefilter=Prefilter(min_abstract=30, min_citations=1)))
    oracle = nx.DiGraph()
    for r in rows:
        oracle.add_node(r["id"], **r)
    for r in rows:
        for c in r["references"]:
            oracle.add_edge(r["id"], c)
    for node, data in oracle.nodes(data=True):
        data["eligible"] = bool(data.get("abstract")) and oracle.in_degree(node) >= 1
    return store, oracle


def test_overlap_and_graph_signals_match_networkx(graph):
    store, g = graph
    queries = ["P39", "P30", "P21"]
    for row in store.rows("mdcr/overlap", ids=queries):
        q, c = row["query"], row["cited"]
        oc_q = set(g.successors(q))
        expected = len(oc_q & (set(g.successors(c)) | set(g.predecessors(c)))) / len(oc_q)
        assert row["overlap"] == pytest.approx(expected)
    candidates = ["P30", "P31", "P32", "P33"]
    counts = {}
    for c in candidates:
        for n in g.successors(c):
            if n not in candidates:
                counts[n] = counts.get(n, 0) + 1
    expected = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    enriched = enrich(store, candidates + ["P30"], size=4 + 3)
    assert enriched.ids == candidates + [n for n, _ in expected[:3]]
    assert enriched.frequency == dict(expected[:3])
    for pc in pair_counts(store, [("P10", "P12"), ("P30", "P31"), ("P05", "nope")]):
        q, c = pc.query, pc.candidate
        assert pc.cocitation == len(set(g.predecessors(q)) & set(g.predecessors(c)))
        assert pc.coupling == len(set(g.successors(q)) & set(g.successors(c)))


def test_a_graph_ingested_before_cited_ids_is_refused_not_answered_empty(store, tmp_path, monkeypatch):
    """A graph an older citegraph ingested has CITES edges but no cited_ids: the enrichment
    and the recommender's co-citation would find nothing and say nothing. They say how to
    fill them in instead."""
    path, _ = hand_built(tmp_path)
    write = store.write
    monkeypatch.setattr(store, "write", lambda *steps: write(*(s for s in steps if s.query != "ingest/cited_lists")))
    ingest(store, formats.get("jsonl"), [path], IngestOptions())
    monkeypatch.undo()
    recommender = Recommender(store, [], contexts=False)
    with pytest.raises(CitegraphError, match="no cited_ids.*--restart"):
        enrich(store, ["P30", "P31", "P32", "P33"], size=10)
    with pytest.raises(CitegraphError, match="no cited_ids.*--restart"):
        recommender.recommend("P39")
    ingest(store, formats.get("jsonl"), [path], IngestOptions(restart=True))
    assert enrich(store, ["P30", "P31", "P32", "P33"], size=10).frequency
    assert [s for r in recommender.recommend("P39") for s in r.signals if s.name == "cocitation"]


def test_field_cited_sets_and_most_cited_match_networkx(graph):
    store, g = graph
    for name in FIELDS:
        of_field = [n for n, d in g.nodes(data=True) if name in d.get("fields", [])]
        expected = sorted(
            {c for p in of_field for c in g.successors(p) if g.nodes[c].get("eligible") and g.nodes[c]["year"] <= 2010}
        )
        assert [r["id"] for r in store.rows("pools/field_cited", field=name, year=2010)] == expected
        ranked = sorted(((g.in_degree(p), p) for p in of_field if g.nodes[p]["eligible"]), key=lambda t: (-t[0], t[1]))
        assert [(r["id"], r["citation_count"]) for r in store.run("mdcr/most_cited_in_field", field=name, limit=5)] == [
            (p, d) for d, p in ranked[:5]
        ]
    ranked = sorted(((g.in_degree(p), p) for p, d in g.nodes(data=True) if d["eligible"]), key=lambda t: (-t[0], t[1]))
    assert [(r["id"], r["citation_count"]) for r in store.run("mdcr/most_cited", limit=5)] == [
        (p, d) for d, p in ranked[:5]
    ]


def test_dataset_level_pools(graph, tmp_path):
    store, g = graph
    manifest = pools.dataset_level(
        store,
        tmp_path / "ds",
        PoolsConfig(repeats=2, seed=5, exclude=frozenset({"P01", "P02"})),
        n_queries=3,
        sizes=(10, 1000),
    )
    year = manifest.year
    queries = [json.loads(line)["id"] for line in (tmp_path / "ds" / "queries.jsonl").open()]
    assert len(queries) == 3 and all(g.nodes[q]["year"] == year and g.nodes[q]["eligible"] for q in queries)
    qrels = [line.split() for line in (tmp_path / "ds" / "qrels.txt").read_text().splitlines()]
    cited = {c for q in queries for c in g.successors(q) if not c.startswith("X")}
    assert {c for _, _, c, _ in qrels} == cited
    for entry in manifest.pools:
        pool = set((tmp_path / "ds" / entry["file"]).read_text().split())
        assert cited <= pool and not pool & {"P01", "P02"} - cited and not pool & set(queries)
        assert all(g.nodes[p]["year"] <= year for p in pool - cited)
        assert len(pool) == min(entry["requested"], entry["available"])
    big = [e for e in manifest.pools if e["requested"] == 1000]
    assert all(e["capped"] for e in big)
    repeats = [set((tmp_path / "ds" / e["file"]).read_text().split()) for e in manifest.pools if e["requested"] == 10]
    assert repeats[0] != repeats[1]  # each repeat draws anew


def test_mdcr_follows_the_paper_and_the_exclusion_policy(graph, tmp_path):
    store, g = graph
    manifest = mdcr.build(
        store, tmp_path / "m", MDCRConfig(fields=FIELDS, n_queries=3, positives=2, per_type=10, most_cited=5, seed=1)
    )
    data = json.loads((tmp_path / "m" / "mdcr_test.json").read_text())
    assert set(data) == set(FIELDS) and manifest.queries == sum(len(v) for v in data.values())
    texts = {json.loads(line)["id"] for line in (tmp_path / "m" / "mdcr_test_data.jsonl").open()}
    qrels = {(q, d): int(r) for q, _, d, r in (line.split() for line in (tmp_path / "m" / "qrels_test.txt").open())}
    for name, queries in data.items():
        top = [r["id"] for r in store.run("mdcr/most_cited_in_field", field=name, limit=5)]
        for q, types in queries.items():
            assert list(types) == ["true", "graph", "most_cited", "random"]
            year, oc_q = g.nodes[q]["year"], set(g.successors(q))
            assert len(types["true"]) == 2 and set(types["true"]) <= oc_q
            negatives = [c for kind, ids in types.items() if kind != "true" for c in ids]
            assert len(negatives) == len(set(negatives)), "a paper is chosen by one type only"
            for c in negatives:
                assert c != q and c not in oc_q and g.nodes[c]["year"] <= year and g.nodes[c]["eligible"]

            def may_be_negative(p: str, q: str = q, oc_q: set[str] = oc_q, year: int = year) -> bool:
                return p != q and p not in oc_q and g.nodes[p].get("eligible") and g.nodes[p]["year"] <= year

            allowed = {n for c in oc_q for n in nx.all_neighbors(g, c) if may_be_negative(n)}
            if len(allowed) <= 10:
                assert set(types["graph"]) == allowed
            else:
                assert len(types["graph"]) == 10 and set(types["graph"]) <= allowed
            # five most cited, fewer than per_type: every one the policy allows is taken
            assert set(types["most_cited"]) == {c for c in top if may_be_negative(c) and c not in types["graph"]}
            left = {p for p in g if may_be_negative(p)} - set(types["graph"]) - set(types["most_cited"])
            assert set(types["random"]) <= left and len(types["random"]) == min(10, len(left))
            assert {q, *types["true"], *negatives} <= texts
            assert {d for (qq, d), r in qrels.items() if qq == q and r == 1} == set(types["true"])


def test_mdcr_is_deterministic_for_a_seed(graph, tmp_path):
    store, _ = graph
    files = []
    for run, seed in (("a", 1), ("b", 1), ("c", 2)):
        mdcr.build(store, tmp_path / run, MDCRConfig(fields=FIELDS, n_queries=3, positives=2, seed=seed))
        files.append((tmp_path / run / "mdcr_test.json").read_text())
    assert files[0] == files[1] != files[2]


def test_mdcr_model_selection_by_jaccard():
    tops = {"a": {"q": ["1", "2", "3"]}, "b": {"q": ["1", "2", "4"]}, "c": {"q": ["7", "8", "9"]}}
    chosen, report = mdcr.jaccard_selection(tops, 2)
    assert report["pairs"]["a|b"] == pytest.approx(2 / 4) and report["pairs"]["a|c"] == 0
    assert chosen == ["c", "a"]  # c overlaps least; a and b tie, by name


def test_on_the_acl200_graph(store, tmp_path):
    ingest(store, formats.get("acl200"), [ACL200], IngestOptions(prefilter=Prefilter(min_abstract=0, min_citations=1)))
    manifest = pools.dataset_level(store, tmp_path / "acl", PoolsConfig(repeats=1, seed=0), n_queries=50, sizes=(2000,))
    assert manifest.queries == 50
    validation = pools.dataset_level(
        store,
        tmp_path / "val",
        PoolsConfig(repeats=1, seed=0, year=manifest.year, split="val"),
        n_queries=50,
        sizes=(100,),
    )
    assert validation.queries == 50 and validation.parameters["split"] == "val"
    queries = {json.loads(line)["id"] for line in (tmp_path / "acl" / "queries.jsonl").open()}
    assert not queries & {json.loads(line)["id"] for line in (tmp_path / "val" / "queries.jsonl").open()}
    lines = (tmp_path / "acl" / manifest.pools[0]["file"]).read_text().split()
    assert len(lines) == 2000
    candidates = ["P12-1066", "N12-2006", "D10-1120"]
    enriched = enrich(store, candidates, size=10)
    assert enriched.ids[:3] == candidates and 3 < len(enriched.ids) <= 10
    assert enriched.frequency["W06-2920"] == 3  # cited by all three candidates
    [pc] = pair_counts(store, [("P07-2045", "P03-1021")])
    assert pc.cocitation == 210  # as `citegraph demo` prints for the most co-cited pair
