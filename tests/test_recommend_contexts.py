"""The recommender's contexts signal on real inputs: the bundled ACL-200 graph merged with
real ScisummNet folders (the three of tests/fixtures/scisummnet and, where the reference
data is here, twelve more of ../shared), a real BM25 index, the session ArcadeDB server.

The held-out view is the point: the seed's own citing sentences (which paraphrase it and
name the held-out citation) must never feed the signal, neither as matches nor in the
BM25 statistics; the tests compare against an index built without them."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from citegraph.evaluation.sampling import generator, sample
from citegraph.recommend.held_out import HeldOut, evaluate_held_out, held_out_citations, train
from citegraph.retrieval.citing_sentences import CitingSentences, excerpt

from conftest import ACL200, ACL_INGESTED, SHARED, citegraph_ok

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "scisummnet"
#: ScisummNet papers that ACL-200 papers cite most (each cited there by 9–16 of the citing papers of its
#: citing sentences)
SHARED_FOLDERS = (
    "W08-0509",
    "P06-1124",
    "D11-1142",
    "W08-0336",
    "P03-1054",
    "W04-2705",
    "N09-1046",
    "P03-1021",
    "W06-3119",
    "P04-1015",
    "P08-1115",
    "D08-1014",
    "W04-3250",
    "W06-2920",
    "N04-1022",
    "N10-1115",
    "D08-1021",
    "W08-0309",
    "D10-1120",
    "P08-1109",
    "E09-1013",
    "W11-2103",
    "N09-2004",
    "P07-1123",
    "N09-1037",
    "W04-0308",
    "P09-1068",
    "P07-2045",
    "D11-1125",
    "P10-2041",
    "P07-1005",
    "P09-1027",
    "P09-1088",
    "P07-1096",
    "P06-2005",
    "P06-1005",
    "P07-1055",
    "P10-1146",
    "P11-1020",
    "P98-1013",
)
SCISUMMNET = SHARED / "samples" / "scisummnet" / "From-ScisummNet-2019"


def needs_shared_scisummnet() -> None:
    """Skips, saying why, where ``merged`` holds only the fixtures' three folders."""
    missing = [f for f in SHARED_FOLDERS if not (SCISUMMNET / f).is_dir()]
    if missing:
        pytest.skip(
            f"needs the ScisummNet folders of the reference data ({len(missing)} missing, e.g. {SCISUMMNET / missing[0]})"
        )


@pytest.fixture(scope="module")
def merged(arcade_server, server_config):
    """A recommender on ACL-200 ∪ the ScisummNet folders, with a BM25 index of the titles and abstracts."""
    from citegraph.graph import open_store
    from citegraph.ingest import IngestOptions, formats, ingest
    from citegraph.recommend import Recommender
    from citegraph.retrieval.bm25 import build_bm25
    from citegraph.retrieval.corpus import documents
    from citegraph.retrieval.spec import BM25

    folders = [FIXTURES, *(SCISUMMNET / f for f in SHARED_FOLDERS if (SCISUMMNET / f).is_dir())]
    arcade_server.recreate_database()
    with open_store(server_config) as store:
        ingest(store, formats.get("acl200"), [ACL200], IngestOptions(clock=lambda: ACL_INGESTED, batch_size=5000))
        ingest(store, formats.get("scisummnet"), folders)
        bm25 = build_bm25(
            list(documents(store)), Path(server_config.data_dir) / "indexes" / BM25().folder, backend="bm25s"
        )
        yield Recommender(store, [bm25])


def held_out(rec, paper: str, reference: str):
    """``paper`` as a seed with ``reference`` held out (as recommend.held_out draws them)."""
    seed = rec.seed(paper)
    assert reference in seed.references
    return dataclasses.replace(seed, references=tuple(r for r in seed.references if r != reference))


