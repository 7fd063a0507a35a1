"""The recommender on the real ACL-200 graph with a real BM25 index: exclusions, years,
explanations with graph paths, determinism, and the measured gain over BM25 alone on
held-out citations (the ``acl`` fixture: conftest.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from citegraph.errors import CitegraphError
from citegraph.recommend import DEFAULT_WEIGHTS
from citegraph.recommend.held_out import evaluate_held_out, held_out_citations, train
from citegraph.retrieval.signals import enrich

from conftest import citegraph_ok


def test_recommendations_exclude_the_known_and_the_future(acl):
    seed = acl.seed("P12-1066")
    found = acl.recommend("P12-1066", k=30)
    assert len(found) == 30 and len({r.id for r in found}) == 30
    assert not {r.id for r in found} & {seed.id, *seed.references}
    assert all(r.year is None or r.year <= seed.year for r in found)
    assert [r.id for r in acl.recommend("P12-1066", k=30)] == [r.id for r in found]  # deterministic
    assert [r.score for r in found] == sorted((r.score for r in found), reverse=True)
    earlier = acl.recommend("P12-1066", k=30, year=2008)  # a given year overrides the paper's
    assert earlier and all(r.year is None or r.year <= 2008 for r in earlier)
    assert {r.id for r in found if (r.year or 0) > 2008} - {r.id for r in earlier}


def test_explanations_name_the_graph_path(acl):
    seed = acl.seed("P12-1066")
    top = acl.recommend("P12-1066", k=10)
    cited = [s for r in top for s in r.signals if s.name == "cited_by_references"]
    assert cited, "some recommendation is cited by the seed's references"
    for signal in cited:
        assert set(signal.via) <= set(seed.references) and len(signal.via) == min(signal.value, 5)
        assert signal.text.startswith(f"cited by {int(signal.value)} of your references: {signal.via[0]}")
    assert any(s.text.startswith("bm25 rank ") for r in top for s in r.signals)


def test_without_citing_sentences_in_the_graph_there_is_no_contexts_signal(acl):
    """ACL-200 edges carry no citing sentences: the recommender has none to read, and no
    candidate gets the contexts feature (recommend.contexts; merged with ScisummNet:
    test_recommend_contexts.py)."""
    assert acl.citing_sentences() is None
    assert not [c for c in acl.candidates(acl.seed("P12-1066")).values() if "contexts" in c.features]


def test_the_fanout_caps_coupling_like_cocitation(acl):
    """A much-cited reference is followed through at most ``fanout`` citing papers for
    coupling too: each reference adds at most ``fanout`` to the coupling counts."""
    seed = acl.seed("P12-1066")
    refs = list(seed.references)

    def coupling(fanout: int) -> dict[str, int]:
        rows = acl.store.run(
            "recommend/neighbourhood",
            refs=refs,
            exclude=[seed.id, *refs],
            seed=seed.id,
            fanout=fanout,
            as_of=None,
            cocitation=True,
        )
        return next((dict(zip(r["ids"], r["counts"])) for r in rows if r["kind"] == "coupling"), {})

    capped, uncapped = coupling(2), coupling(100_000)
    assert 0 < sum(capped.values()) <= 2 * len(refs) < sum(uncapped.values())
    assert capped.keys() <= uncapped.keys() and all(n <= uncapped[cid] for cid, n in capped.items())


def test_the_ego_network_follows_a_hub_through_at_most_fanout_citing_papers(acl):
    """The explorer's co-cited papers (``explore/ego``, GET /neighbours) come from at most
    ``fanout`` citing papers, as the neighbourhood's do: the ego network of a paper cited
    100,000 times costs what one cited ``fanout`` times does. Its other kinds do not change."""
    hub = acl.store.run("most_cited", limit=1)[0]["id"]

    def ego(fanout: int) -> dict[str, dict[str, int]]:
        kinds: dict[str, dict[str, int]] = {}
        for row in acl.store.run("explore/ego", id=hub, limit=10_000, fanout=fanout):
            kinds.setdefault(row["kind"], {})[row["id"]] = row["weight"]
        return kinds

    capped, uncapped = ego(2), ego(100_000)
    assert len(uncapped["cited_by"]) > 2 and max(uncapped["co_cited"].values()) > 2
    assert 0 < max(capped["co_cited"].values()) <= 2 and capped["co_cited"].keys() < uncapped["co_cited"].keys()
    assert {k: v for k, v in capped.items() if k != "co_cited"} == {
        k: v for k, v in uncapped.items() if k != "co_cited"
    }


def test_negative_seeds_skip_cocitation_and_as_of_stops_enrichment_at_later_papers(acl):
    """The negatives' neighbourhood is the same statement without its costly co-citation
    branch; enrichment as of a year expands no candidate published later (or undated), in
    the enrichment statement itself (no separate round trip)."""
    seed = acl.seed("P12-1066")
    refs = list(seed.references)

    def kinds(cocitation: bool) -> dict[str, list]:
        return {
            r["kind"]: sorted(r["ids"])
            for r in acl.store.run(
                "recommend/neighbourhood",
                refs=refs,
                exclude=[seed.id, *refs],
                seed=seed.id,
                fanout=100,
                as_of=None,
                cocitation=cocitation,
            )
        }

    full, linked = kinds(True), kinds(False)
    assert "cocitation" in full and "cocitation" not in linked
    assert linked == {k: v for k, v in full.items() if k != "cocitation"}
    later = "P13-2017"  # 2013, with references in the graph
    assert enrich(acl.store, [later], size=20, as_of=2013).frequency
    assert not enrich(acl.store, [later], size=20, as_of=2012).frequency
    mixed = enrich(acl.store, [later, seed.id], size=40, as_of=2012)
    assert mixed.frequency == enrich(acl.store, [later, seed.id], size=40, hidden={later}).frequency


@pytest.mark.parametrize("max_year, with_text", [(None, False), (2004, False), (2008, True)])
def test_enrichment_counts_what_the_candidates_cite_as_their_edges_say(acl, monkeypatch, max_year, with_text):
    """The ranking and filters recomputed from the edges and the papers' records: without a
    filter the candidates' cited_ids are read, with one their edges are followed."""
    from test_bulk import dump

    nodes, rels = dump(acl.store)
    papers = {p["id"]: p for p in (json.loads(props) for labels, props in nodes if "Paper" in labels)}
    cited: dict[str, set[str]] = {}
    for kind, source, target, _ in rels:
        if kind == "CITES":
            cited.setdefault(source, set()).add(target)
    candidates = sorted(cited, key=lambda p: (-len(cited[p]), p))[:40]

    def admitted(n: str) -> bool:
        paper = papers[n]
        text = (paper.get("title") or "").strip() + (paper.get("abstract") or "").strip()
        return (max_year is None or paper.get("year") is None or paper["year"] <= max_year) and (not with_text or text)

    counts = Counter(n for c in candidates for n in cited[c] if n not in candidates and admitted(n))
    expected = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:25]
    asked = []
    plain = acl.store.plain
    monkeypatch.setattr(acl.store, "plain", lambda name, **params: asked.append(name) or plain(name, **params))
    enriched = enrich(acl.store, candidates, size=40 + 25, max_year=max_year, with_text=with_text)
    assert enriched.ids == candidates + [n for n, _ in expected] and enriched.frequency == dict(expected)
    assert len(expected) == 25
    assert asked == ["signals/enrich" if max_year is None else "signals/enrich_filtered"]


