"""External runs read as retrievers, and rankings written as runs.

A benchmark's own retrievers come from specs (:mod:`citegraph.retrieval.spec`): built over
its documents (MDCR's and CSFCube's release files) or opened from the graph's prebuilt
indexes (large-scale pools). A TREC run file produced by another tool is a
:class:`RunFile`, ranked and restricted to pools like any retriever, so it is scored
exactly as citegraph's own models are.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CitegraphError
from ..retrieval.base import Document, Hit, Query, Ranking, rank


@dataclass
class RunFile:
    """A TREC run (``qid Q0 doc rank score tag``) answering queries by their ids."""

    path: Path
    name: str = ""
    rankings: dict[str, list[Hit]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.name = self.name or self.path.stem
        with open(self.path, encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                parts = line.split()
                if not parts:
                    continue
                if len(parts) != 6:
                    raise CitegraphError(
                        f"{self.path}:{number}: expected 'qid Q0 doc rank score tag', got {len(parts)} columns"
                    )
                try:
                    score = float(parts[4])
                except ValueError:
                    raise CitegraphError(f"{self.path}:{number}: score {parts[4]!r} is not a number") from None
                self.rankings.setdefault(parts[0], []).append(Hit(parts[2], score))

    def search(self, queries: Sequence[Query], k: int, pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        out = []
        for i, query in enumerate(queries):
            if not isinstance(query, Document):
                raise CitegraphError(f"run file {self.path} answers queries by id, not free text")
            hits = self.rankings.get(query.id, [])
            allowed = pools[i] if pools is not None else None
            out.append(rank([h for h in hits if allowed is None or h.id in allowed], k))
        return out


def write_run(path: Path, rankings: dict[str, Ranking], tag: str) -> None:
    """A TREC run file of ``rankings`` (query id → hits, best first)."""
    with open(path, "w", encoding="utf-8") as f:
        for query, hits in rankings.items():
            for position, hit in enumerate(hits, start=1):
                f.write(f"{query} Q0 {hit.id} {position} {hit.score!r} {tag}\n")  # repr: reads back exactly
