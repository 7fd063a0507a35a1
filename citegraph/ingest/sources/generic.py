"""citegraph's generic JSONL format: the way in for any corpus we have no reader for.

One paper per line::

    {"id": "P1",                           # required, unique
     "title": "...", "abstract": "...", "year": 2020,
     "venue": "...", "doi": "...", "arxiv_id": "...",
     "fields": ["Computer Science"],       # MAG top-level fields
     "categories": ["cs.CL"],              # arXiv categories
     "authors": ["Ada Lovelace", {"id": "A7", "name": "Alan Turing"}],
     "references": ["P0", {"id": "P2", "contexts": ["... [CIT] ..."], "sections": ["Intro"],
                           "intents": ["methodology"], "influential": true}]}

Everything but ``id`` may be absent or null. Authors given as plain names get a
name-derived id; references given as plain ids carry no contexts. A reference's ``intents``
and ``influential`` are Semantic Scholar's (what the citation is for, whether it weighs):
`citegraph grow --contexts` writes the sentences it fetched in this format.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...vocabulary import canonical_id
from ..formats import files_in
from ..records import Author, Item, Paper, Reference, merge_references, unique_strings
from ..source import BadField, integer, items, json_objects, objects, strings, text

PATTERNS = ("*.jsonl", "*.jsonl.gz", "*.jsonl.bz2", "*.jsonl.xz")


def files(path: Path) -> list[Path]:
    return files_in(path, PATTERNS)


def read(file: Path) -> Iterator[Item]:
    return items(json_objects(file), parse)


def _author(value: Any, i: int) -> Author:
    if isinstance(value, str) and value.strip():
        return Author.from_name(value)
    if isinstance(value, dict):
        name = text(value, "name", required=True)
        given = text(value, "id")
        return Author(given, name) if given else Author.from_name(name)
    raise BadField(f"authors[{i}]", "expected a name or an object {id, name}")


def _reference(value: Any, i: int) -> Reference:
    if isinstance(value, str) and value.strip():
        return Reference(canonical_id(value))
    if isinstance(value, dict):
        try:
            cited = text(value, "id", required=True)
            contexts = strings(value, "contexts")
            influential = value.get("influential")
            if influential is not None and not isinstance(influential, bool):
                raise BadField("influential", f"expected true, false or null, got {influential!r}"[:200])
            return Reference(
                cited,
                contexts,
                strings(value, "sections"),
                len(contexts) or None,
                unique_strings(strings(value, "intents")),
                influential,
            )
        except BadField as bad:
            raise BadField(f"references[{i}].{bad.field}", bad.reason) from None
    raise BadField(f"references[{i}]", "expected a paper id or an object {id, contexts, sections}")


def parse(obj: dict[str, Any]) -> list[Paper]:
    paper_id = text(obj, "id", required=True)
    return [
        Paper(
            id=paper_id,
            title=text(obj, "title"),
            abstract=text(obj, "abstract"),
            year=integer(obj, "year"),
            venue=text(obj, "venue"),
            doi=text(obj, "doi"),
            arxiv_id=text(obj, "arxiv_id"),
            fields=unique_strings(strings(obj, "fields")),
            categories=unique_strings(strings(obj, "categories")),
            authors=tuple(_author(a, i) for i, a in enumerate(objects(obj, "authors"))),
            references=merge_references(_reference(r, i) for i, r in enumerate(objects(obj, "references"))),
        )
    ]
