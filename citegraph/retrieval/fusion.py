"""Fusion of retrievers: reciprocal-rank fusion and weighted score fusion.

Both are retrievers themselves, so a fusion can stand wherever BM25 or a dense model
does (and be fused again). Each member is asked for ``depth`` hits per query (at least
``k``), from the same pools.

* RRF (Cormack, Clarke & Büttcher, 2009): score(d) = Σ_r 1 / (c + rank_r(d)), c = 60;
  robust because it ignores the members' score scales.
* Weighted score fusion: score(d) = Σ_r w_r · norm_r(score_r(d)), with each member's
  scores min–max normalised per query (a document a member did not return gets 0), so
  that BM25's unbounded scores and cosine similarities can be added.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .base import Query, Ranking, Retriever, rank


def _members(members: Sequence[Retriever], queries: Sequence[Query], depth: int,
             pools: Sequence[Collection[str]] | None) -> list[list[Ranking]]:
    return [member.search(queries, depth, pools) for member in members]


@dataclass
class ReciprocalRankFusion:
    members: Sequence[Retriever]
    c: float = 60.0
    depth: int = 1000

    @property
    def name(self) -> str:
        return "rrf(" + ",".join(m.name for m in self.members) + ")"

    def search(self, queries: Sequence[Query], k: int,
               pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        runs = _members(self.members, queries, max(k, self.depth), pools)
        fused = []
        for q in range(len(queries)):
            scores: dict[str, float] = {}
            for run in runs:
                for position, hit in enumerate(run[q], start=1):
                    scores[hit.id] = scores.get(hit.id, 0.0) + 1.0 / (self.c + position)
            fused.append(rank(scores, k))
        return fused


@dataclass
class WeightedFusion:
    members: Sequence[Retriever]
    weights: Sequence[float]
    depth: int = 1000

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.members):
            raise ValueError(f"{len(self.members)} members but {len(self.weights)} weights")

    @property
    def name(self) -> str:
        return "wsum(" + ",".join(f"{w:g}*{m.name}" for m, w in zip(self.members, self.weights)) + ")"

    def search(self, queries: Sequence[Query], k: int,
               pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        runs = _members(self.members, queries, max(k, self.depth), pools)
        fused = []
        for q in range(len(queries)):
            scores: dict[str, float] = {}
            for run, weight in zip(runs, self.weights):
                hits = run[q]
                if not hits:
                    continue
                high, low = hits[0].score, hits[-1].score
                span = high - low
                for hit in hits:
                    normalised = (hit.score - low) / span if span > 0 else 1.0
                    scores[hit.id] = scores.get(hit.id, 0.0) + weight * normalised
            fused.append(rank(scores, k))
        return fused
