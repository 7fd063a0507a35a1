"""The citation graph's model, declared once: labels, keys, typed properties, relationships.

Every write path reads it instead of listing properties of its own:

* the streaming writer (:mod:`citegraph.ingest.writer`) sends :meth:`Element.values` of a
  record as the property map of an ``UNWIND … SET n += row.props`` statement;
* the bulk build (:mod:`citegraph.ingest.bulk.duckdb_build`) spills the same maps, so the ArcadeDB
  loader creates the same properties;
* the neo4j-admin writer (:mod:`citegraph.ingest.bulk.neo4j_admin`) takes its CSV headers from
  :meth:`Node.columns` and :meth:`Relationship.columns`;
* ``cypher/schema.cypher`` stays hand-written (Cypher lives in .cypher files only), and
  ``tests/test_graph_model.py`` fails when it and :func:`schema_items` disagree, as
  it does when an ingest statement leaves out a property declared here.

Adding a property of a record to the graph is one line here (plus the record field that
carries it); adding a label or relationship type is one :class:`Node` or
:class:`Relationship` here, the record that carries it and the statement that MERGEs it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

#: Who sets a property: the reader's records; the ingest itself (counted while it writes);
#: the ingest run, once, when it creates the node (its date: ``IngestOptions.clock``); or the
#: MDCR prefilter, which runs over the finished graph (bulk loads leave it out).
SetBy = Literal["record", "ingest", "run", "prefilter"]
#: Property types as neo4j-admin names them ('long': what the driver writes for a Python int).
PropertyType = Literal["string", "long", "double", "boolean", "string[]"]


@dataclass(frozen=True, slots=True)
class Property:
    name: str
    type: PropertyType = "string"
    set_by: SetBy = "record"
    indexed: bool = False
    #: An empty list means 'not known' (left unset, so an upsert keeps what the graph holds), as
    #: for the contexts of a reference read from metadata only; otherwise it is stored as [].
    empty_is_unset: bool = False

    def column(self) -> str:
        """The neo4j-admin CSV header of this property."""
        return self.name if self.type == "string" else f"{self.name}:{self.type}"


class Element:
    """What nodes and relationships share: typed properties, of which records set some."""

    __slots__ = ()
    properties: tuple[Property, ...]

    def written(self) -> tuple[Property, ...]:
        """The properties a bulk load writes: all but those the prefilter sets afterwards."""
        return tuple(p for p in self.properties if p.set_by != "prefilter")

    def values(self, record: Any) -> dict[str, Any]:
        """The properties ``record`` sets: its attributes named like this element's record
        properties, tuples as lists. Absent values (None, or an empty list that means
        'unknown') are left out, so ``SET n += props`` keeps what the graph holds."""
        found = {}
        for prop in self.properties:
            if prop.set_by != "record":
                continue
            value = getattr(record, prop.name)
            if isinstance(value, tuple):
                value = list(value)
            if value is None or (prop.empty_is_unset and value == []):
                continue
            found[prop.name] = value
        return found


@dataclass(frozen=True, slots=True)
class Node(Element):
    label: str
    key: Property
    properties: tuple[Property, ...] = ()
    #: Bookkeeping nodes (ingest checkpoints) are part of the schema, not of the exported graph.
    data: bool = True

    @property
    def constraint(self) -> str:
        return f"{snake(self.label)}_{self.key.name}"

    def columns(self, only: Iterable[Property] | None = None) -> list[str]:
        """neo4j-admin header of this label's node file: the node's import ID in the label's
        ID space (not stored: the build's integer index, so relationship files name their
        ends without a join), the key, then ``only`` (default: every property a bulk load writes)."""
        return [
            f":ID({self.label})",
            self.key.column(),
            *(p.column() for p in (self.written() if only is None else only)),
        ]


@dataclass(frozen=True, slots=True)
class Relationship(Element):
    type: str
    source: str  # label
    target: str
    properties: tuple[Property, ...] = ()

    def columns(self, only: Iterable[Property] | None = None) -> list[str]:
        """neo4j-admin header of a relationship file: the ends' ID spaces (their labels),
        then ``only`` (default: every property a bulk load writes)."""
        return [
            f":START_ID({self.source})",
            f":END_ID({self.target})",
            *(p.column() for p in (self.written() if only is None else only)),
        ]


@dataclass(frozen=True, slots=True)
class GraphModel:
    nodes: tuple[Node, ...]
    relationships: tuple[Relationship, ...]
    #: The second label of a paper that is cited but absent from the corpus: it carries only
    #: the key and the properties the ingest sets (``citation_count``, ``cited_ids``).
    stub_label: str = "External"
    stub_of: str = "Paper"

    def node(self, label: str) -> Node:
        return next(n for n in self.nodes if n.label == label)

    def relationship(self, kind: str) -> Relationship:
        return next(r for r in self.relationships if r.type == kind)

    def stub_properties(self) -> tuple[Property, ...]:
        return tuple(p for p in self.node(self.stub_of).properties if p.set_by == "ingest")

    def with_property(self, owner: str, prop: Property) -> GraphModel:
        """This model with ``prop`` added to the node label or relationship type ``owner``."""
        if owner not in {n.label for n in self.nodes} | {r.type for r in self.relationships}:
            raise KeyError(f"the graph model has no label or relationship type {owner!r}")
        return replace(
            self,
            nodes=tuple(replace(n, properties=(*n.properties, prop)) if n.label == owner else n for n in self.nodes),
            relationships=tuple(
                replace(r, properties=(*r.properties, prop)) if r.type == owner else r for r in self.relationships
            ),
        )


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _string(*names: str) -> tuple[Property, ...]:
    return tuple(Property(n) for n in names)


GRAPH = GraphModel(
    nodes=(
        Node(
            "Paper",
            Property("id"),
            (
                *_string("title", "abstract"),
                Property("year", "long", indexed=True),
                *_string("venue", "doi", "arxiv_id"),
                Property("retracted", "boolean"),
                Property("full_text"),  # sentences one a line, where a source has them (ScisummNet)
                Property("keywords", "string[]", empty_is_unset=True),  # a source's own keywords (BibTeX), indexed text
                Property("citation_count", "long", set_by="ingest", indexed=True),  # inbound CITES
                # the ids its CITES edges reach, sorted (unset when none): what the enrichment reads
                Property("cited_ids", "string[]", set_by="ingest"),
                # YYYY-MM-DD (UTC) of the ingest run that made it a full paper (created it, or upgraded its
                # :External stub); kept by later runs and restatements (what `citegraph watch --since` reads)
                Property("ingested", set_by="run"),
                Property("venue_type"),  # 'journal' or 'conference' where the source says (vocabulary.VENUE_TYPES)
                Property("eligible", "boolean", set_by="prefilter", indexed=True),
            ),
        ),
        Node("Author", Property("id"), _string("name")),
        Node("Field", Property("name")),  # a MAG top-level field of study
        Node(
            "ArxivCategory",
            Property("code"),
            (*_string("name", "archive", "group", "group_name"), Property("active", "boolean")),
        ),
        Node("AcmConcept", Property("code"), (*_string("label", "scheme"), Property("alt_labels", "string[]"))),
        # OpenAlex's topic tree, one label for its four levels (domain, field, subfield, topic), as
        # AcmConcept holds both ACM schemes: ids "domains/3", "fields/17", "subfields/1702", "T10181".
        Node("Topic", Property("id"), _string("name", "level")),
        Node(
            "IngestCheckpoint",
            Property("key"),
            (
                Property("file", set_by="ingest"),
                Property("line", "long", set_by="ingest"),
                Property("done", "boolean", set_by="ingest"),
            ),
            data=False,
        ),
    ),
    relationships=(
        Relationship(
            "CITES",
            "Paper",
            "Paper",
            (
                Property("contexts", "string[]", empty_is_unset=True),
                Property("sections", "string[]", empty_is_unset=True),
                Property("n_contexts", "long"),
                Property("intents", "string[]", empty_is_unset=True),
                Property("influential", "boolean"),
            ),
        ),
        Relationship("WROTE", "Author", "Paper", (Property("position", "long", set_by="ingest"),)),
        Relationship("IN_FIELD", "Paper", "Field"),
        Relationship("IN_CATEGORY", "Paper", "ArxivCategory"),
        Relationship("BROADER", "AcmConcept", "AcmConcept"),
        Relationship("MAPS_TO", "ArxivCategory", "AcmConcept"),
        Relationship("BROADER_TOPIC", "Topic", "Topic"),  # topic → subfield → field → domain
        Relationship("IN_TOPIC", "Paper", "Topic", (Property("score", "double"), Property("primary", "boolean"))),
    ),
)


#: One element of the schema: ("constraint" or "index", its name, the label, the property).
SchemaItem = tuple[str, str, str, str]


def schema_items(model: GraphModel = GRAPH) -> list[SchemaItem]:
    """What ``cypher/schema.cypher`` must create: a uniqueness constraint per key (which also
    indexes it, so MERGE on a key is a lookup), then an index per indexed property."""
    constraints = [("constraint", n.constraint, n.label, n.key.name) for n in model.nodes]
    indexes = [
        ("index", f"{snake(n.label)}_{p.name}", n.label, p.name) for n in model.nodes for p in n.properties if p.indexed
    ]
    return constraints + indexes
