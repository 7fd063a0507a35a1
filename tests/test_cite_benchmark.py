"""The draft-level benchmark of ``cite`` (``citegraph evaluate cite``) on real data: ScisummNet's
citing sentences marked by the ingest, the bundled ACL-200 graph merged with the ScisummNet
fixtures and two folders of the reference data whose citing papers cite both in one sentence
(W06-1320: "… C99 (Choi, 2000) and TextSeg (Utiyama and Isahara, 2001)")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from citegraph.ingest.sources.scisummnet import mark
from citegraph.recommend.draft_benchmark import (
    ALONE,
    INSIDE,
    SAME,
    DraftCitations,
    PseudoDraft,
    Sentence,
    described,
    scored,
    sentences_of,
    split_drafts,
)

from conftest import ACL200, ACL_INGESTED, SHARED, citegraph_ok

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "scisummnet"
SCISUMMNET = SHARED / "samples" / "scisummnet" / "From-ScisummNet-2019"
CHOI, UTIYAMA = "A00-2004", "P01-1064"  # C99 (Choi, 2000) and TextSeg (Utiyama and Isahara, 2001)
SENTENCE = (
    "In this paper, we selected for comparison three systems based merely on the lexical reiteration feature: "
    "TextTiling (Hearst, 1997), C99 (Choi, 2000) and TextSeg (Utiyama and Isahara, 2001)."
)


def test_one_sentence_citing_two_papers_is_one_sentence_with_two_slots():
    """W06-1320's sentence is stored once under each cited paper, each copy marking its own
    citation (the ingest's ``mark``): the two copies become one sentence with a slot for each, in
    the order written; a copy whose citation was not located is left out; another sentence stays."""
    choi, utiyama = mark(SENTENCE, "choi", 2000), mark(SENTENCE, "utiyama", 2001)
    assert choi and utiyama and choi != utiyama
    other = "The C99 algorithm ([CIT]) makes a linear segmentation based on a divisive clustering strategy."
    found = sentences_of([(UTIYAMA, utiyama), (CHOI, choi), (CHOI, other), (CHOI, "Not located (Choi 2000).")])
    assert sorted(found, key=lambda s: len(s.answers)) == [
        Sentence(other, (CHOI,)),
        Sentence(
            "In this paper, we selected for comparison three systems based merely on the lexical reiteration "
            "feature: TextTiling (Hearst, 1997), C99 ([CIT]) and TextSeg ([CIT]).",
            (CHOI, UTIYAMA),
        ),
    ]


def test_the_figures_of_a_tiny_case():
    """Three slots (answers A, B, A): A first at slot 1, B third at slot 2, A not found at slot 3;
    slots 2 and 3 get the same top 5. By hand: R@1 1/3, R@5 2/3, MRR (1 + 1/3 + 0)/3 = 4/9; of
    the pairs with different answers, (1, 2) and (2, 3), one has identical lists: 1/2."""
    draft = PseudoDraft("P", 2010, (Sentence("x [CIT] y [CIT].", ("A", "B")), Sentence("z [CIT].", ("A",))))
    lists = {"P": [["A", "X", "Y"], ["X", "Y", "B", "C", "D", "E"], ["X", "Y", "B", "C", "D", "F"]]}
    figures = scored("row", [draft], lists)
    assert figures["row"].mean == pytest.approx({"R@1": 1 / 3, "R@5": 2 / 3, "R@10": 2 / 3, "MRR": 4 / 9})
    assert figures[f"row {SAME}"].mean == {SAME: 0.5}
    assert draft.slot_ids() == ["P:1", "P:2", "P:3"] and draft.as_of == 2009


@pytest.fixture(scope="module")
def segmentation(arcade_server, server_config, tmp_path_factory):
    """ACL-200 ∪ the ScisummNet fixtures and the two segmentation papers, with a BM25 index."""
    from citegraph.graph import open_store
    from citegraph.ingest import IngestOptions, formats, ingest
    from citegraph.retrieval.bm25 import build_bm25
    from citegraph.retrieval.corpus import documents
    from citegraph.retrieval.spec import BM25

    if not all((SCISUMMNET / f).is_dir() for f in (CHOI, UTIYAMA)):
        pytest.skip(f"needs the ScisummNet folders {CHOI} and {UTIYAMA} of the reference data ({SCISUMMNET})")
    folders = tmp_path_factory.mktemp("scisummnet")
    for folder in [*FIXTURES.iterdir(), SCISUMMNET / CHOI, SCISUMMNET / UTIYAMA]:
        shutil.copytree(folder, folders / folder.name)
    arcade_server.recreate_database()
    with open_store(server_config) as store:
        ingest(store, formats.get("acl200"), [ACL200], IngestOptions(clock=lambda: ACL_INGESTED, batch_size=5000))
        ingest(store, formats.get("scisummnet"), [folders])
        bm25 = build_bm25(
            list(documents(store)), Path(server_config.data_dir) / "indexes" / BM25().folder, backend="bm25s"
        )
        yield store, bm25


def test_drafts_are_the_citing_papers_split_by_time(segmentation):
    """W06-1320 (2006) is a draft of 6 slots in 5 sentences, one of them its two-slot sentence;
    read whole it has the 6 slots in that order, read a sentence at a time the same 6; as of 2005.
    W12-0703 cites A00-2004 in a ScisummNet sentence ("As dataset the Choi dataset (Choi, 2000) is
    used.") and, in ACL-200, also N09-1040, P01-1064 and P08-2068: those are its bibliography, never
    the answer. The training side is older than the test side, and no paper is on both."""
    store, _ = segmentation
    split = split_drafts(store, test_share=0.2)
    assert split.training and split.test
    assert max(d.year for d in split.training) < split.test_from <= min(d.year for d in split.test)
    assert not {d.citing for d in split.training} & {d.citing for d in split.test}
    drafts = {d.citing: d for d in [*split.training, *split.test]}

    w06 = described(store, drafts["W06-1320"])
    assert (w06.year, w06.as_of, len(w06.sentences), len(w06.answers)) == (2006, 2005, 5, 6)
    [two] = [s for s in w06.sentences if len(s.answers) == 2]
    assert two.answers == (CHOI, UTIYAMA) and two.text.endswith("C99 ([CIT]) and TextSeg ([CIT]).")
    assert sorted(w06.answers) == [CHOI] * 4 + [UTIYAMA] * 2
    assert w06.bibliography == ()  # its only references in the graph are the answers
    whole = w06.inside(paragraph=4, window=1)
    assert len(whole.slots) == 6 and whole.title == ""
    assert [len(d.slots) for d in w06.alone(window=1)] == [len(s.answers) for s in w06.sentences]

    w12 = described(store, drafts["W12-0703"])
    assert w12.answers == (CHOI,) and w12.sentences[0].text == "As dataset the Choi dataset ([CIT]) is used."
    assert sorted(w12.bibliography) == ["N09-1040", UTIYAMA, "P08-2068"]
    read = w12.inside(paragraph=4, window=1)
    assert sorted(e.id for e in read.references.values()) == ["N09-1040", UTIYAMA, "P08-2068"]
    assert read.title and w12.as_of == 2011


def test_the_benchmark_scores_every_slot_of_every_drawn_draft(segmentation, tmp_path):
    """All test drafts drawn (more asked than there are): each row scores every slot; BM25 asked a
    sentence alone gives the two slots of one sentence the same list (the same query), so
    W06-1320's share of identical top-5 lists there is at least its one such pair's."""
    from citegraph.evaluation.harness import run

    store, bm25 = segmentation
    benchmark = DraftCitations(store, drafts=100, seeds=(0,), test_share=0.6)
    results = run(benchmark, [bm25], tmp_path)
    data = json.loads((tmp_path / "results.json").read_text())
    drawn = data["config"]["drawn"]["0"]
    assert "W06-1320" in drawn
    slots = data["config"]["slots"]["0"]
    rows = [f"{v}, {m}" for v in ("bm25", "cite-sentence", "cite") for m in (ALONE, INSIDE)]
    per_query = data["per_query"]["seed 0"]
    for row in rows:
        assert len(per_query[row]["MRR"]) == slots
    w06_pairs = 4 * 2  # 6 slots: 4 of CHOI, 2 of UTIYAMA
    assert per_query[f"bm25, {ALONE} {SAME}"][SAME]["W06-1320"] >= 1 / w06_pairs
    table = results.tables[0]
    assert list(table.rows) == rows
    assert table.rows[f"bm25, {ALONE}"]["MRR"][0] == pytest.approx(
        sum(per_query[f"bm25, {ALONE}"]["MRR"].values()) / slots
    )


def test_a_new_variant_plugs_in_and_is_asked_as_a_user_asks(segmentation, tmp_path, monkeypatch):
    """A way of answering added to ``VARIANTS`` is asked every drawn draft, whole and a sentence at
    a time, with the draft's title, its bibliography by paper id and the year before its own."""
    from citegraph.evaluation.harness import run
    from citegraph.recommend.draft_benchmark import VARIANTS, Variant

    store, bm25 = segmentation
    asked = []

    def nothing(recommender, draft, as_of, k):  # finds nothing: every figure 0
        asked.append((draft.title, tuple(sorted(e.id for e in draft.references.values())), as_of, len(draft.slots)))
        return [[] for _ in draft.slots]

    monkeypatch.setitem(VARIANTS, "nothing", Variant("nothing", "answers nothing", nothing))
    results = run(
        DraftCitations(store, drafts=100, seeds=(0,), variants=("nothing",), test_share=0.6), [bm25], tmp_path
    )
    drawn = [described(store, d) for d in split_drafts(store, 0.6).test if len(d.answers) >= 2]
    expected = {(d.title, tuple(sorted(d.bibliography)), d.as_of) for d in drawn}
    assert {a[:3] for a in asked} == expected
    assert sum(a[3] for a in asked) == 2 * sum(len(d.answers) for d in drawn)  # alone and whole
    assert results.tables[0].rows[f"nothing, {INSIDE}"]["R@10"][0] == 0.0
    assert results.tables[0].rows[f"nothing, {INSIDE}"][SAME][0] == 0.0  # nothing suggested is no list


def test_the_slot_query_is_tuned_on_training_drafts_through_cites_own_code_path(segmentation):
    """``cite tune-query`` draws only training-side drafts (older than every test draft), and each
    grid point's figures are those of ``cite`` itself asked with that query on the same drafts
    whole: the floors re-scale one search per weighting and give what a search per point gives."""
    from citegraph.operations.cite_query import QueryTuneRequest, tune_query
    from citegraph.recommend import Recommender
    from citegraph.recommend.cite import SlotQuery, cite
    from citegraph.recommend.draft_benchmark import DEPTH

    store, bm25 = segmentation
    request = QueryTuneRequest(drafts=6, clause=[0, 2], sentence=[1, 2], neighbours=[1], floor=[0.0, 1.0])
    recommender = Recommender(store, [bm25])
    try:
        answer = tune_query(recommender, request)
        split = split_drafts(store, request.test_share)
        training = {d.citing: d for d in split.training}
        assert len(answer.training.citing) == answer.training.drafts == 6
        assert set(answer.training.citing) <= set(training) and answer.training.test_from == split.test_from
        drawn = [described(store, training[c]) for c in answer.training.citing]
        assert answer.training.slots == sum(len(d.answers) for d in drawn)
        assert len(answer.grid) == 8
        for point in answer.grid:
            if (point.clause, point.sentence) not in ((0, 1), (2, 2)):
                continue
            query = SlotQuery(point.clause, point.sentence, point.neighbours, point.floor)
            lists = {
                d.citing: [
                    [s.id for s in slot.suggestions]
                    for slot in cite(recommender, d.inside(4, 1), k=DEPTH, as_of=d.as_of, query=query).slots
                ]
                for d in drawn
            }
            figures = scored("asked", drawn, lists)
            assert point.mrr == pytest.approx(figures["asked"].mean["MRR"], abs=1e-6), point
            assert point.same_top5 == pytest.approx(figures[f"asked {SAME}"].mean.get(SAME, 0.0), abs=1e-6), point
    finally:
        recommender.close()
    assert answer.chosen.mrr == max(p.mrr for p in answer.grid)
    assert answer.default is not None and (answer.default.clause, answer.default.floor) == (2, 0.0)


def test_tune_query_from_the_command_line_prints_its_grid_and_choice(segmentation, server_env):
    """The command a user runs: one row per weighting, one column per floor, and the choice."""
    done = citegraph_ok(
        *("cite", "tune-query", "--drafts", "3", "--clause", "0,2", "--sentence", "1", "--neighbours", "1"),
        *("--floor", "0,1", "--with", "bm25"),
        env=server_env,
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("training drafts: 3 of the ") and "seed 0" in lines[0]
    assert "| clause | sentence | neighbours | floor 0 | floor 1 |" in lines
    rows = [line for line in lines if line.startswith(("| 0 | 1 | 1 |", "| 2 | 1 | 1 |"))]
    assert len(rows) == 2 and all(row.count(" / ") == 4 for row in rows)
    assert lines[-1].startswith("chosen: clause ")
