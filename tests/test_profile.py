"""Candidates' public profiles (citegraph.local.profile) on a fixture graph in the session's
ArcadeDB server: what a profile may hold under the held-out view, the newest-first cap, and the
bi-encoder's mixed vectors.

The leak is the point: a test context's own sentence, or any sentence of a held-out citing
paper, must never reach a candidate's profile (the BM25 documents or the bi-encoder's mean);
nor, for a training context, a sentence of its own citing paper."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from citegraph.ingest import formats, ingest
from citegraph.local.config import PrefetchConfig
from citegraph.local.data import (
    export_contexts,
    graph_papers,
    held_out_papers,
    read_contexts,
    time_split,
    without_placeholders,
)
from citegraph.local.enrich import HeldOutView
from citegraph.local.profile import Profiles, prefetch_over_profiles, view_sentences
from citegraph.local.stages import load_corpus
from citegraph.retrieval.citing_sentences import CitingSentences

from conftest import citegraph_ok

# Who cites whom and when; every citing sentence names its writer and the cited paper, so that
# no two sentences are alike. U is undated; G and H (2021) form the test set.
PAPERS = {  # id: (year, references)
    "A": (2015, []),
    "B": (2016, ["A"]),
    "C": (2017, ["A"]),
    "D": (2018, ["A", "B"]),
    "E": (2019, ["C", "A"]),
    "F": (2020, ["D", "B", "C"]),
    "G": (2021, ["F", "D", "A"]),
    "H": (2021, ["E", "C", "A"]),
    "U": (None, ["A", "C"]),
}


def sentence(citing: str, cited: str) -> str:
    return f"writer{citing.lower()} says [CIT] introduced method{cited.lower()} for parsing."


def write_graph(path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for pid, (year, refs) in PAPERS.items():
            record = {
                "id": pid,
                "year": year,
                "title": f"paper {pid.lower()} on dependency parsing",
                "abstract": f"we parse sentences with method{pid.lower()}.",
                "references": [{"id": r, "contexts": [sentence(pid, r)]} for r in refs],
            }
            f.write(json.dumps({k: v for k, v in record.items() if v is not None}) + "\n")
    return path


@pytest.fixture
def graph(store, tmp_path):
    ingest(store, formats.get("jsonl"), [write_graph(tmp_path / "graph.jsonl")])
    export_contexts(store, tmp_path / "contexts.jsonl")
    split = time_split(read_contexts(tmp_path / "contexts.jsonl"), test=0.25)
    hidden = held_out_papers(split, ((r["id"], r["year"], r["arxiv_id"]) for r in graph_papers(store)))
    return store, split, HeldOutView.hiding(store, hidden)


def written_by(store, papers) -> set[str]:
    """Every sentence the graph holds of the citing ``papers``."""
    return {s for r in store.plain("recommend/contexts") if r["citing"] in papers for s in r["contexts"]}


def test_no_test_sentence_and_no_hidden_paper_reaches_a_profile(graph, tmp_path):
    store, split, view = graph
    assert {c.citing for c in split.test} == {"G", "H"} and view.hidden == {"G", "H"}
    profiles = Profiles(view_sentences(view))
    profile = profiles.of()
    shown = {s for sentences in profile.values() for s in sentences}
    assert shown == written_by(store, {"B", "C", "D", "E", "F"})  # everything the view shows, and nothing else
    assert all(written_by(store, {p}) for p in "GHU")
    assert not shown & written_by(store, {"G", "H", "U"})  # held out, or undated: not before the cut
    for context in split.test:
        for cited in context.cited:
            assert context.text not in profile.get(cited, [])
    # the documents BM25 indexes: a candidate's text and the words of its visible sentences only
    documents = {d.id: d for d in profiles.documents(load_corpus(store).documents)}
    assert "writerb says introduced methoda for parsing." in documents["A"].abstract
    for context in split.test:
        for cited in context.cited:
            assert without_placeholders(context.text) not in documents[cited].abstract
    assert not any(f"writer{p}" in d.abstract for d in documents.values() for p in "ghu")
    # and a BM25 prefetcher over them ranks as usual: the sentence of G on A finds nothing of G's
    [query] = [c for c in split.test if c.citing == "G" and c.cited == ("A",)]
    [found] = prefetch_over_profiles(profiles, load_corpus(store), [query], PrefetchConfig("bm25:bm25s", 5), tmp_path)
    assert found and "G" not in found


def test_a_training_context_never_meets_its_own_papers_sentences(graph):
    store, _, view = graph
    sentences = view_sentences(view)
    profiles = Profiles(sentences)
    own = Profiles(sentences).of(hidden="D")
    assert sentence("D", "A") in profiles.of()["A"] and sentence("D", "A") not in own["A"]
    assert not {s for ss in own.values() for s in ss} & written_by(store, {"D"})
    # the same as a graph that never held D's sentences
    rows = [r for r in store.plain("local/profile_sentences", held_out=list(view.held_out)) if r["citing"] != "D"]
    assert own == Profiles(CitingSentences(rows)).of()


def test_the_cap_keeps_the_newest_sentences_after_the_view(graph):
    _, _, view = graph
    sentences = view_sentences(view)
    assert Profiles(sentences, cap=2).of()["A"] == [sentence("E", "A"), sentence("D", "A")]
    assert Profiles(sentences, cap=2).of(hidden="E")["A"] == [sentence("D", "A"), sentence("C", "A")]
    assert Profiles(sentences, cap=0).of() == {}
    assert Profiles(CitingSentences([])).of() == {}


def test_the_bi_encoders_profile_mix(graph, tiny_bert):
    """Weight 0 is the bi-encoder as it is; weight 1 ranks a paper with a profile by its sentences'
    mean alone; a training context's ranking (``own``) is the one of a graph without its
    paper's sentences; the tuned weight is one of the grid, chosen on training contexts."""
    from citegraph.local.biencoder import BiEncoder, BiEncoderConfig
    from citegraph.local.encoding import PairEncoder
    from citegraph.local.profile import WEIGHTS, ProfileMix

    store, split, view = graph
    corpus = load_corpus(store).candidates
    model = BiEncoder(BiEncoderConfig(lm=f"hf:{tiny_bert}", max_steps=0), PairEncoder(f"hf:{tiny_bert}", 32), corpus)
    sentences = view_sentences(view)
    mix = ProfileMix(model, Profiles(sentences))
    everything = [sorted(corpus)] * len(split.test)
    scores = [{h.id: h.score for h in r} for r in model.rank(split.test, everything)]
    assert [{h.id: h.score for h in r} for r in mix.rank(split.test, everything, 0.0)] == [
        pytest.approx(s, abs=1e-6) for s in scores
    ]
    [query] = [c for c in split.test if c.citing == "G" and c.cited == ("A",)]
    [alone] = mix.rank([query], [["A", "H"]], 1.0)
    means = model.embed([sentence(p, "A") for p in "EDCB"]).mean(axis=0)
    assert {h.id: h.score for h in alone}["A"] == pytest.approx(
        float(means @ model.embed([query.query_text])[0] / np.linalg.norm(means)), abs=1e-5
    )
    assert {h.id: h.score for h in alone}["H"] == pytest.approx(scores[split.test.index(query)]["H"], abs=1e-6)

    [training] = [c for c in split.train if c.citing == "D" and c.cited == ("A",)]
    rows = [r for r in store.plain("local/profile_sentences", held_out=list(view.held_out)) if r["citing"] != "D"]
    without_d = ProfileMix(model, Profiles(CitingSentences(rows)))
    lists = [["A", "B", "C"]]
    assert mix.rank([training], lists, 0.5, own=True) == without_d.rank([training], lists, 0.5)
    assert mix.rank([training], lists, 0.5) != without_d.rank([training], lists, 0.5)
    assert mix.rank([], [], 0.5) == []
    nothing = ProfileMix(model, Profiles(CitingSentences([])))
    assert [{h.id: h.score for h in r} for r in nothing.rank(split.test, everything, 1.0)] == [
        pytest.approx(s, abs=1e-6) for s in scores
    ]
    weight, mrr = mix.tune(split.train, [sorted(corpus)] * len(split.train))
    assert weight in WEIGHTS and set(mrr) == set(WEIGHTS) and mrr[weight] == max(mrr.values())


