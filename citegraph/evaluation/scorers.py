"""External runs read as retrievers.

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
from ..formats.trec import read_run
from ..retrieval.base import Document, Hit, Query, Ranking, rank


@dataclass
class RunFile:
    """A TREC run (``qid Q0 doc rank score tag``, read by :func:`~citegraph.formats.trec.read_run`)
    answering queries by their ids."""

    path: Path
    name: str = ""
    rankings: dict[str, list[Hit]] = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.name or self.path.stem
        self.rankings = {q: [Hit(*hit) for hit in hits] for q, hits in read_run(self.path).items()}

    def search(self, queries: Sequence[Query], k: int, pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        out = []
        for i, query in enumerate(queries):
            if not isinstance(query, Document):
                raise CitegraphError(f"run file {self.path} answers queries by id, not free text")
            hits = self.rankings.get(query.id, [])
            allowed = pools[i] if pools is not None else None
            out.append(rank([h for h in hits if allowed is None or h.id in allowed], k))
        return out
