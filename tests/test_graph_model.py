"""The graph model against the Cypher that stays hand-written: the schema file and the
ingest statements must say what ``citegraph.graph.model`` declares. (That a property added
to the model arrives through every write path is tests/test_bulk.py's
``test_a_property_added_to_the_model_arrives_through_every_write_path``.)"""

from __future__ import annotations

import re
from importlib import resources

import pytest

from citegraph.graph import load
from citegraph.graph.model import GRAPH, Property, schema_items


def cypher(name: str) -> str:
    return load(name).text


def ingest_statements() -> dict[str, str]:
    folder = resources.files("citegraph") / "cypher" / "ingest"
    return {
        f"ingest/{f.name[:-7]}": cypher(f"ingest/{f.name[:-7]}") for f in folder.iterdir() if f.name.endswith(".cypher")
    }


SCHEMA_LINE = re.compile(
    r"CREATE (CONSTRAINT|INDEX) (\w+) IF NOT EXISTS FOR \((\w+):(\w+)\) "
    r"(?:REQUIRE (\w+)\.(\w+) IS UNIQUE|ON \((\w+)\.(\w+)\));"
)


def schema_file_items() -> list[tuple[str, str, str, str]]:
    """The schema file's statements as (kind, name, label, property); a line of another shape fails."""
    text = (resources.files("citegraph") / "cypher" / "schema.cypher").read_text(encoding="utf-8")
    items = []
    for line in (line for line in text.splitlines() if line and not line.startswith("//")):
        match = SCHEMA_LINE.fullmatch(line)
        assert match, f"schema.cypher: a statement of unexpected shape: {line}"
        kind, name, var, label, *ends = match.groups()
        owner, prop = ends[:2] if kind == "CONSTRAINT" else ends[2:]
        assert owner == var, line
        items.append((kind.lower(), name, label, prop))
    return items


def test_the_schema_file_is_the_models():
    assert schema_file_items() == schema_items()


def test_a_new_key_or_index_changes_the_expected_schema():
    indexed = GRAPH.with_property("Author", Property("orcid", indexed=True))
    assert set(schema_items(indexed)) - set(schema_items()) == {("index", "author_orcid", "Author", "orcid")}


def _writers(pattern: str) -> list[tuple[str, str, str]]:
    """(statement, variable, text) for every MERGE or CREATE of the element ``pattern`` matches."""
    found = []
    for name, text in ingest_statements().items():
        for match in re.finditer(pattern, text):
            found.append((name, match.group(1) or "", text))
    return found


def _unwritten(writers: list[tuple[str, str, str]], props: tuple[Property, ...]) -> set[str]:
    """The properties none of the writers sets, either by name or, a record's, as a whole map
    (``v += map``: :meth:`Element.values` holds only those)."""
    return {
        p.name
        for p in props
        if p.set_by != "prefilter"
        and not any(
            var and ((p.set_by == "record" and f"{var} += " in text) or f"{var}.{p.name} =" in text)
            for _, var, text in writers
        )
    }


@pytest.mark.parametrize("node", [n for n in GRAPH.nodes], ids=lambda n: n.label)
def test_every_label_is_merged_on_its_key_with_all_its_properties(node):
    writers = _writers(rf"(?:MERGE|CREATE) \((\w*):{node.label}(?::\w+)* \{{{node.key.name}: ")
    assert writers, f"no ingest statement MERGEs :{node.label} on {node.key.name}"
    # what the ingest derives from the edges (Paper.cited_ids) is set on the papers it finds by key
    derivers = _writers(rf"MATCH \((\w*):{node.label}(?::\w+)* \{{{node.key.name}: ")
    derived = {p.name for p in node.properties if p.set_by == "ingest"} - _unwritten(derivers, node.properties)
    assert _unwritten(writers, node.properties) - derived == set()


def _merges(kind: str) -> tuple[str, str]:
    """MERGE of a ``kind`` relationship written either way round, groups (start, variable, end):
    ``MERGE (p)<-[w:WROTE]-(a)`` starts from the paper's few authors."""
    return (rf"MERGE \((\w+)\)-\[(\w*):{kind}\]->\((\w+)\)", rf"MERGE \((\w+)\)<-\[(\w*):{kind}\]-\((\w+)\)")


def _relationship_writers(kind: str) -> list[tuple[str, str, str]]:
    return [found for pattern in _merges(kind) for found in _writers(pattern.replace(r"(\w+)", r"\w+"))]


@pytest.mark.parametrize("relationship", GRAPH.relationships, ids=lambda r: r.type)
def test_every_relationship_is_merged_between_its_labels_with_all_its_properties(relationship):
    writers = _relationship_writers(relationship.type)
    assert writers, f"no ingest statement MERGEs [:{relationship.type}]"
    assert _unwritten(writers, relationship.properties) == set()
    forward, backward = _merges(relationship.type)
    for name, _, text in writers:  # the ends are the declared labels
        found = re.search(forward, text)
        ends = found.group(1, 3) if found else re.search(backward, text).group(3, 1)
        labels = [re.search(rf"\({var}:(\w+)", text).group(1) for var in ends]
        assert labels == [relationship.source, relationship.target], name


def test_the_whole_graph_dump_names_every_key():
    keys = {n.key.name for n in GRAPH.nodes if n.data}
    text = cypher("bulk/relationships")
    assert all(f"a.{key}" in text and f"b.{key}" in text for key in keys)


def test_the_check_sees_a_property_no_statement_writes():
    """The tests above can fail: a relationship property the Cypher does not name is found."""
    wrote = GRAPH.with_property("WROTE", Property("corresponding", "boolean")).relationship("WROTE")
    assert _unwritten(_relationship_writers("WROTE"), wrote.properties) == {"corresponding"}


def test_the_check_sees_a_run_property_no_statement_names():
    """A property the ingest run sets (as ``Paper.ingested``) comes in no record's map: a
    statement must name it, and one that only does ``+= author.props`` is found out."""
    author = GRAPH.with_property("Author", Property("ingested", set_by="run")).node("Author")
    writers = _writers(r"(?:MERGE|CREATE) \((\w*):Author(?::\w+)* \{id: ")
    assert _unwritten(writers, author.properties) == {"ingested"}
    assert "ingested" not in author.values(type("Record", (), {"name": "Ada", "ingested": "2024-01-01"})())


def test_values_leave_out_what_a_record_does_not_know():
    from citegraph.ingest.records import AcmConcept, Reference

    cites = GRAPH.relationship("CITES")
    assert cites.values(Reference("P2")) == {}  # metadata only: the contexts of a full-text ingest are kept
    assert cites.values(Reference("P2", ("a [CIT]",), (), 1)) == {"contexts": ["a [CIT]"], "n_contexts": 1}
    concept = GRAPH.node("AcmConcept")
    assert concept.values(AcmConcept("10002950", None, "ccs2012")) == {"scheme": "ccs2012", "alt_labels": []}
