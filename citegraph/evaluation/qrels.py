"""TREC qrels files (``query iteration doc grade``): written by the benchmarks built from the
graph, read by every benchmark that scores against judgements."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ..errors import CitegraphError


def write_qrels(
    path: Path, relevant: Mapping[str, Iterable[str]], grades: Mapping[str, Mapping[str, int]] | None = None
) -> None:
    """TREC qrels (``query 0 doc grade``); grade 1 for ``relevant``, or as ``grades`` give."""
    with open(path, "w", encoding="utf-8") as f:
        for query, docs in relevant.items():
            for doc in docs:
                grade = grades[query][doc] if grades else 1
                f.write(f"{query} 0 {doc} {grade}\n")


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """TREC qrels (``query iteration doc grade``) as query → doc → grade."""
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 4 or not parts[3].lstrip("-").isdigit():
                raise CitegraphError(f"{path}:{number}: expected 'query 0 doc grade', got {line.strip()!r}")
            qrels.setdefault(parts[0], {})[parts[2]] = int(parts[3])
    return qrels