def test_the_seeds_own_sentences_never_feed_the_signal(merged):
    """P12-1029 ("Word Sense Disambiguation Improves Information Retrieval") cites W98-0705
    ("Indexing With WordNet Synsets Can Improve Text Retrieval") in a sentence about
    retrieval: held out, that sentence would hand W98-0705 to the recommender. Every
    contexts feature must equal the one computed from the graph's sentences without the
    seed's (statistics included), and must differ from the one computed with them."""
    seed = held_out(merged, "P12-1029", "W98-0705")
    rows = merged.store.plain("recommend/contexts")
    assert any(r["citing"] == seed.id and r["cited"] == "W98-0705" for r in rows)
    without = CitingSentences([r for r in rows if r["citing"] != seed.id])
    everything = merged.citing_sentences()
    blocked = {seed.id, *seed.references}
    query = seed.document.text

    def scores(sentences) -> dict[str, float]:
        return {m.cited: m.score for m in sentences.search(query, merged.text_depth, exclude=blocked)}

    def relative(scored: dict[str, float]) -> dict[str, float]:
        return {cid: score / max(scored.values()) for cid, score in scored.items()}

    honest, leaked = scores(without), scores(everything)
    assert leaked["W98-0705"] > honest["W98-0705"]  # the seed's own sentence would raise the held-out paper
    expected = relative(honest)
    assert relative(leaked) != expected
    found = {cid: c.features["contexts"] for cid, c in merged.candidates(seed).items() if "contexts" in c.features}
    assert "W98-0705" in found
    for cid, value in found.items():
        assert value == pytest.approx(expected[cid], rel=1e-9), cid
    assert not [
        s for c in merged.candidates(seed).values() for s in c.signals if s.name == "contexts" and seed.id in s.via
    ]


def test_the_held_out_evaluations_seeds_go_through_the_same_view(merged):
    """A drawn held-out citation whose seed has citing sentences in the graph: none of them
    reaches its candidates. Among 400 drawn seeds one such needs the ScisummNet folders of
    ../shared (the fixtures' three are cited by too few ACL-200 papers)."""
    needs_shared_scisummnet()
    rows = merged.store.plain("recommend/contexts")
    example = next(
        e for e in held_out_citations(merged.store, 400, seed=1) if any(r["citing"] == e.seed.id for r in rows)
    )
    assert not [
        s
        for c in merged.candidates(example.seed).values()
        for s in c.signals
        if s.name == "contexts" and example.seed.id in s.via
    ]


@pytest.mark.parametrize(
    "sentence, shown",
    [
        ("Short: [CIT] is cited.", "Short: [CIT] is cited."),
        (
            "word " * 30 + "as in [CIT] here." + " more" * 40,
            "… " + "word " * 9 + "as in [CIT] here." + " more" * 7 + " …",
        ),  # from a word 50 before the marker
    ],
)
def test_an_excerpt_keeps_the_citation_marker(sentence, shown):
    assert excerpt(sentence, 100) == shown


def test_as_of_a_year_hides_the_sentences_of_later_papers(merged):
    """As of 2008, the signal is the one of an index holding only the sentences of papers up
    to 2008: matches and BM25 statistics alike."""
    rows = merged.store.plain("recommend/contexts")
    assert {r["year"] for r in rows} > {2008} and min(r["year"] for r in rows) <= 2008
    earlier = CitingSentences([r for r in rows if r["year"] <= 2008])
    query = "statistical machine translation word alignment with a log-linear model"
    seen = merged.citing_sentences().search(query, 50, as_of=2008)
    assert seen == earlier.search(query, 50)
    assert seen != merged.citing_sentences().search(query, 50)
    years = {r["citing"]: r["year"] for r in rows}
    assert all(years[m.citing] <= 2008 for m in seen)


def test_explanations_quote_a_citing_sentence_of_the_candidate(merged):
    found = merged.recommend(
        title="Minimum error rate training of a phrase-based machine translation system", year=2014, k=20
    )
    quoted = [(r, s) for r in found for s in r.signals if s.name == "contexts"]
    assert quoted, [r.explanation() for r in found]
    sentences = {(r["citing"], r["cited"]): r["contexts"] for r in merged.store.plain("recommend/contexts")}
    for recommendation, signal in quoted:
        assert signal.text.startswith("cited in contexts like: '") and 0 < signal.value <= 1
        [citing] = signal.via
        shown = signal.text.removeprefix("cited in contexts like: '").rsplit("' (", 1)[0]
        assert any(
            shown.removeprefix("… ").removesuffix(" …") in " ".join(s.split())
            for s in sentences[citing, recommendation.id]
        )
        assert "[CIT]" in shown or not any("[CIT]" in s for s in sentences[citing, recommendation.id])
    assert max(s.value for _, s in quoted) == 1.0  # the best match of the query


