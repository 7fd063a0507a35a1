"""Ingest on real samples and broken inputs: readers, batched writes, idempotence,
resume after a killed ingest, the external-paper policy and the prefilter."""

from __future__ import annotations

import gzip
import json
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import pytest

from citegraph.errors import InputError
from citegraph.ingest import IngestOptions, Prefilter, formats, ingest
from citegraph.ingest.pipeline import checkpoint_key

from conftest import ACL200, shared, write_jsonl


def read_all(format_name: str, path: Path):
    fmt = formats.get(format_name)
    return [item for file in fmt.files(path) for item in fmt.read(file)]


def counts(store) -> tuple[dict, dict]:
    labels = {r["label"]: r["count"] for r in store.run("stats/labels") if r["label"] != "IngestCheckpoint"}
    rels = {r["type"]: r["count"] for r in store.run("stats/relationships")}
    return labels, rels


# -- readers on real samples ----------------------------------------------------------
def test_s2orc_reader_on_the_real_sample():
    items = read_all("s2orc", shared("samples/s2orc/metadata_sample.jsonl"))
    assert not [i.problem for i in items if i.problem]
    papers = [i.record for i in items if type(i.record).__name__ == "Paper"]
    assert len(papers) == 1000
    first = papers[0]
    assert (first.id, first.year, first.fields) == ("77490025", 1975, ("Medicine",))
    assert first.title == "State of external ocular muscles in strabismus of different duration"
    assert first.abstract is None and first.venue == "Oftalmologicheskiĭ zhurnal"
    assert [a.name for a in first.authors] == ["Pen'kov Ma", "Konstantinovskaia Ke", "Zhukova Sv"]
    assert sum(1 for p in papers if p.abstract and len(p.abstract) >= 30) == 488


def test_acl200_reader_on_the_bundled_graph():
    items = read_all("acl200", ACL200)
    assert not [i.problem for i in items if i.problem]
    kinds = {}
    for item in items:
        kinds[type(item.record).__name__] = kinds.get(type(item.record).__name__, 0) + 1
    assert kinds == {"Paper": 10298, "Citation": 32873}
    edge = next(i.record for i in items if type(i.record).__name__ == "Citation")
    assert (edge.citing_id, edge.reference.cited_id, edge.reference.n_contexts) == ("D09-1001", "D08-1068", 2)
    assert items[0].record.year == 2000  # quoted years are read as integers


def test_generic_reader_merges_repeated_references(tmp_path):
    path = write_jsonl(
        tmp_path / "c.jsonl",
        [
            {
                "id": "P1",
                "title": " A  title ",
                "year": 2020,
                "fields": ["Physics", "Physics"],
                "authors": ["Ada Lovelace", {"id": "A7", "name": "Alan Turing"}],
                "references": [
                    "P0",
                    {"id": "P2", "contexts": ["x [CIT] y"], "sections": ["Intro"]},
                    {"id": "P2", "contexts": ["z [CIT]"], "sections": ["Method"]},
                ],
            }
        ],
    )
    [item] = read_all("jsonl", path)
    paper = item.record
    assert paper.title == "A  title" and paper.fields == ("Physics",)
    assert [(a.id, a.name) for a in paper.authors] == [("name:ada lovelace", "Ada Lovelace"), ("A7", "Alan Turing")]
    p2 = paper.references[1]
    assert (p2.cited_id, p2.contexts, p2.sections, p2.n_contexts) == (
        "P2",
        ("x [CIT] y", "z [CIT]"),
        ("Intro", "Method"),
        2,
    )


# -- broken inputs --------------------------------------------------------------------
BROKEN = [
    ('{"id": "P1", "title": "ok"}\n{"id": "P2", "title": \n', 2, None, "malformed JSON"),
    ('{"title": "no id"}\n', 1, "id", "is missing"),
    ('{"id": "P1", "year": "twenty"}\n', 1, "year", "expected an integer"),
    ('{"id": "P1", "fields": "Physics"}\n', 1, "fields", "expected a list of strings"),
    (
        '{"id": "P1", "references": [{"id": "P2", "contexts": [3]}]}\n',
        1,
        "references[0].contexts[0]",
        "expected a string",
    ),
    ("[1, 2]\n", 1, None, "expected a JSON object"),
    ('{"id": "P1"}\n{"id": "P2", "title": "cut', 2, None, "may be truncated"),
]


