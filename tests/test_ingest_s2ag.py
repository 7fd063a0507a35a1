"""The Semantic Scholar datasets reader on hand-written shards of the real schemas
(https://api.semanticscholar.org/api-docs/datasets: papers, abstracts, citations)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from citegraph.errors import CitegraphError, Location
from citegraph.ingest import IngestOptions, get, ingest
from citegraph.ingest.records import Citation, Paper
from citegraph.ingest.selection import Selection
from citegraph.ingest.sources.s2ag import NO_PAPER

from conftest import citegraph

RELEASE = Path(__file__).parent / "fixtures" / "s2ag"


def records(selection: Selection = Selection(), release: Path = RELEASE):
    fmt = get("s2ag")
    return [item.record for file in fmt.files(release) for item in fmt.read(file, selection) if item.record]


def test_release_in_join_order():
    assert [f.parent.name for f in get("s2ag").files(RELEASE)] == ["papers", "abstracts", "citations"]


def test_papers_abstracts_and_citations():
    found = records()
    papers = [r for r in found if isinstance(r, Paper)]
    attention = papers[0]
    assert (attention.id, attention.year, attention.arxiv_id, attention.fields) == (
        "13756489",
        2017,
        "1706.03762",
        ("Computer Science",),
    )
    assert [a.id for a in attention.authors] == ["s2:40348417", "s2:1846258"]
    assert papers[1].venue == "Advances in neural information processing systems"  # empty venue: the journal
    assert papers[2].authors[0].id == "name:j. doe" and papers[2].year is None
    abstracts = {p.id: p.abstract for p in papers[3:]}
    assert abstracts == {
        "13756489": "The dominant sequence transduction models are based on complex recurrent "
        "or convolutional neural networks.",
        "52": "A note on a case.",
    }
    citations = [r for r in found if isinstance(r, Citation)]
    assert [(c.citing_id, c.reference.cited_id) for c in citations] == [
        ("13756489", "7961699"),
        ("52", "13756489"),
        ("7961699", "777"),
    ]  # the unresolved one skipped
    first = citations[0].reference
    assert first.contexts == ("Recurrent models [35] dominate sequence modeling.", "as in [35]")
    assert (first.intents, first.influential, first.n_contexts) == (("background", "methodology"), True, 2)
    assert citations[1].reference.intents == ("methodology",)  # a flat list, as older releases have it


def test_selection_decides_by_the_papers_dataset():
    found = records(Selection(fields=frozenset({"Computer Science"})))
    assert sorted(r.id for r in found if isinstance(r, Paper) and r.title) == ["13756489", "7961699"]
    assert [r.id for r in found if isinstance(r, Paper) and r.abstract] == ["13756489"]  # 52 is out
    assert [(c.citing_id, c.reference.cited_id) for c in found if isinstance(c, Citation)] == [
        ("13756489", "7961699"),
        ("7961699", "777"),
    ]  # 52 cites no more; 777 stays as a stub
    with pytest.raises(CitegraphError, match="no language"):
        records(Selection(languages=frozenset({"en"})))
    with pytest.raises(CitegraphError, match="no OpenAlex topics: --topic applies to openalex"):
        records(Selection(topics=frozenset({"computer science"})))


def test_selection_needs_the_papers(tmp_path):
    shutil.copytree(RELEASE / "citations", tmp_path / "citations")
    with pytest.raises(CitegraphError, match="needs the papers dataset"):
        records(Selection(since=2000), tmp_path)


def test_bad_lines_are_located(tmp_path):
    shutil.copytree(RELEASE, tmp_path / "r")
    with open(tmp_path / "r" / "citations" / "part0.jsonl", "a") as f:
        f.write(
            '{"citingcorpusid": "x12", "citedcorpusid": 1}\n{"citingcorpusid": 5, "citedcorpusid": 1, "intents": [[1]]}\n'
        )
    fmt = get("s2ag")
    problems = [
        (i.problem.where.line, i.problem.field) for f in fmt.files(tmp_path / "r") for i in fmt.read(f) if i.problem
    ]
    assert problems == [(5, "citingcorpusid"), (6, "intents[0]")]


@pytest.mark.slow
def test_release_into_the_graph(store):
    from test_bulk import dump

    ingest(store, get("s2ag"), [RELEASE], IngestOptions())
    [attention] = store.run("paper", id="13756489")
    assert attention["abstract"].startswith("The dominant") and attention["citation_count"] == 1
    assert attention["references"] == 1 and sorted(attention["authors"]) == ["Ashish Vaswani", "Noam M. Shazeer"]
    assert store.run("paper", id="777")[0]["external"] is True
    [edge] = [r for r in dump(store)[1] if r[:3] == ("CITES", "13756489", "7961699")]
    assert json.loads(edge[3]) == {
        "contexts": ["Recurrent models [35] dominate sequence modeling.", "as in [35]"],
        "intents": ["background", "methodology"],
        "influential": True,
        "n_contexts": 2,
    }


@pytest.mark.slow
def test_bulk_builds_the_streamed_graph(arcade_server, store):
    from test_bulk import assert_same, stream_then_bulk

    assert_same(*stream_then_bulk(arcade_server, store, "s2ag", [RELEASE], papers=("13756489", "52", "777")))


def test_an_abstract_of_a_paper_not_in_the_release_is_left_out_and_counted(store, server_env, tmp_path):
    release = tmp_path / "r"
    shutil.copytree(RELEASE, release)
    with open(release / "abstracts" / "part0.jsonl", "a") as f:
        f.write('{"corpusid": 4242, "abstract": "An abstract of a paper the release does not have."}\n')
    summary = ingest(store, get("s2ag"), [release], IngestOptions())
    assert summary.left_out == {NO_PAPER: (1, Location(release / "abstracts" / "part0.jsonl", 4))}
    assert store.run("paper", id="4242") == []
    assert store.run("paper", id="13756489")[0]["abstract"].startswith("The dominant")
    done = citegraph("ingest", "s2ag", str(release), "--restart", "--no-progress", env=server_env)
    assert f"1 {NO_PAPER}; the first at {release / 'abstracts' / 'part0.jsonl'}:4" in " ".join(done.stdout.split())
    shutil.copytree(RELEASE / "abstracts", tmp_path / "alone" / "abstracts")
    with pytest.raises(CitegraphError, match="reading abstracts or selecting works needs the papers dataset"):
        ingest(store, get("s2ag"), [tmp_path / "alone"], IngestOptions())