def test_the_neighbourhoods_facts_are_asked_first_whichever_side_ends_first(acl, monkeypatch):
    """The request asks the graph for the facts of the neighbourhood's candidates (they tell
    the stubs among each kind's top, recommend/neighbourhood), while the retrievers
    usually still search, then for the rest: each candidate's row depends on it alone, so
    the candidates are the same when the text side ends first (forced here by delaying
    one side or the other)."""
    from citegraph.recommend import Recommender
    from citegraph.recommend.signals.neighbourhood import Links

    class Searching:  # the retriever, still searching when the neighbourhood is back
        def __init__(self, inner):
            self._inner = inner

        def __getattr__(self, name):
            return getattr(self._inner, name)

        def search(self, *args, **kwargs):
            time.sleep(0.5)
            return self._inner.search(*args, **kwargs)

    asked: list[int] = []
    plain = acl.store.plain

    def counted(name, **params):
        if name == "recommend/features":
            asked.append(len(params["ids"]))
        return plain(name, **params)

    monkeypatch.setattr(acl.store, "plain", counted)

    def described(recommender):
        asked.clear()
        found = recommender.candidates(recommender.seed("P12-1066"))
        return [(c.id, c.facts, c.features, c.signals) for c in found.values()], list(asked)

    early, early_asked = described(Recommender(acl.store, [Searching(acl.retrievers[0])]))
    gather = Links.gather.__func__
    monkeypatch.setattr(Links, "gather", classmethod(lambda cls, *a, **k: (time.sleep(0.5), gather(cls, *a, **k))[1]))
    late, late_asked = described(Recommender(acl.store, acl.retrievers))
    assert len(early_asked) == 2 and early_asked == late_asked, (early_asked, late_asked)
    assert early == late and len(late) > 50


