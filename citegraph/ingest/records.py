"""Typed records: what every reader yields and the graph writer consumes.

Readers know their source format and nothing about Cypher; the writer knows Cypher and
nothing about formats. These dataclasses are the boundary. Which of their attributes
become graph properties is said by the graph model (:mod:`citegraph.graph.model`): an
attribute named like a property of the record's label.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from ..errors import Location, Problem
from ..vocabulary import author_name_id


@dataclass(frozen=True, slots=True)
class Author:
    id: str
    name: str

    @classmethod
    def from_name(cls, name: str) -> Author:
        """An author known only by name (S2ORC, arXiv): the id is the normalised name."""
        name = " ".join(name.split())
        return cls(author_name_id(name), name)


@dataclass(frozen=True, slots=True)
class Reference:
    """A citation from the paper that holds it to ``cited_id``.

    ``contexts`` are the citing sentences (with one sentence before and after where the
    source has full text); ``sections`` the section titles they occur in.
    ``n_contexts`` is how often the citing paper cites it in its text, when known;
    ``intents`` what the citation is for (Semantic Scholar's background / methodology /
    result) and ``influential`` S2's judgement of its weight, where the source has them.
    """

    cited_id: str
    contexts: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    n_contexts: int | None = None
    intents: tuple[str, ...] = ()
    influential: bool | None = None


def merge_references(references: Iterable[Reference]) -> tuple[Reference, ...]:
    """One reference per cited id, in first-seen order: repeats pool their contexts."""
    merged: dict[str, Reference] = {}
    for ref in references:
        seen = merged.get(ref.cited_id)
        if seen is None:
            merged[ref.cited_id] = ref
            continue
        counts = [n for n in (seen.n_contexts, ref.n_contexts) if n is not None]
        influential = (
            None if seen.influential is None and ref.influential is None else bool(seen.influential or ref.influential)
        )
        merged[ref.cited_id] = Reference(
            ref.cited_id,
            seen.contexts + ref.contexts,
            unique_strings(seen.sections + ref.sections),
            sum(counts) if counts else None,
            unique_strings(seen.intents + ref.intents),
            influential,
        )
    return tuple(merged.values())


def unique_strings(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


#: The levels of OpenAlex's topic tree, top first.
TopicLevel = Literal["domain", "field", "subfield", "topic"]
TOPIC_LEVELS: tuple[TopicLevel, ...] = ("domain", "field", "subfield", "topic")


@dataclass(frozen=True, slots=True)
class Topic:
    """A node of OpenAlex's topic tree, and the id of the node above it (none for a domain)."""

    id: str  # "domains/3", "fields/17", "subfields/1702", "T10181"
    name: str | None
    level: TopicLevel
    broader: str | None = None


@dataclass(frozen=True, slots=True)
class TopicLink:
    """A paper's OpenAlex topic: the path from its domain down to the topic, the topic's
    score for the paper (OpenAlex's), and whether it is the paper's ``primary_topic``."""

    lineage: tuple[Topic, ...]  # top first; the last is the topic itself
    score: float | None
    primary: bool

    @property
    def topic_id(self) -> str:
        return self.lineage[-1].id


@dataclass(frozen=True, slots=True)
class Paper:
    id: str
    title: str | None = None
    abstract: str | None = None
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    fields: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    authors: tuple[Author, ...] = ()
    references: tuple[Reference, ...] = ()
    retracted: bool | None = None
    full_text: str | None = None  # the paper's sentences, one a line, where the source has them
    keywords: tuple[str, ...] = ()  # the source's own keywords (BibTeX); indexed with the text
    topics: tuple[TopicLink, ...] = ()  # OpenAlex topics
    venue_type: str | None = None  # 'journal' or 'conference' where the source says (vocabulary.VENUE_TYPES)


@dataclass(frozen=True, slots=True)
class SnapshotPaper(Paper):
    """A paper as a snapshot states it, whole: a newer state replaces the older one in the
    graph (properties it lacks, references, fields, categories, topics and authors it no
    longer lists are removed), as OpenAlex's ``updated_date`` partitions restate changed works."""


@dataclass(frozen=True, slots=True)
class MergedId:
    """A paper id absorbed by another (OpenAlex's merged_ids): citations of ``old_id`` move to ``into_id``."""

    old_id: str
    into_id: str


@dataclass(frozen=True, slots=True)
class Citation:
    """A stand-alone citation edge, for sources that list edges apart from papers."""

    citing_id: str
    reference: Reference


@dataclass(frozen=True, slots=True)
class Field:
    """A MAG top-level field of study."""

    name: str


@dataclass(frozen=True, slots=True)
class ArxivCategory:
    code: str
    name: str
    archive: str
    group: str
    group_name: str
    active: bool


@dataclass(frozen=True, slots=True)
class AcmConcept:
    """A concept of an ACM classification scheme ('ccs2012' or 'acm1998')."""

    code: str
    label: str | None
    scheme: str
    broader: tuple[str, ...] = ()
    alt_labels: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CategoryMapping:
    """The arXiv→ACM fusion map: an arXiv category and the ACM concepts it covers."""

    category: str
    acm_codes: tuple[str, ...]


Record = Paper | Citation | Field | ArxivCategory | AcmConcept | CategoryMapping | MergedId
RECORD_TYPES: tuple[type, ...] = Record.__args__


def record_type(record: Record) -> type:
    """Which of the record types ``record`` is. A subclass counts as its base: a reader
    that adds a property to the graph model may carry it in a record extended with it."""
    return next(kind for kind in RECORD_TYPES if isinstance(record, kind))


#: What an ingest does with a paper id given more than once (``--on-duplicate``).
DuplicatePolicy = Literal["merge", "first", "last", "error"]
DUPLICATE_POLICIES: tuple[DuplicatePolicy, ...] = ("merge", "first", "last", "error")


@dataclass(frozen=True, slots=True)
class Item:
    """One thing a reader found at a location: a record, the problem that prevented one, or
    why a good line was left out (``left_out``: counted and reported by the ingest)."""

    where: Location
    record: Record | None = None
    problem: Problem | None = None
    left_out: str | None = None