def citing_the_scisummnet_papers(rec, n: int) -> list[HeldOut]:
    """Held-out citations whose held-out reference is a ScisummNet paper of the graph: ``n``
    graph papers with a title that cite one (seeded draw), each with the first it cites held out."""
    sentences = rec.citing_sentences()
    ids = [r["id"] for r in rec.store.run("recommend/held_out", min_refs=3)]
    rows = [
        r
        for r in rec.store.run("recommend/held_out_papers", ids=ids)
        if r["title"] and set(r["references"]) & set(sentences.cited_ids)
    ]
    examples = []
    for row in sample(rows, n, generator(0, "contexts")):
        held = min(set(row["references"]) & set(sentences.cited_ids))
        examples.append(HeldOut(held_out(rec, row["id"], held), held))
    return examples


def test_contexts_find_the_held_out_citations_that_text_misses(merged):
    """On held-out citations of ScisummNet papers, ranking by the contexts signal alone finds
    more of them than BM25 on the titles (R@5 0.28 against 0.02) and more than chance among the
    papers it scores (MRR 0.25 against 0.12), and the learned weight of the signal is positive
    (60 papers to learn from, 60 others to test on)."""
    needs_shared_scisummnet()
    examples = citing_the_scisummnet_papers(merged, 120)
    train_set, test_set = examples[:60], examples[60:]
    assert len({e.seed.id for e in examples}) == 120
    assert all(merged.citing_sentences().cited_in_view(e.held_out, e.seed.id) for e in test_set)
    learned = train(merged, train_set)
    assert learned["contexts"] > 0, learned
    results = evaluate_held_out(merged, test_set, {"contexts": {"contexts": 1.0}, "text": {"text": 1.0}})
    found = {name: result.mean for name, result in results.items()}
    # ranked at random among the candidates the signal scores, the held-out paper's mean reciprocal rank
    pools = [sum("contexts" in c.features for c in merged.candidates(e.seed).values()) for e in test_set]
    chance = sum(sum(1 / r for r in range(1, m + 1)) / m for m in pools) / len(pools)
    assert found["contexts"]["MRR"] >= 1.5 * chance and found["contexts"]["R@5"] >= found["text"]["R@5"] + 0.2, found


def test_recommend_train_and_evaluate_with_and_without_the_signal(merged, server_env, tmp_path):
    plain, contexts = tmp_path / "plain.json", tmp_path / "contexts.json"
    citegraph_ok("recommend-train", "--no-contexts", "--papers", "60", "--out", str(plain), env=server_env)
    citegraph_ok("recommend-train", "--papers", "60", "--out", str(contexts), env=server_env)
    assert "contexts" not in json.loads(plain.read_text())["weights"]
    assert (
        json.loads(contexts.read_text())["contexts"] is True
        and "contexts" in json.loads(contexts.read_text())["weights"]
    )
    done = citegraph_ok(
        "evaluate",
        "recommend",
        "--model",
        str(plain),
        "--contexts-model",
        str(contexts),
        "--papers",
        "40",
        "--skip",
        "60",
        "--out",
        str(tmp_path / "out"),
        env=server_env,
    )
    assert "held-out reference cited in contexts" in done.stdout
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    tables = {t["title"].split(" (")[0]: t for t in saved["tables"]}
    assert list(tables["held-out citations"]["rows"]) == [
        "text only",
        "fusion (default weights)",
        "learned",
        "learned + contexts",
    ]
    tests = tables["paired tests p, per paper"]["rows"]
    assert set(tests) == {
        f"{a} vs {b}, {papers}: {test}"
        for a, b, papers in [
            *(
                (learned, other, "all papers")
                for learned in ("learned", "learned + contexts")
                for other in ("text only", "fusion (default weights)")
            ),
            ("learned + contexts", "learned", "all papers"),
            ("learned + contexts", "learned", "cited in contexts"),
        ]
        for test in ("randomisation", "t-test")
    }
    assert all(0 <= cell[0] <= 1 for row in tests.values() for cell in row.values())