def test_a_new_paper_by_text_and_chosen_references(acl):
    found = acl.recommend(
        title="Unsupervised dependency parsing with bilingual projection", references=["D10-1120"], year=2011, k=10
    )
    assert found and all(r.id != "D10-1120" and (r.year or 0) <= 2011 for r in found)
    with pytest.raises(CitegraphError, match="no paper with id"):
        acl.recommend("nope")
    with pytest.raises(CitegraphError, match="title and/or an abstract"):
        acl.recommend(title="  ")


def test_graph_signals_beat_bm25_alone_on_held_out_citations(acl):
    train_set = held_out_citations(acl.store, 80, seed=3)
    test_set = held_out_citations(acl.store, 120, seed=3, skip=80)
    assert not {e.seed.id for e in train_set} & {e.seed.id for e in test_set}
    for example in test_set:
        assert example.held_out not in example.seed.references
    learned = train(acl, train_set)
    results = evaluate_held_out(acl, test_set, {"bm25": {"text": 1.0}, "fusion": DEFAULT_WEIGHTS, "learned": learned})
    r20 = {name: result.mean["R@20"] for name, result in results.items()}
    assert r20["fusion"] >= r20["bm25"] + 0.1, r20  # measured through the CLI: repro condition recommend-held-out-120
    assert r20["learned"] >= r20["bm25"] + 0.1, r20


def test_recommend_from_the_cli(acl, server_env):
    result = subprocess.run(
        [sys.executable, "-m", "citegraph.cli", "recommend", "--paper", "P12-1066", "-k", "5", "--format", "json"],
        capture_output=True,
        text=True,
        env=server_env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)["recommendations"]
    assert [r["id"] for r in rows] == [r.id for r in acl.recommend("P12-1066", k=5)]
    assert all(r["explanation"] for r in rows)
    shown = subprocess.run(
        [sys.executable, "-m", "citegraph.cli", "recommend", "--paper", "P12-1066", "-k", "5", "--explain"],
        capture_output=True,
        text=True,
        env=server_env,
        timeout=300,
    )
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    ranks = [i for i, line in enumerate(lines) if line.lstrip().startswith(("1. ", "2. ", "3. ", "4. ", "5. "))]
    assert [lines[i].split()[1] for i in ranks] == [r["id"] for r in rows]
    assert lines[ranks[0] + 1].strip() == "· " + rows[0]["explanation"][0]


def test_precomputed_rankings_give_the_same_recommendations_without_searching(acl, server_config, server_env):
    from citegraph.recommend import Recommender
    from citegraph.retrieval.corpus import documents
    from citegraph.retrieval.precomputed import FOLDER, Precomputed
    from citegraph.retrieval.spec import BM25

    indexes = Path(server_config.data_dir) / "indexes"
    seeds = [d.id for d in documents(acl.store)][::40]
    (ids := indexes / "seeds.txt").write_text("\n".join([*seeds, "no-such-paper"]) + "\n")
    try:
        result = citegraph_ok("index", "rankings", "--depth", "150", "--ids", str(ids), env=server_env)
        assert "1 of the " in result.stderr and "no-such-paper" in result.stderr
        assert f": {len(seeds):,} of " in result.stdout
        served = BM25().open(indexes)
        assert isinstance(served, Precomputed)
        searched = []
        plain = served.retriever
        counting = Precomputed(
            SimpleNamespace(name=plain.name, search=lambda q, k, p=None: searched.append(q) or plain.search(q, k, p)),
            served.rankings,
        )
        recommender = Recommender(acl.store, [counting])
        for seed in seeds:
            assert recommender.recommend(seed, k=20) == acl.recommend(seed, k=20), seed
        assert len(searched) <= len(seeds) // 5  # only seeds with over 49 references ask deeper than 150
    finally:
        shutil.rmtree(indexes / BM25().folder / FOLDER)


def test_evaluate_recommend_is_the_registered_benchmark(acl, server_env, tmp_path):
    out = tmp_path / "held-out"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "citegraph.cli",
            "evaluate",
            "recommend",
            "--papers",
            "40",
            "--seed",
            "3",
            "--skip",
            "80",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=server_env,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert "held-out citations (40 papers, text: bm25; seed 3)" in result.stdout
    saved = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert saved["config"]["retrievers"] == ["bm25"] and list(saved["tables"][0]["rows"]) == [
        "text only",
        "fusion (default weights)",
    ]
    examples = held_out_citations(acl.store, 40, seed=3, skip=80)
    expected = evaluate_held_out(
        acl, examples, {"text only": {"text": 1.0}, "fusion (default weights)": DEFAULT_WEIGHTS}
    )
    for name, evaluation in expected.items():
        for measure, value in evaluation.mean.items():
            assert saved["tables"][0]["rows"][name][measure][0] == pytest.approx(value), (name, measure)
