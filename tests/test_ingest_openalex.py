"""The OpenAlex works reader on hand-written records of the real snapshot schema
(https://docs.openalex.org/api-entities/works/work-object), laid out as the snapshot is
(https://docs.openalex.org/download-all-data/snapshot-data-format)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.errors import CitegraphError, InputError
from citegraph.ingest import IngestOptions, get, ingest
from citegraph.ingest.selection import Selection, topic_key
from citegraph.ingest.source import BadField
from citegraph.ingest.sources.openalex import abstract, files, parse

FIXTURE = Path(__file__).parent / "fixtures" / "openalex" / "works.jsonl"


def works() -> list[dict]:
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


def snapshot(root: Path, partitions: dict[str, list[dict]]) -> Path:
    """``root/data/works/updated_date=D/part_000.gz`` per partition, and the manifest."""
    works_dir = root / "data" / "works"
    entries = []
    for date, rows in partitions.items():
        part = works_dir / f"updated_date={date}" / "part_000.gz"
        part.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(part, "wt", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
        entries.append(
            {
                "url": f"s3://openalex/data/works/updated_date={date}/part_000.gz",
                "meta": {"content_length": part.stat().st_size, "record_count": len(rows)},
            }
        )
    (works_dir / "manifest").write_text(json.dumps({"entries": entries}), encoding="utf-8")
    return works_dir


def by_id() -> dict:
    return {p.id: p for w in works() for p in parse(w)}


def test_a_full_work():
    paper = by_id()["W2963403868"]
    assert paper.title == "Attention Is All You Need" and paper.year == 2017
    assert paper.doi == "10.48550/arxiv.1706.03762" and paper.arxiv_id == "1706.03762"
    assert paper.venue == "arXiv (Cornell University)"
    assert paper.fields == ("Computer Science",)  # level-0 only, in MAG's casing
    assert [(a.id, a.name) for a in paper.authors] == [
        ("A5017004478", "Ashish Vaswani"),
        ("A5032779934", "Noam Shazeer"),
        ("A5063224311", "Illia Polosukhin"),
    ]
    assert [r.cited_id for r in paper.references] == ["W1902237438", "W2130942839", "W9999999991"]
    # "The" stands at positions 0 and 8
    assert paper.abstract == "The dominant sequence transduction models are based on The attention."


def test_awkward_works():
    papers = by_id()
    assert papers["W1902237438"].abstract is None and papers["W1902237438"].venue.startswith("Proceedings")
    lstm = papers["W2130942839"]
    assert lstm.year is None and lstm.abstract is None  # an empty inverted index is no abstract
    assert lstm.references == ()  # its self-reference is dropped
    assert lstm.fields == ("Computer Science", "Medicine")
    assert lstm.authors[1].id == "name:jürgen schmidhuber"  # an authorship without an author id
    assert papers["W3000000002"].arxiv_id == "2101.00001"  # from the arXiv DOI alone


def test_topics_as_their_own_tree():
    papers = by_id()
    links = papers["W2963403868"].topics
    assert [(t.topic_id, t.score, t.primary) for t in links] == [
        ("T10181", 0.9987, True),
        ("T10028", 0.9712, False),
        ("T11714", 0.9523, False),
    ]
    assert [(n.id, n.name, n.level, n.broader) for n in links[0].lineage] == [
        ("domains/3", "Physical Sciences", "domain", None),
        ("fields/17", "Computer Science", "field", "domains/3"),
        ("subfields/1702", "Artificial Intelligence", "subfield", "fields/17"),
        ("T10181", "Natural Language Processing Techniques", "topic", "subfields/1702"),
    ]
    # the Topic object's numeric ids read as a work's URLs do; a topic listed twice counts once
    [lstm] = papers["W2130942839"].topics
    assert [n.id for n in lstm.lineage] == ["domains/3", "fields/17", "subfields/1702", "T10320"]
    assert (lstm.score, lstm.primary) == (0.9951, True)
    assert papers["W1902237438"].topics == ()  # topics [] and primary_topic null
    # topics, but primary_topic null: none is primary
    assert [(t.topic_id, t.primary) for t in papers["W3000000001"].topics] == [("T13702", False)]
    [preprint] = papers["W3000000002"].topics  # no topics list: the primary topic alone
    assert (preprint.topic_id, preprint.primary) == ("T11307", True)
    # OpenAlex's field "Medicine" is a topic tree node, apart from the MAG field of that name
    assert papers["W3000000001"].fields == ("Medicine",)
    assert papers["W3000000001"].topics[0].lineage[1].id == "fields/27"


def test_topic_selection_by_id_or_name_at_any_level():
    def kept(*topics):
        selection = Selection(topics=frozenset(map(topic_key, topics)))
        return sorted(p.id for w in works() for p in parse(w, selection))

    computing = ["W2130942839", "W2963403868", "W3000000002"]
    assert kept("computer  science") == kept("https://openalex.org/fields/17") == computing
    assert kept("Physical Sciences") == kept("domains/3") == computing
    assert kept("subfields/1707") == kept("Multimodal Machine Learning Applications") == ["W2963403868"]
    assert kept("T10320", "Medicine") == ["W2130942839", "W3000000001"]  # any of them
    assert kept("17") == [] and kept("Medicine (miscellaneous)") == ["W3000000001"]  # ids keep their level


@pytest.mark.parametrize(
    "change,field,reason",
    [
        ({"topics": {"id": "T1"}}, "topics", "expected a list"),
        ({"topics": ["T10181"]}, "topics[0]", "expected an object"),
        ({"topics": [{"display_name": "No id"}]}, "topics[0].id", "expected a topic id"),
        ({"primary_topic": {"id": "https://openalex.org/W1"}}, "primary_topic.id", "expected a topic id"),
        ({"topics": [{"id": "T1", "score": "0.9"}]}, "topics[0].score", "expected a number"),
        ({"topics": [{"id": "T1", "score": True}]}, "topics[0].score", "expected a number"),
        ({"topics": [{"id": "T1", "field": "Computer Science"}]}, "topics[0].field", "expected an object"),
        (
            {"topics": [{"id": "T1", "field": {"id": "https://openalex.org/subfields/17"}}]},
            "topics[0].field.id",
            "expected a field id",
        ),
        (
            {"primary_topic": {"id": "T1", "domain": {"id": 3, "display_name": {"en": "x"}}}},
            "primary_topic.domain.display_name",
            "expected a string",
        ),
    ],
)
def test_bad_topics_are_located(change, field, reason):
    with pytest.raises(BadField, match=reason) as raised:
        parse(works()[0] | change)
    assert raised.value.field == field


def test_abstract_gaps_and_bad_positions():
    assert abstract({"b": [2], "a": [0]}) == "a b"
    with pytest.raises(BadField, match="positions"):
        abstract({"a": ["0"]})


def test_selection():
    def kept(selection):
        return sorted(p.id for w in works() for p in parse(w, selection))

    assert kept(Selection(fields=frozenset({"Medicine"}))) == ["W2130942839", "W3000000001"]
    assert kept(Selection(since=2017, until=2020)) == ["W2963403868", "W3000000001"]  # no year: out
    assert kept(Selection(languages=frozenset({"en"}), retracted=False)) == [
        "W1902237438",
        "W2130942839",
        "W2963403868",
        "W3000000002",
    ]
    assert kept(Selection(types=frozenset({"preprint"}))) == ["W3000000002"]
    assert kept(Selection(min_citations=50_000)) == ["W2130942839", "W2963403868"]


def test_snapshot_layout_manifest_and_date_order(tmp_path):
    rows = works()
    works_dir = snapshot(tmp_path, {"2024-02-01": rows[3:], "2023-12-31": rows[:3]})
    expected = [works_dir / "updated_date=2023-12-31/part_000.gz", works_dir / "updated_date=2024-02-01/part_000.gz"]
    assert files(tmp_path) == expected  # any folder above the partitions, oldest first
    assert files(works_dir / "manifest") == expected
    (works_dir / "updated_date=2024-02-01/part_000.gz").unlink()
    with pytest.raises(CitegraphError, match="missing"):
        files(works_dir / "manifest")


def test_bad_reference_is_located(tmp_path):
    row = works()[1]
    row["referenced_works"] = ["https://openalex.org/W1", "not-an-id"]
    path = tmp_path / "part_000.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(json.dumps(works()[0]) + "\n" + json.dumps(row) + "\n")
    problems = [i.problem for i in get("openalex").read(path) if i.problem]
    assert [(p.where.line, p.field) for p in problems] == [(2, "referenced_works[1]")]


def test_formats_without_selection_refuse_one():
    with pytest.raises(CitegraphError, match="applies to: openalex"):
        next(get("s2orc").read(FIXTURE, Selection(since=2000)))


@pytest.mark.slow
def test_snapshot_into_the_graph(store, tmp_path):
    summary = ingest(store, get("openalex"), [snapshot(tmp_path, {"2024-01-15": works()})], IngestOptions())
    assert summary.write.records["Paper"] == 5 and summary.write.external_created == 1
    [paper] = store.run("paper", id="W2963403868")
    assert (paper["title"], paper["year"], paper["references"], paper["fields"]) == (
        "Attention Is All You Need",
        2017,
        3,
        ["Computer Science"],
    )
    assert sorted(paper["authors"]) == ["Ashish Vaswani", "Illia Polosukhin", "Noam Shazeer"]
    [outside] = store.run("paper", id="W9999999991")  # referenced, not in the snapshot
    assert outside["external"] and outside["title"] is None
    assert store.run("paper", id="W2130942839")[0]["citation_count"] == 2
    tree, links = topics(store)
    assert tree["fields/17"] == ("Computer Science", "field", "domains/3")
    assert tree["T10181"] == ("Natural Language Processing Techniques", "topic", "subfields/1702")
    assert tree["domains/4"] == ("Health Sciences", "domain", None)
    assert len(tree) == 2 + 2 + 3 + 6  # domains, fields, subfields, topics
    assert links[("W2963403868", "T10028")] == {"score": 0.9712, "primary": False}
    assert links[("W2963403868", "T10181")] == {"score": 0.9987, "primary": True}
    assert not any(paper == "W1902237438" for paper, _ in links)
    # the MAG field and OpenAlex's topic field of one name are two nodes of two labels
    labels = {r["label"]: r["count"] for r in store.run("stats/labels")}
    assert (labels["Field"], labels["Topic"]) == (2, len(tree))
    assert store.run("stats/topics") == [
        {"level": "domain", "count": 2},
        {"level": "field", "count": 2},
        {"level": "subfield", "count": 3},
        {"level": "topic", "count": 6},
    ]


def topics(store) -> tuple[dict, dict]:
    """The topic tree (id → name, level, the node above) and the IN_TOPIC links ((paper, topic) → properties)."""
    from test_bulk import dump

    nodes, rels = dump(store)
    tree = {
        p["id"]: (p.get("name"), p["level"])
        for labels, p in ((n[0], json.loads(n[1])) for n in nodes)
        if labels == ("Topic",)
    }
    edges = [(s, t) for kind, s, t, _ in rels if kind == "BROADER_TOPIC"]
    above = dict(edges)
    assert len(above) == len(edges), "a node of the tree has two parents"
    return (
        {i: (*node, above.get(i)) for i, node in tree.items()},
        {(s, t): json.loads(p) for kind, s, t, p in rels if kind == "IN_TOPIC"},
    )


@pytest.mark.slow
def test_cli_selection(store, server_env, tmp_path):
    works_dir = snapshot(tmp_path, {"2024-01-15": works()})
    result = CliRunner().invoke(
        main,
        [
            "ingest",
            "openalex",
            str(works_dir),
            "--no-progress",
            "--field",
            "computer science",
            "--since",
            "2014",
            "--no-retracted",
        ],
    )
    assert result.exit_code == 0, result.output
    assert store.run("paper", id="W2963403868")[0]["external"] is False
    assert store.run("paper", id="W3000000001") == []  # retracted and medical: never read
    assert store.run("paper", id="W2130942839")[0]["external"] is True  # no year: only cited


@pytest.mark.slow
def test_cli_topic_selection(store, server_env, tmp_path):
    works_dir = snapshot(tmp_path, {"2024-01-15": works()})
    result = CliRunner().invoke(
        main,
        [
            "ingest",
            "openalex",
            str(works_dir),
            "--no-progress",
            "--topic",
            "https://openalex.org/fields/27",
            "--topic",
            "T10320",
        ],
    )
    assert result.exit_code == 0, result.output
    full = [i for i in sorted(by_id()) if store.run("paper", id=i) and not store.run("paper", id=i)[0]["external"]]
    assert full == ["W2130942839", "W3000000001"]  # the medical work and LSTM's topic; what they cite is stubs


@pytest.mark.slow
def test_bulk_builds_the_streamed_graph(arcade_server, store, tmp_path):
    from test_bulk import assert_same, stream_then_bulk

    works_dir = snapshot(tmp_path, {"2023-12-31": works()[:3], "2024-02-01": works()[3:]})
    streamed, bulk, expected, got = stream_then_bulk(
        arcade_server, store, "openalex", [works_dir], papers=("W2963403868", "W2130942839", "W9999999991")
    )
    assert_same(streamed, bulk, expected, got)
    tree, links = topics(store)
    assert len(tree) == 13 and len(links) == 6 and sum(link["primary"] for link in links.values()) == 3


@pytest.mark.slow
@pytest.mark.parametrize("topic", ["Health Sciences", "subfields/1702"])
def test_topic_selection_streamed_and_bulk(arcade_server, store, tmp_path, topic):
    from test_bulk import assert_same, stream_then_bulk

    works_dir = snapshot(tmp_path, {"2024-01-15": works()})
    options = IngestOptions(selection=Selection(topics=frozenset({topic_key(topic)})))
    streamed, bulk, expected, got = stream_then_bulk(arcade_server, store, "openalex", [works_dir], options)
    assert_same(streamed, bulk, expected, got)
    full = sorted(json.loads(props)["id"] for labels, props in got["graph"][0] if labels == ("Paper",))
    assert full == (["W3000000001"] if topic == "Health Sciences" else ["W2130942839", "W2963403868", "W3000000002"])


@pytest.mark.slow
def test_a_topic_moved_to_another_subfield_keeps_one_parent(arcade_server, store, tmp_path):
    """A later work naming a topic under another subfield moves it (OpenAlex reorganises its
    tree): the streaming ingest, one work a transaction, and the bulk load agree."""
    from test_bulk import assert_same, stream_then_bulk

    rows = works()
    moved = dict(
        rows[0]["topics"][1],
        subfield={
            "id": "https://openalex.org/subfields/1707",
            "display_name": "Computer Vision and Pattern Recognition",
        },
    )
    rows[2] = dict(rows[2], topics=[*rows[2]["topics"], moved])  # LSTM, a later line than Attention
    works_dir = snapshot(tmp_path, {"2024-01-15": rows})
    assert_same(*stream_then_bulk(arcade_server, store, "openalex", [works_dir], IngestOptions(batch_size=1)))
    tree, _ = topics(store)
    assert tree["T10028"] == ("Topic Modeling", "topic", "subfields/1707")
    assert tree["T10181"][2] == "subfields/1702"


def test_neo4j_admin_export_carries_the_topic_tree(tmp_path):
    from test_bulk import imported, read_csv

    from citegraph.graph import model
    from citegraph.ingest.bulk.neo4j_admin import export_neo4j_admin

    export = export_neo4j_admin(get("openalex"), [FIXTURE], tmp_path / "csv")
    nodes, relationships = imported(export)
    [header] = [read_csv(h)[0] for labels, h, _ in export.nodes if labels == "Topic"]
    assert header == model.GRAPH.node("Topic").columns() == [":ID(Topic)", "id", "name", "level"]
    assert ["fields/17", "Computer Science", "field"] in nodes["Topic"] and len(nodes["Topic"]) == 13
    headers = {kind: read_csv(h)[0] for kind, h, _ in export.relationships}
    assert headers["IN_TOPIC"] == [":START_ID(Paper)", ":END_ID(Topic)", "score:double", "primary:boolean"]
    rows = relationships[("IN_TOPIC", "primary:boolean")]
    assert ["W2963403868", "T10181", "0.9987", "true"] in rows and ["W3000000001", "T13702", "0.8123", "false"] in rows
    assert headers["BROADER_TOPIC"] == [":START_ID(Topic)", ":END_ID(Topic)"]
    rows = relationships[("BROADER_TOPIC", ":END_ID(Topic)")]
    assert ["subfields/2701", "fields/27"] in rows and len(rows) == 11  # every node but the two domains


def update_partition() -> tuple[list[dict], list[dict], list[dict]]:
    """(the initial works, those an update partition restates, the final state): the first
    work changes its title, drops its abstract, an author, two references (one to a stub)
    and a topic (the only one of its subfield), cites a new work and changes its primary
    topic; one work is retracted; one is merged into another (with the topic only it has)."""
    initial = works()
    initial[1]["referenced_works"].append("https://openalex.org/W3000000002")  # to be merged
    attention = json.loads(json.dumps(initial[0]))
    attention.update(
        title="Attention Is All You Need (revised)",
        abstract_inverted_index=None,
        authorships=attention["authorships"][:2],
        referenced_works=["https://openalex.org/W1902237438", "https://openalex.org/W3000000003"],
        topics=[dict(attention["topics"][1], score=0.99), dict(attention["topics"][0], score=0.98)],
    )
    attention["primary_topic"] = attention["topics"][0]  # T10028 now; T11714 and its subfield only it had go
    retracted = dict(initial[3], is_retracted=True)
    new = dict(
        initial[4],
        id="https://openalex.org/W3000000003",
        title="A new work",
        referenced_works=["https://openalex.org/W2130942839"],
        primary_topic=initial[0]["topics"][0],
    )
    changed = [attention, retracted, new]
    final = [attention, initial[1], initial[2], retracted, new]  # W3000000002 merged away
    return initial, changed, final


def merges(root: Path) -> None:
    folder = root / "data" / "merged_ids" / "works"
    folder.mkdir(parents=True)
    with gzip.open(folder / "2024-02-01.csv.gz", "wt", encoding="utf-8") as f:
        f.write("merge_date,id,merge_into_id\n2024-02-01,W3000000002,W2130942839\n")


@pytest.mark.slow
def test_an_update_partition_leaves_the_graph_a_fresh_ingest_builds(arcade_server, store, tmp_path):
    from test_bulk import cited_ids_unlike_the_edges, dump

    initial, changed, final = update_partition()
    fmt = get("openalex")
    snapshot(tmp_path / "old", {"2024-01-15": initial})
    ingest(store, fmt, [tmp_path / "old" / "data"], IngestOptions())
    assert store.run("paper", id="W2130942839")[0]["citation_count"] == 2
    snapshot(tmp_path / "new", {"2024-02-01": changed})
    merges(tmp_path / "new")
    ingest(store, fmt, [tmp_path / "new" / "data"], IngestOptions())
    updated = dump(store)
    assert not cited_ids_unlike_the_edges(updated)  # restated, merged away, cited by a merged work
    assert store.run("stats/partitions") == [
        {"partition": "2024-01-15", "files": 1},
        {"partition": "2024-02-01", "files": 1},
    ]

    arcade_server.recreate_database()
    snapshot(tmp_path / "final", {"2024-02-01": final})
    merges(tmp_path / "final")
    ingest(store, fmt, [tmp_path / "final" / "data"], IngestOptions())
    assert dump(store) == updated
    [attention] = store.run("paper", id="W2963403868")
    assert (attention["title"], attention["abstract"], attention["references"]) == (
        "Attention Is All You Need (revised)",
        None,
        2,
    )
    assert store.run("paper", id="W3000000002") == [] and store.run("paper", id="W9999999991") == []
    assert store.run("paper", id="W2130942839")[0]["citation_count"] == 2  # W1902237438 and the new work
    tree, links = topics(store)
    assert "T11714" not in tree and "subfields/1707" not in tree and "subfields/1702" in tree
    assert "T11307" not in tree  # only the work merged away had it
    assert links[("W2963403868", "T10028")] == {"score": 0.99, "primary": True}
    assert links[("W2963403868", "T10181")] == {"score": 0.98, "primary": False}

    arcade_server.recreate_database()  # the bulk path moves merged citations after its load
    from citegraph.graph import ArcadeDBBackend
    from citegraph.ingest.bulk import bulk_ingest

    bulk_ingest(ArcadeDBBackend(arcade_server), store, fmt, [tmp_path / "final" / "data"], IngestOptions())
    assert dump(store) == updated


@pytest.mark.slow
def test_the_bulk_paths_refuse_what_only_cypher_does(arcade_server, store, tmp_path):
    """A work restated by a newer partition, and merged ids, need Cypher (edges removed or
    moved): --bulk refuses the first before touching the database, the neo4j-admin export
    the second, each saying how to load it instead."""
    from citegraph.graph import ArcadeDBBackend
    from citegraph.ingest.bulk import bulk_ingest
    from citegraph.ingest.bulk.neo4j_admin import export_neo4j_admin

    initial, changed, final = update_partition()
    snapshot(tmp_path / "both", {"2024-01-15": initial, "2024-02-01": changed})
    with pytest.raises(CitegraphError, match="W2963403868 is stated twice"):
        bulk_ingest(ArcadeDBBackend(arcade_server), store, get("openalex"), [tmp_path / "both" / "data"])
    assert store.run("stats/labels") == []
    snapshot(tmp_path / "final", {"2024-02-01": final})
    merges(tmp_path / "final")
    with pytest.raises(CitegraphError, match="1 merged ids among the inputs"):
        export_neo4j_admin(get("openalex"), [tmp_path / "final" / "data"], tmp_path / "csv")
    assert not list((tmp_path / "csv").glob("*.csv"))


def test_a_part_holding_fewer_works_than_its_manifest_lists_is_bad_input(store, tmp_path):
    rows = works()
    works_dir = snapshot(tmp_path, {"2023-12-31": rows[:3], "2024-02-01": rows[3:]})
    emptied = works_dir / "updated_date=2024-02-01" / "part_000.gz"
    emptied.write_bytes(b"")
    for path in (works_dir, works_dir / "manifest", emptied):
        with pytest.raises(InputError) as raised:
            ingest(store, get("openalex"), [path])
        assert str(raised.value) == (
            f"{emptied}:1: 0 works in the file, but {works_dir / 'manifest'} lists "
            f"{len(rows) - 3} (download incomplete?)"
        )
        assert store.run("stats/labels") == []
    summary = ingest(store, get("openalex"), [works_dir], IngestOptions(skip_bad=True, rejects=tmp_path / "r.jsonl"))
    assert summary.rejected == 1  # a counted repair: what the parts hold is ingested, the short part listed
    assert json.loads((tmp_path / "r.jsonl").read_text())["file"] == str(emptied)


def test_manifest_urls_are_confined_to_the_snapshot(tmp_path):
    works_dir = snapshot(tmp_path / "snapshot", {"2023-12-31": works()[:1]})
    outside = tmp_path / "secret.gz"
    with gzip.open(outside, "wt") as f:
        f.write(json.dumps(works()[0]) + "\n")
    manifest = works_dir / "manifest"
    for url in ("s3://openalex/data/works/../../../../secret.gz", "s3://openalex/data/works/updated_date=x/../../.."):
        manifest.write_text(json.dumps({"entries": [{"url": url, "meta": {"record_count": 1}}]}))
        with pytest.raises(CitegraphError, match=r"lists .* which is outside the snapshot folder"):
            files(manifest)


@pytest.mark.parametrize(
    "text,reason",
    [
        ("[" * 100_000 + "]" * 100_000, "malformed JSON: nested too deeply"),
        ('{"entries": [{"url": 7}]}', "an entry 7 with record_count None"),
        ('{"entries": [{"url": "a/b.gz", "meta": {"record_count": -1}}]}', "record_count -1"),
    ],
)
def test_a_bad_manifest_is_one_clear_error(tmp_path, text, reason):
    manifest = tmp_path / "manifest"
    manifest.write_text(text)
    with pytest.raises(CitegraphError, match=r"manifest: not an OpenAlex manifest \(.*" + reason):
        files(manifest)
