"""TREC-style test collections: topic files in every common shape (classic SGML, later
tracks' XML, TSV, JSONL) with their fields, errors at file:line:field, DOIs matched
across qrels and runs whatever their case, and runs scored by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from citegraph.errors import InputError
from citegraph.evaluation.trec.collection import comparable, score_runs
from citegraph.formats.trec import read_qrels, read_run, read_topics, write_qrels, write_run
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
        (
            "<topics>\n<topic>\n<query>graphs</query>\n</topic>\n</topics>\n",
            ".xml",
            "t.xml:2: field 'number'",
            "a <topic> without a number attribute",
        ),
        (
            '<topics>\n<topic number="1">\n<query>graphs & citations</query>\n</topic>\n</topics>\n',
            ".xml",
            "t.xml:3:",
            "not well-formed XML (not well-formed (invalid token))",
        ),
    ],
)
def test_bad_topic_files_are_located(tmp_path, text, suffix, where, says):
    path = tmp_path / f"t{suffix}"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as error:
        read_topics(path)
    assert where in str(error.value) and says in str(error.value), str(error.value)


def test_topic_xml_is_read_as_xml_comments_and_cdata_included(tmp_path):
    """Later tracks' topics are read by an XML parser: a topic commented out is not a topic,
    CDATA and character references are text, and each topic keeps the line it starts on."""
    path = tmp_path / "topics.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<topics>\n'
        '  <!-- <topic number="0"><query>withdrawn</query></topic> -->\n'
        '  <topic number="1">\n    <query><![CDATA[graphs <and> citations]]></query>\n  </topic>\n'
        '  <topic number="2"><query>caf&#233; &amp; tea</query></topic>\n</topics>\n',
        encoding="utf-8",
    )
    topics = read_topics(path)
    assert [(t.id, t.text, t.where.line if t.where else None) for t in topics] == [
        ("1", "graphs <and> citations", 4),
        ("2", "café & tea", 7),
    ]


def test_the_readers_give_what_the_hand_written_ones_gave_on_every_collection_of_the_suite():
    """parsed.json is what citegraph's own readers gave before the topics' XML went to an XML
    parser and the qrels and runs to ir_measures' readers: every TREC file of the suite, in
    every field and duplicate policy recorded there, reads the same (ids, texts, lines,
    warnings, grades)."""
    import json

    recorded = json.loads((TREC / "parsed.json").read_text(encoding="utf-8"))
    files = {
        p.relative_to(TREC).as_posix() for p in TREC.rglob("*") if p.is_file() and p.suffix not in (".bib", ".json")
    }
    assert files == {c["file"] for c in recorded["topics"]} | set(recorded["qrels"]), "a TREC file not recorded"
    for case in recorded["topics"]:
        warnings: list[str] = []
        topics = read_topics(TREC / case["file"], case["field"], case["on_duplicate"], warnings.append)
        assert [[t.id, t.text, t.where.line if t.where else None] for t in topics] == case["topics"], case
        assert [w.replace(f"{TREC}/", "") for w in warnings] == case["warnings"], case
    for name, qrels in recorded["qrels"].items():
        assert read_qrels(TREC / name) == qrels


def test_qrels_and_runs_read_back_what_was_written(tmp_path):
    """Graded qrels (as the MDCR build writes them) and a run with scores of every size read
    back exactly: the run's scores are written as repr, the rank column comes from the order."""
    write_qrels(
        tmp_path / "qrels.txt", {"q1": ["10.1/A", "d2"], "q2": ["d3"]}, {"q1": {"10.1/A": 2, "d2": 0}, "q2": {"d3": -1}}
    )
    assert read_qrels(tmp_path / "qrels.txt") == {"q1": {"10.1/A": 2, "d2": 0}, "q2": {"d3": -1}}
    run = {"q1": [Hit("d2", 0.1 + 0.2), Hit("10.1/A", 1e-300)], "q2": [Hit("d3", -2.5)], "q3": []}
    write_run(tmp_path / "run.trec", run, "mine")
    assert read_run(tmp_path / "run.trec") == {q: [tuple(h) for h in hits] for q, hits in run.items() if hits}
    assert (tmp_path / "run.trec").read_text().splitlines()[1] == "q1 Q0 10.1/A 2 1e-300 mine"


@pytest.mark.parametrize(
    "read, text, where",
    [
        (
            read_qrels,
            "q1 0 d1 1\n\nq1 0 d2 high\n",
            "x:3: expected 'query 0 doc grade' (a whole grade), got 'q1 0 d2 high'",
        ),
        (read_qrels, "q1 0 d1 1\nq1 d2 1\n", "x:2: expected 'query 0 doc grade' (a whole grade), got 'q1 d2 1'"),
        (read_run, "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5\n", "x:2: expected 'query Q0 doc rank score tag' (6 columns"),
        (read_run, "q1 Q0 d1 1 high t\n", "x:1: expected 'query Q0 doc rank score tag' (6 columns, a numeric score)"),
        (read_qrels, "q1 0 d1 1\nq2 0 d\xe9 1\n", "x:2: not UTF-8"),
    ],
)
def test_a_bad_qrels_or_run_line_is_an_input_error_naming_its_line(tmp_path, read, text, where):
    path = tmp_path / "x"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError) as error:
        read(path)
    assert str(error.value).startswith(f"{tmp_path}/{where}"), str(error.value)


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
