"""The ACL-200 citation graph: a folder with ``papers.jsonl`` and ``edges.tsv``.

``papers.jsonl`` holds ``paper_id, title, year, abstract`` per line (ACL Anthology ids;
years are quoted strings). ``edges.tsv`` has a header ``citing, cited, n_contexts`` and
one citation per line; ``n_contexts`` is how many citation contexts the benchmark has for
it. Either file may be gzipped. Papers are read first, so edges meet full papers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...errors import CitegraphError
from ..records import Citation, Item, Paper, Reference
from ..source import TSV, BadField, integer, items, json_objects, table, text

PAPERS = "papers.jsonl"
EDGES = "edges.tsv"
EDGE_COLUMNS = ["citing", "cited", "n_contexts"]


def files(path: Path) -> list[Path]:
    if not path.is_dir():
        raise CitegraphError(f"{path}: the acl200 format reads a folder holding {PAPERS} and {EDGES}")
    found = []
    for name in (PAPERS, EDGES):
        candidates = [path / name, path / f"{name}.gz"]
        match = next((c for c in candidates if c.is_file()), None)
        if match is None:
            raise CitegraphError(f"{path}: {name} (or {name}.gz) is missing")
        found.append(match)
    return found


def read(file: Path) -> Iterator[Item]:
    if file.name.startswith(PAPERS):
        return items(json_objects(file), _paper)
    return items(table(file, EDGE_COLUMNS, TSV), _edge)


def _paper(obj: dict[str, Any]) -> list[Paper]:
    return [
        Paper(
            id=text(obj, "paper_id", required=True),
            title=text(obj, "title"),
            abstract=text(obj, "abstract"),
            year=integer(obj, "year"),
        )
    ]


def _edge(row: dict[str, str]) -> list[Citation]:
    n_contexts = integer(row, "n_contexts")
    if n_contexts is not None and n_contexts < 0:
        raise BadField("n_contexts", f"must not be negative, got {n_contexts}")
    return [
        Citation(
            text(row, "citing", required=True), Reference(text(row, "cited", required=True), n_contexts=n_contexts)
        )
    ]
