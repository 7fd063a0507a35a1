"""The bulk path against the streaming ingest, on real inputs: the graph a bulk load builds
must be the one ``ingest()`` builds, node for node and relationship for relationship; bad
input must stop it before the database is touched; the neo4j-admin CSV files must parse
back to the records they came from."""

from __future__ import annotations

import base64
import csv
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.errors import CitegraphError, InputError, ServerError
from citegraph.graph import ArcadeDBBackend, model
from citegraph.graph.arcadedb import DATABASE, HOST, USER
from citegraph.ingest import IngestOptions, formats, ingest
from citegraph.ingest.bulk import BULK_MARKER, bulk_ingest
from citegraph.ingest.bulk.duckdb_build import BuiltGraph, build, connect
from citegraph.ingest.bulk.neo4j_admin import ARRAY_DELIMITER, export_neo4j_admin
from citegraph.ingest.formats import Format
from citegraph.ingest.pipeline import IngestSummary, NoProgress
from citegraph.ingest.records import Item, Paper
from citegraph.ingest.selection import Selection
from citegraph.synth import SynthSpec, generate, generate_openalex

from conftest import ACL200, shared, write_jsonl

TAXONOMY = Path(__file__).resolve().parents[1] / "citegraph" / "data" / "taxonomy"
S2ORC = "samples/s2orc/metadata_sample.jsonl"
RUN_DAY = date(2024, 3, 1)  # the date both ingests of a comparison run "on": their papers' ``ingested``


def on(day: date, options: IngestOptions = IngestOptions()) -> IngestOptions:
    return replace(options, clock=lambda: day)


def dump(store) -> tuple[list, list]:
    """Every node (labels, properties) and relationship (type, end keys, properties), sorted."""
    nodes = sorted(
        (tuple(r["labels"]), json.dumps(r["props"], sort_keys=True))
        for r in store.rows("bulk/nodes")
        if "IngestCheckpoint" not in r["labels"]
    )
    rels = sorted(
        (r["type"], r["source"], r["target"], json.dumps(r["props"], sort_keys=True))
        for r in store.rows("bulk/relationships")
    )
    return nodes, rels


def cited_ids_unlike_the_edges(graph: tuple[list, list]) -> dict:
    """The papers of a :func:`dump` whose ``cited_ids`` is not the sorted ids of their CITES
    edges (unset when none), with what they hold and what their edges say."""
    nodes, rels = graph
    edges: dict[str, list[str]] = {}
    for kind, source, target, _ in rels:
        if kind == "CITES":
            edges.setdefault(source, []).append(target)
    papers = (json.loads(props) for labels, props in nodes if "Paper" in labels)
    return {
        p["id"]: (p.get("cited_ids"), sorted(edges.get(p["id"], [])) or None)
        for p in papers
        if p.get("cited_ids") != (sorted(edges.get(p["id"], [])) or None)
    }


def snapshot(store, papers: tuple[str, ...]) -> dict:
    return {
        "labels": [r for r in store.run("stats/labels") if r["label"] != "IngestCheckpoint"],
        "relationships": store.run("stats/relationships"),
        "degrees": store.run("stats/citation_degrees"),
        "papers": [
            [
                {
                    **r,
                    "fields": sorted(r["fields"]),
                    "categories": sorted(r["categories"]),
                    "authors": sorted(r["authors"]),
                }
                for r in store.run("paper", id=i)
            ]
            for i in papers
        ],
        "graph": dump(store),
    }


def stream_then_bulk(
    server,
    store,
    format_name: str,
    paths: list[Path],
    options: IngestOptions = IngestOptions(),
    papers: tuple[str, ...] = (),
):
    """Ingest ``paths`` both ways into fresh databases; returns both summaries and snapshots
    (with the ``paper`` query's answer for ``papers``). Both run on the same day, so
    their papers' ``ingested`` dates are compared with the rest."""
    fmt = formats.get(format_name)
    options = on(RUN_DAY, options)
    streamed = ingest(store, fmt, paths, options)
    expected = snapshot(store, papers)
    server.recreate_database()
    bulk = bulk_ingest(ArcadeDBBackend(server), store, fmt, paths, options)
    return streamed, bulk, expected, snapshot(store, papers)


