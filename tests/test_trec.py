"""TREC-style test collections: topic files in every common shape (classic SGML, later
tracks' XML, TSV, JSONL) with their fields, errors at file:line:field, DOIs matched
across qrels and runs whatever their case, and runs scored by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from citegraph.errors import InputError
from citegraph.evaluation.qrels import read_qrels
from citegraph.evaluation.trec.collection import comparable, read_topics, score_runs
from citegraph.retrieval.base import Hit

TREC = Path(__file__).parent / "fixtures" / "trec"
COLLECTION = TREC / "collection"


@pytest.mark.parametrize(
    "name, field, expected",
    [
        ("topics.trec", None, [("401", "foreign minorities, Germany"), ("402", "behavioral genetics")]),
        (
            "topics.trec",
            "desc",
            [
                (
                    "401",
                    "What language and cultural differences impede the integration of foreign minorities in Germany?",
                ),
                ("402", "What is happening in the field of behavioral genetics & heredity?"),
            ],
        ),
        (
            "topics.trec",
            "title+narr",
            [
                (
                    "401",
                    "foreign minorities, Germany A relevant document will focus on the causes "
                    "of the lack of integration in a significant way.",
                ),
                ("402", "behavioral genetics Any document that discusses behavioral genetics is relevant."),
            ],
        ),
        ("topics.xml", None, [("1", "coronavirus origin"), ("2", "coronavirus response to weather changes")]),
        (
            "topics.xml",
            "desc",
            [
                ("1", "what is the origin of COVID-19"),
                ("2", "how does the coronavirus respond to changes in the weather"),
            ],
        ),
        (
            "queries.tsv",
            None,
            [("q1", "citation recommendation with graphs"), ("q2", "dense retrieval of scientific papers")],
        ),
        (
            "queries.jsonl",
            None,
            [("q1", "citation recommendation with graphs"), ("q2", "dense retrieval of scientific papers")],
        ),
    ],
)
def test_topic_files_of_every_shape(name, field, expected):
    assert [(t.id, t.text) for t in read_topics(TREC / name, field)] == expected


@pytest.mark.parametrize(
    "text, suffix, where, says",
    [
        (
            "<top>\n<num> Number: 1\n<desc> Description: only a description\n</top>\n",
            ".trec",
            "t.trec:1: field 'title'",
            "the topic has no <title> or <query> text (it has: desc, num)",
        ),
        ("<top>\n<title> no number\n</top>\n", ".trec", "t.trec:1: field 'num'", "a <top> without a <num>"),
        ("q1\tfine\nq2 no tab\n", ".tsv", "t.tsv:2:", "expected 'qid<TAB>text'"),
        ('{"id": "q1", "text": "x"}\n{"text": "no id"}\n', ".jsonl", "t.jsonl:2: field 'id'", "no query id"),
        ('{"id": "q1", "query": ""}\n', ".jsonl", "t.jsonl:1: field 'text'", "no query text"),
    ],
)
def test_bad_topic_files_are_located(tmp_path, text, suffix, where, says):
    path = tmp_path / f"t{suffix}"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as error:
        read_topics(path)
    assert where in str(error.value) and says in str(error.value), str(error.value)


@pytest.mark.parametrize("policy, kept", [("last", "citation graph database"), ("first", "genetics of reading")])
def test_a_repeated_topic_id_keeps_one_text_with_a_warning_naming_both_lines(policy, kept):
    """A real topic file gives one id twice with two texts: read into a map, as Anserini reads
    topics (the later one wins by default), and scored once per id, as trec_eval scores."""
    warnings: list[str] = []
    topics = read_topics(COLLECTION / "topics-repeated.txt", on_duplicate=policy, warn=warnings.append)
    assert [(t.id, t.text) for t in topics] == [("1", "citation recommendation"), ("2", kept), ("3", "dense retrieval")]
    [warning] = warnings
    assert "topics-repeated.txt:22: field 'id'" in warning and "topic 2 also given at line 8" in warning
    assert f"the {policy} text is kept (--on-duplicate {policy})" in warning


def test_a_repeated_topic_id_can_be_an_error():
    with pytest.raises(InputError, match=r"topics-repeated.txt:22: field 'id' topic 2 already given at line 8"):
        read_topics(COLLECTION / "topics-repeated.txt", on_duplicate="error")


def test_runs_scored_by_hand_dois_matched_whatever_their_case():
    """qrels write 10.1007/s11192-… and 10.1023/a:…; the graph (and so the run) 10.1007/S11192-…
    and 10.1023/A:…. Topic 1 has three relevant papers (grades 2, 1, 1), topics 2 and 3 two each."""
    assert comparable("10.1023/A:1000000002") == comparable("10.1023/a:1000000002")
    assert comparable("Smith2020") != comparable("smith2020")  # citation keys are not case-insensitive
    topics = read_topics(COLLECTION / "topics.txt")
    qrels = read_qrels(COLLECTION / "qrels.txt")
    found = {
        "1": [Hit("10.1007/S11192-021-0001", 3.0), Hit("c7", 2.0), Hit("10.1023/A:1000000002", 1.0)],
        "2": [Hit("10.1534/GENETICS.115.0005", 2.0), Hit("10.3233/DS-190001", 1.0)],
        "3": [],
    }
    scores = score_runs(topics, qrels, {"found": found, "nothing": {}}, k=2)
    row = {m: v[0] for m, v in scores.table.rows["found"].items()}
    assert row["R@2"] == pytest.approx((2 / 3 + 1 / 2 + 0) / 3)
    assert row["MRR"] == pytest.approx((1 + 1 / 2 + 0) / 3)
    assert row["MAP"] == pytest.approx((1 + (1 / 2) / 2 + 0) / 3)  # topic 2: its 2nd relevant paper never ranked
    assert scores.table.rows["nothing"]["MAP"][0] == 0.0
    assert set(scores.significance["nothing"]) == {"R@2", "nDCG@2", "MAP", "MRR"}
    assert scores.unjudged == []


def test_a_collection_ranked_re_ranked_and_written(tmp_path):
    """BM25 over the collection's documents ranks each topic; with --rerank-depth 2 a second
    system re-ranks only BM25's top 2 (here BM25 again, on a pool: the same order)."""
    import json

    from citegraph.evaluation.harness import run
    from citegraph.evaluation.trec.collection import TRECCollection
    from citegraph.ingest import formats
    from citegraph.retrieval.base import Document
    from citegraph.retrieval.bm25 import build_bm25

    bibtex = formats.get("bibtex")
    papers = [i.record for i in bibtex.read(COLLECTION / "corpus.bib")]
    docs = [Document(p.id, p.title or "", p.abstract or "", "; ".join(p.keywords)) for p in papers]
    bm25 = build_bm25(docs, tmp_path / "bm25", backend="bm25s")
    topics = read_topics(COLLECTION / "topics.txt")
    qrels = read_qrels(COLLECTION / "qrels.txt")
    results = run(TRECCollection(topics, qrels, k=2, rerank_depth=2), [bm25, bm25], tmp_path / "out")
    first, second = (results.tables[0].rows[name] for name in results.tables[0].rows)
    assert first == second  # re-ranking its own top 2 changes nothing
    run = (tmp_path / "out" / "runs" / "bm25.trec").read_text().splitlines()
    assert run[0].startswith("1 Q0 10.1007/S11192-021-0001 1 ")  # the graph's spelling, not the qrels'
    assert len(run) == 5  # the top 2 of topics 1 and 2; only one paper says "dense"
    written = json.loads((tmp_path / "out" / "results.json").read_text())
    assert written["config"]["rerank_depth"] == 2 and written["config"]["retrievers"] == ["bm25", "bm25 (2)"]
    assert results.tables[1].rows["bm25 (2)"]["MAP"][0] == 1.0  # identical systems: p = 1