@pytest.mark.parametrize("text,line,field,reason", BROKEN)
def test_bad_jsonl_names_file_line_and_field(tmp_path, text, line, field, reason):
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    problems = [i.problem for i in read_all("jsonl", path) if i.problem]
    assert len(problems) == 1
    problem = problems[0]
    assert (problem.where.path, problem.where.line, problem.field) == (path, line, field)
    assert reason in problem.reason
    assert str(problem).startswith(f"{path}:{line}:")


def test_non_utf8_bytes_are_located(tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"id": "P1"}\n{"id": "P2", "title": "caf\xe9"}\n')
    [problem] = [i.problem for i in read_all("jsonl", path) if i.problem]
    assert problem.where.line == 2 and "not valid UTF-8 (byte 0xe9 at column 27)" in problem.reason


def test_escaped_surrogate_pairs_are_read_and_lone_halves_located(tmp_path):
    path = tmp_path / "escaped.jsonl"
    path.write_text(
        '{"id": "P1", "title": "\\ud83d\\ude00 \\u00e9"}\n'  # a pair: one character outside the BMP
        '{"id": "P2", "authors": [{"name": "x"}], "\\udc00": 1}\n'
        '{"id": "P3", "authors": [{"name": "Jos\\ud800"}]}\n'
    )
    items = read_all("jsonl", path)
    assert items[0].record.title == "\U0001f600 \u00e9"
    assert [(i.problem.where.line, i.problem.field) for i in items[1:]] == [(2, None), (3, "authors")]
    assert "lone UTF-16 surrogate (\\ud800)" in items[2].problem.reason


