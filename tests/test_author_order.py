"""Authors come out in the order their source gives them (issue 39 §2): for every source
with authors (BibTeX, S2ORC, OpenAlex, S2AG), written by the streaming ingest and by the
bulk path, every paper's author list as the ``paper`` query (HTTP, MCP, ``citegraph
paper``) and the exports read it is the reader's list, first author first."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from citegraph.graph import ArcadeDBBackend
from citegraph.ingest import formats, ingest
from citegraph.ingest.bulk import bulk_ingest
from citegraph.ingest.records import Paper
from citegraph.library.export import exported

from conftest import citegraph_ok, shared

FIXTURES = Path(__file__).parent / "fixtures"


def _s2orc_first(path: Path, paper_id: str) -> str:
    row = next(r for r in map(json.loads, path.open(encoding="utf-8")) if r["paper_id"] == paper_id)
    a = row["authors"][0]
    return " ".join(p for p in [a["first"], *a["middle"], a["last"], a["suffix"]] if p)


#: (format, input, a paper, its first author as the raw source spells it)
SOURCES = {
    "bibtex": lambda: (FIXTURES / "bibtex", "10.1145/3397271.3401075", "Sean MacAvaney"),
    "s2orc": lambda: (
        (path := shared("samples/s2orc/metadata_sample.jsonl")),
        "77490025",
        _s2orc_first(path, "77490025"),
    ),
    "openalex": lambda: (FIXTURES / "openalex" / "works.jsonl", "W2963403868", "Ashish Vaswani"),
    "s2ag": lambda: (FIXTURES / "s2ag", "13756489", "Ashish Vaswani"),
}


def _source_order(fmt, path: Path) -> dict[str, list[str]]:
    """Each paper's author names as the format's reader gives them, for the ids given authors
    once (the authors of a repeated id are merged: its lists have no one order)."""
    papers = [item.record for file in fmt.files(path) for item in fmt.read(file) if isinstance(item.record, Paper)]
    given = Counter(p.id for p in papers if p.authors)
    return {p.id: [a.name for a in p.authors] for p in papers if p.authors and given[p.id] == 1}


@pytest.mark.parametrize("path_kind", ["streaming", "bulk"])
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_every_author_list_keeps_the_source_order(arcade_server, store, source, path_kind):
    path, paper_id, first = SOURCES[source]()
    fmt, _ = formats.get(source).surveyed(formats.get(source).files(path))
    if path_kind == "streaming":
        ingest(store, fmt, [path])
    else:
        bulk_ingest(ArcadeDBBackend(arcade_server), store, fmt, [path])
    expected = _source_order(fmt, path)
    assert any(len(names) > 1 for names in expected.values()), "no paper with co-authors to tell"
    graph = {p.id: list(p.authors) for p in exported(store, list(expected))}
    assert graph == expected
    shown = {i: store.run("paper", id=i)[0]["authors"] for i in expected if len(expected[i]) > 1}
    assert shown == {i: expected[i] for i in shown}
    assert shown[paper_id][0] == first


def test_the_cli_shows_and_exports_the_first_author_first(arcade_server, store, server_env):
    """The example of the issue: a BibTeX entry's three authors, through `citegraph paper`
    as text and as each export."""
    ingest(store, formats.get("bibtex"), [FIXTURES / "bibtex" / "acm.bib"])
    paper_id = "10.1145/3397271.3401075"
    names = ["Sean MacAvaney", "Franco Maria Nardini", "Raffaele Perego"]
    text = citegraph_ok("paper", paper_id, env={**server_env, "COLUMNS": "400"}).stdout
    assert "; ".join(names) in " ".join(text.split())
    ris = citegraph_ok("paper", paper_id, "--format", "ris", env=server_env).stdout
    assert [line[6:] for line in ris.splitlines() if line.startswith("AU  - ")] == [
        "MacAvaney, Sean",
        "Nardini, Franco Maria",
        "Perego, Raffaele",
    ]
    csl = json.loads(citegraph_ok("paper", paper_id, "--format", "csl-json", env=server_env).stdout)
    assert [a["family"] for a in csl[0]["author"]] == ["MacAvaney", "Nardini", "Perego"]