def assert_same(streamed, bulk, expected, got) -> None:
    assert not cited_ids_unlike_the_edges(expected["graph"])
    assert got["labels"] == expected["labels"]
    assert got["relationships"] == expected["relationships"]
    assert got["degrees"] == expected["degrees"]
    assert got["papers"] == expected["papers"]
    assert got["graph"][0] == expected["graph"][0]
    assert got["graph"][1] == expected["graph"][1]
    assert bulk.eligibility == streamed.eligibility
    assert (bulk.lines, bulk.rejected) == (streamed.lines, streamed.rejected)
    for name in ("citations", "self_citations", "records"):
        assert getattr(bulk.write, name) == getattr(streamed.write, name), name
    # stubs left: the streaming ingest also counts stubs made and upgraded between batches
    assert bulk.write.external_created == streamed.write.external_created - streamed.write.external_upgraded
    assert bulk.external_dropped == streamed.external_dropped


def sql(server, command: str) -> dict:
    """An ArcadeDB SQL command over its HTTP API: schema introspection Bolt does not offer."""
    token = base64.b64encode(f"{USER}:{server.password()}".encode()).decode()
    request = urllib.request.Request(
        f"http://{HOST}:{server.status().http_port}/api/v1/command/{DATABASE}",
        data=json.dumps({"language": "sql", "command": command}).encode(),
        headers={"Authorization": f"Basic {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return {"error": exc.code, "detail": exc.read().decode()}


# -- the same graph as the streaming ingest ---------------------------------------------
@pytest.mark.parametrize("external", ["keep", "drop"])
def test_s2orc_sample(arcade_server, store, external):
    streamed, bulk, expected, got = stream_then_bulk(
        arcade_server, store, "s2orc", [shared(S2ORC)], IngestOptions(external=external), ("2871678", "77490025")
    )
    assert_same(streamed, bulk, expected, got)
    labels = {r["label"]: r["count"] for r in got["labels"]}
    assert labels["Paper"] == 1000 + (6049 if external == "keep" else 0)
    if external == "keep":
        assert got["papers"][0][0]["citation_count"] == 297 and got["relationships"][0]["count"] == 6058
    assert bulk.eligibility["with_abstract"] == 488


def test_bundled_acl200(arcade_server, store):
    streamed, bulk, expected, got = stream_then_bulk(
        arcade_server, store, "acl200", [ACL200], papers=("P07-2045", "D09-1001")
    )
    assert_same(streamed, bulk, expected, got)
    assert store.run("most_cited", limit=1)[0]["id"] == "P07-2045"
    assert got["papers"][0][0]["citation_count"] == 571
    assert got["relationships"] == [{"type": "CITES", "count": 32865}]


def test_synthetic_corpus_with_contexts(arcade_server, store, tmp_path):
    path = tmp_path / "synth.jsonl"
    generate(SynthSpec(papers=1000, contexts=True, seed=3), path)
    streamed, bulk, expected, got = stream_then_bulk(
        arcade_server, store, "jsonl", [path], papers=("S0000001", "S0000500", "S0001000")
    )
    assert_same(streamed, bulk, expected, got)
    cites = [r for r in got["graph"][1] if r[0] == "CITES"]
    with_contexts = [json.loads(r[3]) for r in cites if "contexts" in json.loads(r[3])]
    assert len(with_contexts) == len(cites) > 5_000
    assert all(len(p["contexts"]) == p["n_contexts"] and "[CIT]" in p["contexts"][0] for p in with_contexts)


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["s2orc", "openalex"])
def test_the_20k_synthetic_corpus(arcade_server, store, tmp_path, layout):
    """The benchmark's corpus at 20k papers / 197k citations, as S2ORC metadata and as an
    OpenAlex snapshot (gzipped parts, inverted abstracts, topics): DuckDB's build at scale."""
    path = tmp_path / "synth"
    (generate if layout == "s2orc" else generate_openalex)(SynthSpec(papers=20_000), path)
    streamed, bulk, expected, got = stream_then_bulk(arcade_server, store, layout, [path])
    assert_same(streamed, bulk, expected, got)
    labels = {r["label"]: r["count"] for r in got["labels"]}
    assert bulk.write.citations > 190_000 and labels["Paper"] >= 20_000


def test_bundled_taxonomy(arcade_server, store):
    streamed, bulk, expected, got = stream_then_bulk(arcade_server, store, "taxonomy", [TAXONOMY])
    assert_same(streamed, bulk, expected, got)
    types = {r["type"] for r in got["relationships"]}
    assert types == {"BROADER", "MAPS_TO"}
    assert any(json.loads(props).get("alt_labels") == [] for _, props in got["graph"][0])  # empty lists survive


MERGED = [
    {
        "id": "P1",
        "title": "First",
        "abstract": "An abstract long enough to pass the prefilter.",
        "year": 2000,
        "fields": ["Physics"],
        "authors": ["Ada Lovelace", {"id": "A7", "name": "Alan"}],
        "references": [{"id": "P2", "contexts": ["c1 [CIT]"], "sections": ["Intro"]}, "P3", "P1"],
    },
    {"id": "P2", "title": "Two", "references": [{"id": "P1", "contexts": ["back [CIT]"]}]},
    {
        "id": "P1",
        "year": 2001,
        "venue": "V",
        "fields": ["Biology"],
        "categories": ["cs.CL"],
        "authors": [{"id": "A7", "name": "Alan Turing"}, "Ada Lovelace", "Ada Lovelace"],
        "references": [{"id": "P2", "contexts": ["c2 [CIT]"]}, {"id": "P3", "sections": ["Method"]}],
    },
    {"id": "X", "references": ["P3", "Q", "P1"]},
    {"id": "P3", "title": "Three, once a stub"},
]


@pytest.mark.parametrize("external", ["keep", "drop"])
def test_repeated_records_merge_as_the_streaming_merges_do(arcade_server, store, tmp_path, external):
    path = write_jsonl(tmp_path / "merged.jsonl", MERGED)
    options = IngestOptions(batch_size=1, external=external)  # the streaming ingest: one record a transaction
    streamed, bulk, expected, got = stream_then_bulk(
        arcade_server, store, "jsonl", [path], options, ("P1", "P2", "P3", "Q")
    )
    assert_same(streamed, bulk, expected, got)
    p1 = store.run("paper", id="P1")[0]
    assert (p1["title"], p1["year"], p1["venue"], p1["citation_count"]) == ("First", 2001, "V", 2)
    assert sorted(p1["fields"]) == ["Biology", "Physics"] and p1["authors"].count("Alan") == 1
    cites = {(s, t): json.loads(p) for kind, s, t, p in got["graph"][1] if kind == "CITES"}
    assert cites[("P1", "P2")] == {"contexts": ["c2 [CIT]"], "sections": ["Intro"], "n_contexts": 1}
    assert cites[("P1", "P3")] == {"sections": ["Method"]}
    wrote = {s: json.loads(p)["position"] for kind, s, t, p in got["graph"][1] if kind == "WROTE" and t == "P1"}
    assert wrote == {"name:ada lovelace": 2, "A7": 0}
    assert ("X", "Q") in cites if external == "keep" else "Q" not in {t for _, t in cites}
    assert bulk.write.self_citations == 1


def ingested(store) -> dict[str, str | None]:
    return {
        p["id"]: p.get("ingested")
        for labels, p in ((r["labels"], r["props"]) for r in store.rows("bulk/nodes"))
        if "Paper" in labels
    }


def test_the_run_date_is_stamped_alike_by_every_write_path(arcade_server, store, tmp_path):
    """Papers get the date of the run that made them full papers (P3: a stub first, upgraded
    in a later batch), stubs none; on the same day both paths build the same graph, on
    another day they differ in ``ingested`` only, which the comparison does see."""
    path = write_jsonl(tmp_path / "merged.jsonl", MERGED)
    ingest(store, formats.get("jsonl"), [path], on(RUN_DAY, IngestOptions(batch_size=1)))
    day = RUN_DAY.isoformat()
    assert ingested(store) == {"P1": day, "P2": day, "P3": day, "X": day, "Q": None}
    streamed = dump(store)
    for bulk_day, same in ((RUN_DAY, True), (date(2024, 3, 2), False)):
        arcade_server.recreate_database()
        bulk_ingest(ArcadeDBBackend(arcade_server), store, formats.get("jsonl"), [path], on(bulk_day))
        assert (dump(store) == streamed) is same
        assert json.loads(json.dumps(dump(store)).replace(bulk_day.isoformat(), day)) == json.loads(
            json.dumps(streamed)
        )

    export = export_neo4j_admin(formats.get("jsonl"), [path], tmp_path / "csv", on(RUN_DAY))
    csv_files = {labels: (read_csv(h)[0], read_parts(d)) for labels, h, d in export.nodes}
    header, rows = csv_files["Paper"]
    assert {row[header.index("id")]: row[header.index("ingested")] for row in rows} == {
        "P1": day,
        "P2": day,
        "P3": day,
        "X": day,
    }
    assert "ingested" not in csv_files["Paper:External"][0]


# -- what the bulk path refuses -----------------------------------------------------------
def test_bad_input_stops_before_anything_is_loaded(arcade_server, store, tmp_path):
    rows = [{"id": f"P{i}", "references": [f"P{i - 1}"]} for i in range(1, 500)]
    rows.insert(400, '{"id": "BAD", "year": [2000]}')
    path = write_jsonl(tmp_path / "c.jsonl", rows)
    with pytest.raises(InputError, match=r"c.jsonl:401: field 'year' expected an integer"):
        bulk_ingest(ArcadeDBBackend(arcade_server), store, formats.get("jsonl"), [path])
    assert store.run("stats/labels") == [] and store.run("stats/relationships") == []
    assert not list(arcade_server.home.glob("bulk-*")), "the work folder is removed"


def test_skip_bad_lists_the_rejects_and_loads_the_rest(arcade_server, store, tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": "P1"}, '{"id": 7.5}', "{oops", {"id": "P2", "references": ["P1"]}])
    rejects = tmp_path / "rejects.jsonl"
    summary = bulk_ingest(
        ArcadeDBBackend(arcade_server),
        store,
        formats.get("jsonl"),
        [path],
        IngestOptions(skip_bad=True, rejects=rejects),
    )
    assert summary.rejected == 2 and summary.rejects_file == rejects
    assert [(r["line"], r["field"]) for r in map(json.loads, rejects.read_text().splitlines())] == [
        (2, "id"),
        (3, None),
    ]
    assert {r["type"]: r["count"] for r in store.run("stats/relationships")} == {"CITES": 1}


def test_papers_without_citations(arcade_server, store, tmp_path):
    path = write_jsonl(tmp_path / "lone.jsonl", [{"id": "P", "title": "Alone"}])
    summary = bulk_ingest(ArcadeDBBackend(arcade_server), store, formats.get("jsonl"), [path])
    assert (summary.write.nodes_created, summary.write.relationships_created) == (1, 0)
    assert store.run("paper", id="P")[0]["citation_count"] == 0


def test_a_graph_with_nodes_is_refused(arcade_server, store, tmp_path):
    path = write_jsonl(tmp_path / "a.jsonl", [{"id": "A", "references": ["B"]}])
    ingest(store, formats.get("jsonl"), [path])
    before = dump(store)
    with pytest.raises(CitegraphError, match="empty graph only"):
        bulk_ingest(ArcadeDBBackend(arcade_server), store, formats.get("jsonl"), [path])
    assert dump(store) == before


def type_indexes(server) -> list[tuple]:
    """The indexes of types (not those of their buckets): name, type, keys, key types, unique."""
    found = sql(server, "select from schema:indexes")["result"]
    return sorted(
        (i["name"], i["typeName"], i["properties"], i["keyTypes"], i["unique"]) for i in found if "fileId" not in i
    )


# -- the loaded graph behaves as an ingested one --------------------------------------------
def test_schema_checkpoints_and_a_later_streaming_ingest(arcade_server, store, tmp_path):
    path = write_jsonl(tmp_path / "merged.jsonl", MERGED)
    ingest(store, formats.get("jsonl"), [path])
    indexes = type_indexes(arcade_server)
    arcade_server.recreate_database()
    bulk_ingest(ArcadeDBBackend(arcade_server), store, formats.get("jsonl"), [path])
    got = type_indexes(arcade_server)
    assert [i[:3] + i[4:] for i in got] == [i[:3] + i[4:] for i in indexes]
    assert ("Paper[id]", "Paper", [["id"]], ["STRING"], True) in got
    # ArcadeDB keys an index by the type of the values present when it is built: year,
    # citation_count and eligible (decided while building) are loaded before it
    assert {i[0]: i[3] for i in got if i[0].startswith("paper_")} == {
        "paper_citation_count": ["INTEGER"],
        "paper_eligible": ["BOOLEAN"],
        "paper_year": ["INTEGER"],
    }
    duplicate = sql(arcade_server, "INSERT INTO Paper SET id = 'P1'")
    assert duplicate.get("error") and "Duplicated key" in duplicate["detail"]
    assert ingest(store, formats.get("jsonl"), [path]).skipped_files == [str(path)]  # marked ingested
    more = write_jsonl(tmp_path / "more.jsonl", [{"id": "Q", "title": "Now known", "references": ["P1"]}])
    ingest(store, formats.get("jsonl"), [more])
    q, p1 = store.run("paper", id="Q")[0], store.run("paper", id="P1")[0]
    assert (q["external"], q["title"], p1["citation_count"]) == (False, "Now known", 3)
    labels = {r["label"]: r["count"] for r in store.run("stats/labels")}
    assert (labels["Paper"], labels.get("External", 0)) == (5, 0)


def test_an_openalex_update_streamed_after_a_bulk_load(arcade_server, store, tmp_path):
    """Incremental updates on a bulk-loaded graph: the older partition loaded in bulk, the
    newer one (restated works, a merged id) streamed after it, gives the graph of both streamed."""
    from test_ingest_openalex import merges, update_partition
    from test_ingest_openalex import snapshot as openalex_snapshot

    initial, changed, _ = update_partition()
    fmt = formats.get("openalex")
    openalex_snapshot(tmp_path / "old", {"2024-01-15": initial})
    openalex_snapshot(tmp_path / "new", {"2024-02-01": changed})
    merges(tmp_path / "new")
    old, new = [tmp_path / "old" / "data"], [tmp_path / "new" / "data"]
    ingest(store, fmt, old, on(RUN_DAY))
    ingest(store, fmt, new, on(RUN_DAY))
    expected = snapshot(store, ("W2963403868", "W2130942839"))
    arcade_server.recreate_database()
    bulk_ingest(ArcadeDBBackend(arcade_server), store, fmt, old, on(RUN_DAY))
    ingest(store, fmt, new, on(RUN_DAY))
    assert snapshot(store, ("W2963403868", "W2130942839")) == expected


def test_the_build_runs_under_its_memory_limit_and_refuses_a_bad_one(tmp_path):
    fmt, files = formats.get("s2orc"), [shared(S2ORC)]
    graph, _ = build(fmt, files, IngestOptions(), NoProgress(), IngestSummary("s2orc"), tmp_path, memory="300MB")
    with BuiltGraph.open(tmp_path).connect() as con:
        [(limit,)] = con.execute("SELECT current_setting('memory_limit')").fetchall()
        tables = {name for (name,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert limit == "286.1 MiB" and {"vertex", "edge"} <= tables  # 300 MB, as DuckDB prints it
    assert graph.manifest["counts"]["paper"] == 1000 and not list(tmp_path.glob("papers.jsonl"))
    for memory, threads in (("200MB", 1), ("2GB", min(os.cpu_count() or 1, 14))):  # 128 MiB a thread
        with connect(tmp_path, memory) as con:
            assert con.execute("SELECT current_setting('threads')").fetchall() == [(threads,)]
    (tmp_path / "again").mkdir()
    with pytest.raises(CitegraphError, match="memory limit 'lots'"):
        build(fmt, files, IngestOptions(), NoProgress(), IngestSummary("s2orc"), tmp_path / "again", memory="lots")


def wide_contexts(path: Path) -> Path:
    """3,000 papers, each citing the next with 2 kB of citation contexts: the build carries the
    contexts as they are and runs under 70MB; the CSV export parses them 2,048 at a time and
    needs 250MB (200MB ran out; DuckDB 2.0.1)."""
    context = "cited as [CIT] in a sentence of some length. " * 50
    rows = [
        {
            "id": f"P{i}",
            "title": f"Paper {i}",
            "year": 2000,
            "references": [{"id": f"P{(i + 1) % 3000}", "contexts": [context]}],
        }
        for i in range(3000)
    ]
    return write_jsonl(path, rows)


@pytest.mark.parametrize(
    ("memory", "phase"), [("16MB", "building the graph"), ("100MB", "writing the CSV parts of cites_with_contexts")]
)
def test_running_out_of_memory_is_one_line_and_leaves_no_export(tmp_path, memory, phase):
    """DuckDB's own error is a traceback ending in SQL settings the user cannot reach; the CLI
    says it in one line with the option that helps, and leaves no export that looks complete."""
    out = tmp_path / "out"
    args = ["export", "neo4j-admin", "jsonl", str(wide_contexts(tmp_path / "wide.jsonl")), "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--build-memory", memory, "--no-progress"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    [line] = result.output.splitlines()
    assert f"ran out of its memory limit, {memory}, while {phase}" in line
    assert "--build-memory" in line and f"spills to disk under {out}" in line
    assert "import full" not in result.output and not list(out.iterdir())


def test_running_out_of_memory_in_the_load_says_so(arcade_server, store, tmp_path):
    """The loader process reads the built graph through DuckDB under the same limit: its
    error reaches the user as the same one line, not as the loader's traceback or log."""
    corpus = wide_contexts(tmp_path / "wide.jsonl")
    with pytest.raises(ServerError) as failed:
        bulk_ingest(ArcadeDBBackend(arcade_server), store, formats.get("jsonl"), [corpus], memory="80MB")
    (arcade_server.home / BULK_MARKER).unlink()  # left as after any failed load: the graph is half-loaded
    said = str(failed.value)
    assert "ran out of its memory limit, 80MB, while reading the graph for the load" in said
    assert "--build-memory" in said and "recreate it" in said and "\n" not in said  # one line, no JVM log


# -- neo4j-admin CSV files ------------------------------------------------------------------
def read_csv(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def read_parts(parts: list[Path]) -> list[list[str]]:
    """The rows of a label's or a type's CSV parts, in part order."""
    return [row for part in parts for row in read_csv(part)]


def imported(export) -> tuple[dict[str, list[list[str]]], dict[tuple[str, str], list[list[str]]]]:
    """What neo4j-admin makes of an export: each label set's rows without their import ID, and
    each relationship file's rows (keyed by type and last column) with both ends' import IDs
    resolved, in their ID spaces, to the nodes' keys (a KeyError: an end no node file has)."""
    keys, nodes = {}, {}
    for labels, header, parts in export.nodes:
        space = re.fullmatch(r":ID\((\w+)\)", read_csv(header)[0][0]).group(1)
        nodes[labels] = [row[1:] for row in read_parts(parts)]
        keys.update(((space, row[0]), row[1]) for row in read_parts(parts))
    relationships = {}
    for kind, header, parts in export.relationships:
        columns = read_csv(header)[0]
        start, end = (re.search(r"\((\w+)\)", c).group(1) for c in columns[:2])
        relationships[(kind, columns[-1])] = [
            [keys[(start, row[0])], keys[(end, row[1])], *row[2:]] for row in read_parts(parts)
        ]
    return nodes, relationships


TRICKY = [
    {
        "id": "P,1",
        "title": 'He said "quoted", then\nleft; twice',
        "abstract": "multi\r\nline, with \\ backslash",
        "year": 1999,
        "authors": ["Zoë Ölmez", {"id": 'A"1', "name": 'Quote "Q" Person'}],
        "references": [
            {"id": "P2", "contexts": ['one; "two", three', "line\nbreak [CIT]"], "sections": ["A, B"]},
            "ghost",
        ],
    },
    {"id": "P2", "title": "日本語のタイトル", "fields": ["Computer Science"], "categories": ["cs.CL"]},
]


def test_neo4j_admin_files_parse_back(tmp_path):
    path = write_jsonl(tmp_path / "tricky.jsonl", TRICKY)
    export = export_neo4j_admin(formats.get("jsonl"), [path], tmp_path / "out", database="citations")
    headers = {labels: read_csv(header) for labels, header, _ in export.nodes}
    assert headers["Paper"] == [
        [
            ":ID(Paper)",
            "id",
            "title",
            "abstract",
            "year:long",
            "venue",
            "doi",
            "arxiv_id",
            "retracted:boolean",
            "full_text",
            "keywords:string[]",
            "citation_count:long",
            "cited_ids:string[]",
            "ingested",
            "venue_type",
        ]
    ]
    assert headers["Paper:External"] == [[":ID(Paper)", "id", "citation_count:long", "cited_ids:string[]"]]
    files, relationships = imported(export)
    papers = {row[0]: row for row in files["Paper"]}
    assert papers["P,1"][1:4] == ['He said "quoted", then\nleft; twice', "multi\r\nline, with \\ backslash", "1999"]
    assert papers["P2"][1] == "日本語のタイトル" and papers["P2"][3] == "" and papers["P2"][10] == "1"
    assert papers["P,1"][11].split(ARRAY_DELIMITER) == ["P2", "ghost"] and papers["P2"][11] == ""
    assert files["Paper:External"] == [["ghost", "1", ""]]
    assert sorted(files["Author"]) == [['A"1', 'Quote "Q" Person'], ["name:zoë ölmez", "Zoë Ölmez"]]
    [cites] = relationships[("CITES", "influential:boolean")]
    assert cites[:2] == ["P,1", "P2"]
    assert cites[2].split(ARRAY_DELIMITER) == ['one; "two", three', "line\nbreak [CIT]"]
    assert (cites[3], cites[4]) == ("A, B", "2")
    assert relationships[("CITES", ":END_ID(Paper)")] == [["P,1", "ghost"]]
    assert sorted(relationships[("WROTE", "position:long")]) == [['A"1', "P,1", "1"], ["name:zoë ölmez", "P,1", "0"]]
    command = export.command
    assert command[:5] == ["neo4j-admin", "database", "import", "full", "citations"]
    assert "--array-delimiter=U+001F" in command and "--multiline-fields=true" in command
    assert "--id-type=integer" in command
    groups = [c.split("=", 2) for c in command if c.startswith(("--nodes=", "--relationships="))]
    assert {label for _, label, _ in groups} == {
        "Paper",
        "Paper:External",
        "Author",
        "Field",
        "ArxivCategory",
        "CITES",
        "WROTE",
        "IN_FIELD",
        "IN_CATEGORY",
    }
    assert all(Path(f).is_absolute() and Path(f).is_file() for _, _, files in groups for f in files.split(","))
    assert export.command_line.startswith("neo4j-admin database import full citations ")
    assert not list((tmp_path / "out").glob("bulk-*"))


def test_neo4j_admin_counts_match_the_sample(tmp_path):
    export = export_neo4j_admin(formats.get("s2orc"), [shared(S2ORC)], tmp_path / "out")
    rows = {labels: len(read_parts(data)) for labels, _, data in export.nodes}
    assert (rows["Paper"], rows["Paper:External"]) == (1000, 6049)
    cites = sum(len(read_parts(data)) for kind, _, data in export.relationships if kind == "CITES")
    assert cites == 6058  # as test_ingest's streaming graph
    fields = sum(len(read_parts(data)) for kind, _, data in export.relationships if kind == "IN_FIELD")
    assert fields == sum(len(json.loads(line)["mag_field_of_study"] or []) for line in shared(S2ORC).open())


def test_neo4j_admin_writes_several_parts_per_label_and_type(tmp_path):
    """DuckDB begins a part once one holds part_bytes, between chunks of 2,048 rows."""
    export = export_neo4j_admin(formats.get("s2orc"), [shared(S2ORC)], tmp_path / "out", part_bytes=20_000)
    parts = {labels: data for labels, _, data in export.nodes}
    assert len(parts["Paper:External"]) > 1 and len(read_parts(parts["Paper"])) == 1000
    assert len({row[1] for row in read_parts(parts["Paper:External"])}) == 6049
    cites = [data for kind, _, data in export.relationships if kind == "CITES"]
    assert sum(len(read_parts(data)) for data in cites) == 6058 and max(map(len, cites)) > 1
    given = {c.split("=", 2)[1]: c.split("=", 2)[2].split(",") for c in export.command if c.startswith("--nodes=")}
    assert given["Paper:External"][1:] == [str(f) for f in parts["Paper:External"]]


def test_the_csv_export_runs_under_a_small_memory_limit(tmp_path):
    """3,000 papers with abstracts (one DuckDB thread: fewer rows than a row group) under
    100 MB: each column's own json_extract of a paper's row needed more than 400 MB."""
    path = tmp_path / "synth.jsonl"
    generate(SynthSpec(papers=3000), path)
    export = export_neo4j_admin(formats.get("s2orc"), [path], tmp_path / "out", memory="100MB")
    papers = read_parts(next(data for labels, _, data in export.nodes if labels == "Paper"))
    assert len(papers) == 3000 and all(row[3] for row in papers)  # every abstract exported


@pytest.mark.slow
def test_the_csv_export_runs_under_a_small_memory_limit_past_its_first_part(tmp_path):
    """50,000 papers (70 MB of CSV) in parts of 30 MB under 100MB. DuckDB keeps a buffer for
    every batch written into a part after the first until that part is closed, about 1.35x the
    part's bytes: 1 GiB parts ran out of 250MB at 2M papers, the first size whose papers need
    a second part; 30 MB ones run out of 100MB here."""
    path = tmp_path / "synth.jsonl"
    generate(SynthSpec(papers=50_000), path)
    export = export_neo4j_admin(formats.get("s2orc"), [path], tmp_path / "out", memory="100MB", part_bytes=30_000_000)
    papers = next(data for labels, _, data in export.nodes if labels == "Paper")
    assert len(papers) > 2 and len(read_parts(papers)) == 50_000


def test_the_array_delimiter_in_a_text_is_refused(tmp_path):
    path = write_jsonl(tmp_path / "bad.jsonl", [{"id": "P", "references": [{"id": "Q", "contexts": ["a\u001fb"]}]}])
    with pytest.raises(CitegraphError, match="U\\+001F"):
        export_neo4j_admin(formats.get("jsonl"), [path], tmp_path / "out")


# -- one graph model behind every write path ------------------------------------------------
@dataclass(frozen=True, slots=True)
class PaperWithLanguage(Paper):
    """A record as a reader that adds a Paper property would give it."""

    language: str | None = None


class JsonlWithLanguage(Format):
    """citegraph's generic JSONL, with each paper's 'language' carried into its record."""

    def read(self, file: Path, selection: Selection = Selection()):
        languages = [json.loads(line).get("language") for line in file.open(encoding="utf-8")]
        for item in super().read(file, selection):
            if isinstance(item.record, Paper):
                record = PaperWithLanguage(
                    **{f: getattr(item.record, f) for f in Paper.__dataclass_fields__},
                    language=languages[item.where.line - 1],
                )
                item = Item(item.where, record)
            yield item


def test_a_property_added_to_the_model_arrives_through_every_write_path(arcade_server, store, tmp_path, monkeypatch):
    path = write_jsonl(
        tmp_path / "lang.jsonl",
        [
            {"id": "P1", "title": "Grammaire", "language": "fr", "references": ["P2", "ghost"]},
            {"id": "P2", "title": "Grammar", "language": "en"},
            {"id": "P3", "references": ["P1"]},
        ],
    )
    fmt = JsonlWithLanguage("jsonl", "generic JSONL with a language", "generic")
    assert "language" not in {p.name for p in model.GRAPH.node("Paper").properties}
    monkeypatch.setattr(model, "GRAPH", model.GRAPH.with_property("Paper", model.Property("language")))
    expected = {"P1": "fr", "P2": "en", "P3": None}

    def languages() -> dict:
        return {
            p["id"]: p.get("language")
            for labels, p in ((r["labels"], r["props"]) for r in store.rows("bulk/nodes"))
            if labels == ["Paper"]
        }

    streamed = ingest(store, fmt, [path])
    assert languages() == expected
    streamed_graph = dump(store)
    arcade_server.recreate_database()
    bulk = bulk_ingest(ArcadeDBBackend(arcade_server), store, fmt, [path])
    assert languages() == expected and dump(store) == streamed_graph
    assert bulk.write.records == streamed.write.records == {"Paper": 3}

    export = export_neo4j_admin(fmt, [path], tmp_path / "csv")
    [(header, rows)] = [(read_csv(h)[0], read_parts(d)) for labels, h, d in export.nodes if labels == "Paper"]
    assert header[-1] == "language" and header == model.GRAPH.node("Paper").columns()
    assert {row[1]: row[-1] or None for row in rows} == expected
    [(stub_header, stubs)] = [
        (read_csv(h)[0], read_parts(d)) for labels, h, d in export.nodes if labels == "Paper:External"
    ]
    assert stub_header == [":ID(Paper)", "id", "citation_count:long", "cited_ids:string[]"]
    assert [row[1:] for row in stubs] == [["ghost", "1", ""]]


RECORDS_THEN_INDEX = """
import sys, arcadedb_embedded as arcadedb, jpype
db = arcadedb.create_database(sys.argv[1])
schema = db.get_java_database().getSchema()
schema.buildDocumentType().withName("Doc").withTotalBuckets(1).create().createProperty(
    "key", jpype.JClass("com.arcadedb.schema.Type").STRING)
db.begin()
for i in range(int(sys.argv[2])):
    db.command("sql", "INSERT INTO Doc SET key = ?", f"k{i:05d}")
db.commit()
schema.buildTypeIndex("Doc", jpype.JArray(jpype.JString)(["key"])).withType(
    jpype.JClass("com.arcadedb.schema.Schema$INDEX_TYPE").LSM_TREE).withUnique(True).create()
db.close()
"""

FOUND = """
import sys, arcadedb_embedded as arcadedb
db = arcadedb.open_database(sys.argv[1])
keys = [f"k{i:05d}" for i in range(0, int(sys.argv[2]), 7)]
print(sum(len(list(db.query("sql", "SELECT key FROM Doc WHERE key = ?", k))) for k in keys), len(keys))
db.close()
"""


@pytest.mark.server  # ArcadeDB's engine in child processes: a JVM
def test_the_compaction_merges_an_index_built_over_loaded_records_and_keeps_every_key(tmp_path):
    """An index created over records already loaded (as the bulk path's schema is) keeps its
    entries in several mutable pages, each searched by a lookup; the compaction run after a
    bulk load merges them, and every key is still found once through the index."""
    database, records = str(tmp_path / "db" / "compacted"), "60000"
    subprocess.run([sys.executable, "-c", RECORDS_THEN_INDEX, database, records], check=True, cwd=tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "citegraph.ingest.bulk.arcadedb_compaction", database, ""],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    [(index, (before, after))] = json.loads(done.stdout.splitlines()[-1]).items()
    assert index.startswith("Doc_") and before > after, (before, after)
    found = subprocess.run(
        [sys.executable, "-c", FOUND, database, records], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    hits, asked = map(int, found.stdout.split())
    assert hits == asked == 8572