def test_evaluate_local_with_and_without_profiles(graph, server_env, tiny_bert, tmp_path):
    """``--profile`` adds the prefetcher over profiles and the bi-encoder with profiles, each
    beside its row without, and the paired tests of the two; ``--no-profile`` adds nothing."""
    out = tmp_path / "out"
    common = ["evaluate", "local", "--encoder", str(tiny_bert), "--rerankers", "biencoder", "--bi-steps", "2"]
    common += ["--bi-batch", "4", "--prefetch", "bm25:bm25s", "--test-share", "0.25"]
    citegraph_ok(*common, "--out", str(out), "--profile", "--profile-sentences", "3", env=server_env)
    results = json.loads((out / "results.json").read_text())
    main, *_, t_test, randomisation = results["tables"]
    plain, tuned = "prefetch (bm25:bm25s)", "tiny-bert bi-encoder, fine-tuned (2 steps)"
    rows = list(main["rows"])  # the prefetcher, its three controls, then the prefetcher over profiles
    assert rows[0] == plain and rows[1] == f"{plain}, abstract-first" and rows[2].startswith(f"{plain}, same-kind")
    assert rows[3] == f"{plain}, profile-first" and rows[4] == f"{plain} over profiles" and f"{tuned} + profile" in rows
    baselines = {n: main["rows"][n] for n in rows[:4]}  # the strongest per measure is tested against
    strongest = [t["title"] for t in results["tables"] if "strongest baseline" in t["title"]]
    best_mrr = max(baselines, key=lambda n: baselines[n]["MRR"][0])
    assert strongest and all(f"{best_mrr}: " in t for t in strongest)
    against_strongest = next(t for t in results["tables"] if "randomisation test p against the strongest" in t["title"])
    assert f"{plain} over profiles" in against_strongest["rows"] and f"{tuned} + profile" in against_strongest["rows"]
    assert "against the same row without profiles" in t_test["title"]
    assert "against the same row without profiles" in randomisation["title"]
    assert list(randomisation["rows"]) == [f"{plain} over profiles", f"{tuned} + profile"]
    config = results["config"]
    assert config["profile"] is True and config["profile_sentences"] == 3
    assert config["variants"][f"{tuned} + profile"]["profile_weight"] in [k / 10 for k in range(11)]
    assert config["data_info"]["profile_sentences_shown"] == 8  # B–F's 9 sentences, at most 3 of the 4 on A
    citegraph_ok(*common, "--out", str(tmp_path / "plain"), "--no-profile", env=server_env)
    rows = json.loads((tmp_path / "plain" / "results.json").read_text())["tables"][0]["rows"]
    assert not [r for r in rows if "profile" in r] and tuned in rows
    first = ["evaluate", "local", "--rerankers", "", "--prefetch", "bm25:bm25s", "--test-share", "0.25", "--profile"]
    citegraph_ok(*first, "--out", str(tmp_path / "first"), env=server_env)  # the first stages alone: no LM
    tables = json.loads((tmp_path / "first" / "results.json").read_text())["tables"]
    assert list(tables[0]["rows"])[3:] == [f"{plain}, profile-first", f"{plain} over profiles", f"{plain} + enrichment"]
    assert list(tables[-1]["rows"]) == [f"{plain} over profiles"] and "without profiles" in tables[-1]["title"]


def test_real_citing_sentences_of_the_scisummnet_fixtures(store, tmp_path):
    """The same on real sentences (the three ScisummNet folders of tests/fixtures): under the
    split's view, no test context's sentence and no sentence of a held-out paper is in a profile,
    and the profiles do hold the training side's sentences."""
    ingest(store, formats.get("scisummnet"), [Path(__file__).resolve().parent / "fixtures" / "scisummnet"])
    export_contexts(store, tmp_path / "contexts.jsonl")
    split = time_split(read_contexts(tmp_path / "contexts.jsonl"), test=0.2)
    papers = ((r["id"], r["year"], r["arxiv_id"]) for r in graph_papers(store))
    view = HeldOutView.hiding(store, held_out_papers(split, papers))
    profile = Profiles(view_sentences(view), cap=1000).of()
    shown = {s for sentences in profile.values() for s in sentences}
    every = {r["citing"] for r in store.plain("recommend/contexts")}
    assert shown == written_by(store, every - view.hidden - {r["id"] for r in graph_papers(store) if not r["year"]})
    assert shown and not shown & written_by(store, view.hidden)
    tested = {c.text for c in split.test}
    assert tested and tested <= written_by(store, view.hidden) and not shown & tested
