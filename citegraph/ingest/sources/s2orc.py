"""S2ORC metadata JSONL (Lo et al., 2020): one paper per line.

Fields used: ``paper_id`` (required), ``title``, ``abstract``, ``year``, ``venue`` (else
``journal``), ``doi``, ``arxiv_id``, ``mag_field_of_study`` (MAG top-level fields),
``authors`` (first/middle/last/suffix; S2ORC has no author ids, so names are the ids),
``outbound_citations`` and ``inbound_citations`` (S2ORC paper ids).

Both citation directions are written. A release or a sample rarely holds both ends of
every citation, and the MDCR prefilter counts citations "in S2ORC": the inbound list is
S2ORC's own record of who cites a paper, so keeping it (citing papers outside the input
become ``:External`` stubs) makes ``citation_count`` the count S2ORC reports.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..formats import files_in
from ..records import Author, Citation, Item, Paper, Record, Reference, unique_strings
from ..source import BadField, integer, items, json_objects, objects, strings, text
from .generic import PATTERNS


def files(path: Path) -> list[Path]:
    return files_in(path, PATTERNS)


def read(file: Path) -> Iterator[Item]:
    return items(json_objects(file), parse)


def _author(value: Any, i: int) -> Author | None:
    if not isinstance(value, dict):
        raise BadField(f"authors[{i}]", "expected an object {first, middle, last, suffix}")
    middle = value.get("middle") or []
    if not isinstance(middle, list):
        raise BadField(f"authors[{i}].middle", "expected a list of strings")
    parts = [value.get("first"), *middle, value.get("last"), value.get("suffix")]
    if any(p is not None and not isinstance(p, str) for p in parts):
        raise BadField(f"authors[{i}]", "name parts must be strings")
    name = " ".join(p.strip() for p in parts if p and p.strip())
    return Author.from_name(name) if name else None


def parse(obj: dict[str, Any]) -> list[Record]:
    paper_id = text(obj, "paper_id", required=True)
    authors = (_author(a, i) for i, a in enumerate(objects(obj, "authors")))
    paper = Paper(
        id=paper_id,
        title=text(obj, "title"),
        abstract=text(obj, "abstract"),
        year=integer(obj, "year"),
        venue=text(obj, "venue") or text(obj, "journal"),
        doi=text(obj, "doi"),
        arxiv_id=text(obj, "arxiv_id"),
        fields=unique_strings(strings(obj, "mag_field_of_study")),
        authors=tuple(a for a in authors if a is not None),
        references=tuple(Reference(cited) for cited in unique_strings(strings(obj, "outbound_citations"))),
    )
    inbound = [Citation(citing, Reference(paper_id)) for citing in unique_strings(strings(obj, "inbound_citations"))]
    return [paper, *inbound]