def test_truncated_gzip_is_located(tmp_path):
    data = gzip.compress("".join(json.dumps({"id": f"P{i}", "title": "t" * 50}) + "\n" for i in range(2000)).encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    items = read_all("jsonl", path)
    problems = [i.problem for i in items if i.problem]
    assert len(problems) == 1 and "truncated" in problems[0].reason
    assert problems[0].where.line == len([i for i in items if i.record]) + 1


def test_bad_acl200_edges_are_located(tmp_path):
    folder = tmp_path / "acl"
    folder.mkdir()
    write_jsonl(folder / "papers.jsonl", [{"paper_id": "A", "title": "t", "year": "2000"}])
    (folder / "edges.tsv").write_text("citing\tcited\tn_contexts\nA\tB\t1\nA\tC\n A\tD\tmany\n")
    problems = [i.problem for i in read_all("acl200", folder) if i.problem]
    assert [(p.where.line, p.field) for p in problems] == [(3, None), (4, "n_contexts")]
    assert "expected 3 columns, got 2" in problems[0].reason


def test_bad_input_stops_before_anything_is_written(store, tmp_path):
    rows = [{"id": f"P{i}", "references": [f"P{i - 1}"]} for i in range(1, 500)]
    rows.insert(400, '{"id": "BAD", "year": [2000]}')
    path = write_jsonl(tmp_path / "c.jsonl", rows)
    with pytest.raises(InputError, match=r"c.jsonl:401: field 'year' expected an integer"):
        ingest(store, formats.get("jsonl"), [path], IngestOptions(batch_size=50))
    assert counts(store) == ({}, {})


def test_skip_bad_writes_the_rest_and_lists_the_rejects(store, tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": "P1"}, '{"id": 7.5}', "{oops", {"id": "P2", "references": ["P1"]}])
    rejects = tmp_path / "rejects.jsonl"
    summary = ingest(store, formats.get("jsonl"), [path], IngestOptions(skip_bad=True, rejects=rejects))
    assert summary.rejected == 2 and summary.rejects_file == rejects
    listed = [json.loads(line) for line in rejects.read_text().splitlines()]
    assert [(r["line"], r["field"]) for r in listed] == [(2, "id"), (3, None)]
    assert counts(store) == ({"Paper": 2}, {"CITES": 1})


# -- writes ---------------------------------------------------------------------------
def test_s2orc_sample_graph(store):
    summary = ingest(store, formats.get("s2orc"), [shared("samples/s2orc/metadata_sample.jsonl")])
    labels, rels = counts(store)
    assert labels["Paper"] == 1000 + 6049 and labels["External"] == 6049
    assert rels["CITES"] == 6058  # 6,062 distinct citations in both directions, 4 of them self-citations
    assert summary.write.self_citations == 8  # each self-citation is listed both ways
    assert rels["IN_FIELD"] == sum(
        len(json.loads(line)["mag_field_of_study"] or [])
        for line in shared("samples/s2orc/metadata_sample.jsonl").open()
    )
    paper = store.run("paper", id="2871678")[0]
    assert paper["citation_count"] == 297 and set(paper["fields"]) == {"Biology", "Medicine"}
    assert summary.eligibility["with_abstract"] == 488
    assert (
        summary.eligibility["eligible"]
        == store.run("prefilter/counts", min_abstract=30, min_citations=3)[0]["eligible"]
    )


@pytest.mark.slow
def test_citation_counts_equal_inbound_edges_of_the_input(store):
    ingest(store, formats.get("acl200"), [ACL200], IngestOptions(batch_size=3000))
    inbound: dict[str, int] = {}
    with gzip.open(ACL200 / "edges.tsv.gz", "rt") as f:
        next(f)
        for line in f:
            citing, cited, _ = line.rstrip("\n").split("\t")
            if citing != cited:
                inbound[cited] = inbound.get(cited, 0) + 1
    top = sorted(inbound.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    assert [(r["id"], r["citation_count"]) for r in store.run("most_cited", limit=10)] == top
    assert top[0] == ("P07-2045", 571)


def test_papers_the_ingest_recounts_start_without_a_count(store):
    """A paper (or stub) the ingest will recount is created without citation_count: on
    ArcadeDB, replacing one of the index's many 0s scans them all. Others start at 0."""
    from citegraph.graph.schema import apply_schema
    from citegraph.ingest.records import Paper, Reference
    from citegraph.ingest.writer import GraphWriter

    apply_schema(store)
    writer = GraphWriter(store, recounted={"B", "C"})
    writer.write([Paper("A", "a", references=(Reference("B"), Reference("C"))), Paper("B", "b"), Paper("D", "d")])
    start = {i: store.run("paper", id=i)[0]["citation_count"] for i in "ABCD"}
    assert start == {"A": 0, "B": None, "C": None, "D": 0}
    writer.recount(["B", "C"])
    assert {i: store.run("paper", id=i)[0]["citation_count"] for i in "ABCD"} == {"A": 0, "B": 1, "C": 1, "D": 0}


def test_ingest_is_idempotent(store):
    path = shared("samples/s2orc/metadata_sample.jsonl")
    ingest(store, formats.get("s2orc"), [path])
    first = counts(store), store.run("stats/citation_degrees")
    again = ingest(store, formats.get("s2orc"), [path])
    assert again.skipped_files == [str(path)]  # the checkpoint says it is done
    forced = ingest(store, formats.get("s2orc"), [path], IngestOptions(restart=True))
    assert forced.write.nodes_created == 0 and forced.write.relationships_created == 0
    assert (counts(store), store.run("stats/citation_degrees")) == first


def test_external_stub_becomes_a_paper_and_drop_policy(store, tmp_path):
    citing = write_jsonl(
        tmp_path / "a.jsonl", [{"id": "A", "references": ["B", "C"]}, {"id": "D", "references": ["B"]}]
    )
    summary = ingest(store, formats.get("jsonl"), [citing])
    assert summary.write.external_created == 2
    assert store.run("paper", id="B")[0]["external"] is True
    cited = write_jsonl(tmp_path / "b.jsonl", [{"id": "B", "title": "Now known", "year": 2001}])
    summary = ingest(store, formats.get("jsonl"), [cited], IngestOptions(external="drop"))
    assert summary.write.external_upgraded == 1 and summary.external_dropped == 1  # C
    b = store.run("paper", id="B")[0]
    assert (b["external"], b["title"], b["citation_count"]) == (False, "Now known", 2)
    assert store.run("paper", id="C") == []
    assert counts(store) == ({"Paper": 3}, {"CITES": 2})


def ingested(store) -> dict[str, str | None]:
    return {r["props"]["id"]: r["props"].get("ingested") for r in store.rows("bulk/nodes") if "Paper" in r["labels"]}


def test_a_paper_keeps_the_date_of_the_run_that_made_it(store, tmp_path):
    """``ingested`` is the run's date (its clock), set when a paper is created or its stub
    upgraded; later runs, updates and a forced re-run keep it."""

    def on(day: int, **options) -> IngestOptions:
        return IngestOptions(clock=lambda: date(2024, 5, day), **options)

    first = write_jsonl(tmp_path / "a.jsonl", [{"id": "A", "title": "Old", "references": ["B"]}])
    ingest(store, formats.get("jsonl"), [first], on(1))
    assert ingested(store) == {"A": "2024-05-01", "B": None}  # a stub is no paper of the corpus yet
    later = write_jsonl(tmp_path / "b.jsonl", [{"id": "B", "title": "Now known"}, {"id": "A", "title": "New"}])
    ingest(store, formats.get("jsonl"), [later], on(2))
    assert ingested(store) == {"A": "2024-05-01", "B": "2024-05-02"}
    assert store.run("paper", id="A")[0]["title"] == "New"
    again = ingest(store, formats.get("jsonl"), [first, later], on(3, restart=True))
    assert again.write.nodes_created == 0 and ingested(store) == {"A": "2024-05-01", "B": "2024-05-02"}


def test_dropping_stubs_recounts_what_they_cited(store, tmp_path):
    path = write_jsonl(tmp_path / "s.jsonl", [{"id": "P"}])
    ingest(store, formats.get("jsonl"), [path])
    citations = [{"citing": f"X{i}", "cited": "P"} for i in range(3)]
    folder = tmp_path / "acl"
    folder.mkdir()
    write_jsonl(folder / "papers.jsonl", [])
    (folder / "edges.tsv").write_text(
        "citing\tcited\tn_contexts\n" + "".join(f"{c['citing']}\tP\t1\n" for c in citations)
    )
    ingest(store, formats.get("acl200"), [folder])
    assert store.run("paper", id="P")[0]["citation_count"] == 3
    ingest(store, formats.get("acl200"), [folder], IngestOptions(external="drop", restart=True))
    assert store.run("paper", id="P")[0]["citation_count"] == 0


def test_prefilter_follows_the_mdcr_criteria(store, tmp_path):
    long_abstract = "An abstract that is comfortably longer than thirty characters."
    rows = [
        {"id": "OK", "title": "T", "abstract": long_abstract, "year": 2019},
        {"id": "NOYEAR", "title": "T", "abstract": long_abstract},
        {"id": "SHORT", "title": "T", "abstract": "too short", "year": 2019},
        {"id": "NOTITLE", "abstract": long_abstract, "year": 2019},
        {"id": "FEW", "title": "T", "abstract": long_abstract, "year": 2019},
    ]
    rows += [
        {"id": f"C{i}", "references": ["OK", "NOYEAR", "SHORT", "NOTITLE"] + (["FEW"] if i < 2 else [])}
        for i in range(3)
    ]
    summary = ingest(store, formats.get("jsonl"), [write_jsonl(tmp_path / "p.jsonl", rows)])
    assert summary.eligibility == {
        "papers": 8,
        "with_year": 4,
        "with_title": 4,
        "with_abstract": 4,
        "with_citations": 4,
        "eligible": 1,
    }
    assert [store.run("paper", id=i)[0]["eligible"] for i in ("OK", "FEW", "C0")] == [True, False, False]
    summary = ingest(
        store,
        formats.get("jsonl"),
        [tmp_path / "p.jsonl"],
        IngestOptions(restart=True, prefilter=Prefilter(min_abstract=5, min_citations=2)),
    )
    assert summary.eligibility["eligible"] == 3  # OK, SHORT, FEW


@pytest.mark.slow
def test_a_killed_ingest_resumes_to_the_same_graph(store, server_env, tmp_path):
    rows = [
        {
            "id": f"P{i:05}",
            "title": f"Paper {i}",
            "year": 1990 + i % 30,
            "references": [f"P{j:05}" for j in range(max(0, i - 5), i)] + [f"X{i % 97}"],
        }
        for i in range(6000)
    ]
    path = write_jsonl(tmp_path / "big.jsonl", rows)
    command = [
        sys.executable,
        "-m",
        "citegraph.cli",
        "ingest",
        "jsonl",
        str(path),
        "--batch-size",
        "200",
        "--no-progress",
    ]
    process = subprocess.Popen(command, env=server_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    key = checkpoint_key(formats.get("jsonl"), path)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = store.run("ingest/checkpoint", key=key)
        if found and found[0]["line"] >= 1000:
            break
        assert process.poll() is None, process.stdout.read().decode()
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    line = store.run("ingest/checkpoint", key=key)[0]["line"]
    assert 1000 <= line < 6000, "the ingest should have been killed mid-way"

    resumed = subprocess.run(command, env=server_env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"resumed {path} after line {line:,}" in resumed.stdout
    after_resume = counts(store), store.run("stats/citation_degrees")

    ingest(store, formats.get("jsonl"), [path], IngestOptions(restart=True))
    assert (counts(store), store.run("stats/citation_degrees")) == after_resume
    assert after_resume[0] == ({"Paper": 6097, "External": 97}, {"CITES": 6000 * 6 - 15})
