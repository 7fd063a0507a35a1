"""--include-referenced: the works the selected works reference load as full papers, one hop,
on hand-written OpenAlex works in the snapshot's layout (test_ingest_openalex) and the S2AG
release of tests/fixtures/s2ag (test_ingest_s2ag); streamed and bulk-loaded alike."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_ingest_openalex import FIXTURE, snapshot, topics, works
from test_ingest_s2ag import RELEASE

from citegraph.cli import main
from citegraph.errors import CitegraphError
from citegraph.ingest import IngestOptions, get
from citegraph.ingest.records import Citation, Paper
from citegraph.ingest.selection import Selection, WorkIds

SINCE_2020 = Selection(since=2020)  # of the fixture works: W3000000001 (cites Attention) and W3000000002
ATTENTION = "W2963403868"  # 2017: out of the selection, cited by W3000000001


def partitions() -> dict[str, list[dict]]:
    """Attention in the older partition, read before the work that cites it; and a 2019 work
    that cites Attention and that no work cites (out of the selection, so absent)."""
    uncited = dict(
        works()[4],
        id="https://openalex.org/W3000000003",
        title="Cites, never cited",
        publication_year=2019,
        referenced_works=[f"https://openalex.org/{ATTENTION}"],
    )
    return {"2023-12-31": works()[:3], "2024-02-01": [*works()[3:], uncited]}


def test_work_ids_hold_integers_sorted_and_merged():
    ids = WorkIds()
    ids._BUFFER = 4  # merge often
    ids.update(range(100, 0, -1))
    ids.update([7, 7, 0])
    assert len(ids) == 101 and 0 in ids and 100 in ids and 101 not in ids and -1 not in ids
    assert ids._sorted.dtype.itemsize == 8


def test_openalex_reads_the_referenced_works_first(tmp_path):
    fmt = get("openalex")
    files = fmt.files(snapshot(tmp_path, partitions()))

    def loaded(selection):
        return {i.record.id: i.record for f in files for i in fmt.read(f, selection) if i.record}

    assert sorted(loaded(SINCE_2020)) == ["W3000000001", "W3000000002"]
    wide = fmt.widened(files, replace(SINCE_2020, include_referenced=True))
    assert len(wide.referenced) == 1 and 2963403868 in wide.referenced
    papers = loaded(wide)
    assert sorted(papers) == [ATTENTION, "W3000000001", "W3000000002"]  # W3000000003 cites it, but is not cited
    attention = papers[ATTENTION]
    assert (attention.title, attention.year, attention.venue) == (
        "Attention Is All You Need",
        2017,
        "arXiv (Cornell University)",
    )
    assert [a.id for a in attention.authors] == ["A5017004478", "A5032779934", "A5063224311"]
    assert [r.cited_id for r in attention.references] == ["W1902237438", "W2130942839", "W9999999991"]
    with pytest.raises(CitegraphError, match="Format.widened"):
        loaded(replace(SINCE_2020, include_referenced=True))
    assert fmt.widened(files, Selection(include_referenced=True)) == Selection()  # every work is read anyway
    with pytest.raises(CitegraphError, match="applies to: openalex"):
        get("s2orc").widened([FIXTURE], Selection(since=2000, include_referenced=True))


def papers_by_label(graph) -> dict[str, tuple[str, ...]]:
    return {json.loads(props)["id"]: labels for labels, props in graph[0] if "Paper" in labels}


@pytest.mark.slow
def test_openalex_referenced_works_streamed_and_bulk(arcade_server, store, tmp_path):
    """Attention arrives as a full paper with its properties, authors and topics; its
    references to works of the snapshot outside the selection are stubs; the 2019 work
    nothing cites is absent; bulk and streaming build the same graph."""
    from test_bulk import assert_same, stream_then_bulk

    options = IngestOptions(selection=replace(SINCE_2020, include_referenced=True))
    streamed, bulk, expected, got = stream_then_bulk(
        arcade_server, store, "openalex", [snapshot(tmp_path, partitions())], options, papers=(ATTENTION,)
    )
    assert_same(streamed, bulk, expected, got)
    stub = ("External", "Paper")
    assert papers_by_label(got["graph"]) == {
        ATTENTION: ("Paper",),
        "W3000000001": ("Paper",),
        "W3000000002": ("Paper",),
        "W1902237438": stub,
        "W2130942839": stub,
        "W9999999991": stub,
    }
    [[attention]] = got["papers"]
    assert (attention["title"], attention["year"], attention["external"], attention["references"]) == (
        "Attention Is All You Need",
        2017,
        False,
        3,
    )
    assert attention["authors"] == ["Ashish Vaswani", "Illia Polosukhin", "Noam Shazeer"]
    assert {t for p, t in topics(store)[1] if p == ATTENTION} == {"T10181", "T10028", "T11714"}
    cites = {(s, t) for kind, s, t, _ in got["graph"][1] if kind == "CITES"}
    assert cites == {
        ("W3000000001", ATTENTION),
        (ATTENTION, "W1902237438"),
        (ATTENTION, "W2130942839"),
        (ATTENTION, "W9999999991"),
    }


@pytest.mark.slow
def test_cli_include_referenced(store, server_env, tmp_path):
    works_dir = snapshot(tmp_path, partitions())
    result = CliRunner().invoke(
        main, ["ingest", "openalex", str(works_dir), "--no-progress", "--since", "2020", "--include-referenced"]
    )
    assert result.exit_code == 0, result.output
    assert store.run("paper", id=ATTENTION)[0]["external"] is False
    assert store.run("paper", id="W1902237438")[0]["external"] is True
    assert store.run("paper", id="W3000000003") == []
    result = CliRunner().invoke(
        main, ["ingest", "s2orc", str(FIXTURE), "--no-progress", "--since", "2020", "--include-referenced"]
    )
    assert result.exit_code != 0 and "applies to: openalex, s2ag" in result.output


def test_neo4j_admin_export_selects_and_includes_referenced(tmp_path):
    from test_bulk import read_parts

    result = CliRunner().invoke(
        main,
        [
            "export",
            "neo4j-admin",
            "openalex",
            str(snapshot(tmp_path, partitions())),
            "--out",
            str(tmp_path / "csv"),
            "--since",
            "2020",
            "--include-referenced",
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    full = {row[1]: row[2] for row in read_parts(sorted((tmp_path / "csv" / "paper").glob("data_*.csv")))}
    assert full == {
        ATTENTION: "Attention Is All You Need",
        "W3000000001": "Un estudio retractado",
        "W3000000002": "A preprint",
    }
    assert sorted(row[1] for row in read_parts(sorted((tmp_path / "csv" / "external_paper").glob("data_*.csv")))) == [
        "W1902237438",
        "W2130942839",
        "W9999999991",
    ]


MEDICINE = Selection(fields=frozenset({"Medicine"}), include_referenced=True)  # 52, which cites 13756489


def test_s2ag_admits_the_papers_the_selected_ones_cite():
    fmt = get("s2ag")
    files = fmt.files(RELEASE)
    selection = fmt.widened(files, MEDICINE)
    found = [i.record for f in files for i in fmt.read(f, selection) if i.record]
    papers = [r for r in found if isinstance(r, Paper)]
    assert sorted({p.id for p in papers if p.title}) == ["13756489", "52"]
    assert sorted(p.id for p in papers if p.abstract) == ["13756489", "52"]
    # 13756489's citation of 7961699 (out, not cited by 52) makes a stub; 7961699's own citation is not read
    assert [(c.citing_id, c.reference.cited_id) for c in found if isinstance(c, Citation)] == [
        ("13756489", "7961699"),
        ("52", "13756489"),
    ]


@pytest.mark.slow
def test_s2ag_referenced_papers_streamed_and_bulk(arcade_server, store):
    from test_bulk import assert_same, stream_then_bulk

    streamed, bulk, expected, got = stream_then_bulk(
        arcade_server, store, "s2ag", [RELEASE], IngestOptions(selection=MEDICINE), papers=("13756489",)
    )
    assert_same(streamed, bulk, expected, got)
    assert papers_by_label(got["graph"]) == {"52": ("Paper",), "13756489": ("Paper",), "7961699": ("External", "Paper")}
    [[attention]] = got["papers"]
    assert attention["abstract"].startswith("The dominant") and attention["external"] is False


def test_nothing_referenced_reads_like_the_criteria(tmp_path: Path):
    """A selection whose works cite nothing in the snapshot loads what the criteria alone load."""
    fmt = get("openalex")
    files = fmt.files(snapshot(tmp_path, {"2024-01-15": works()}))
    only_preprints = Selection(types=frozenset({"preprint"}))
    wide = fmt.widened(files, replace(only_preprints, include_referenced=True))
    assert len(wide.referenced) == 0
    assert [i.record.id for f in files for i in fmt.read(f, wide) if i.record] == ["W3000000002"]
