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


@dataclass
class _Fusion:
    members: Sequence[Retriever]

    def search(self, queries: Sequence[Query], k: int, pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        runs = [member.search(queries, max(k, self.depth), pools) for member in self.members]
        return [rank(self.fuse([run[q] for run in runs]), k) for q in range(len(queries))]

    def fuse(self, rankings: list[Ranking]) -> dict[str, float]:
        """One query's fused scores from its members' rankings (in member order)."""
        raise NotImplementedError

    @property
    def depth(self) -> int:
        """How deep each member ranks: each fusion's own field."""
        raise NotImplementedError


@dataclass
class ReciprocalRankFusion(_Fusion):
    c: float = 60.0
    depth: int = 1000

    @property
    def name(self) -> str:
        return "rrf(" + ",".join(m.name for m in self.members) + ")"

    def fuse(self, rankings: list[Ranking]) -> dict[str, float]:
        scores: dict[str, float] = {}
        for ranking in rankings:
            for position, hit in enumerate(ranking, start=1):
                scores[hit.id] = scores.get(hit.id, 0.0) + 1.0 / (self.c + position)
        return scores


@dataclass
class WeightedFusion(_Fusion):
    weights: Sequence[float] = ()
    depth: int = 1000

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.members):
            raise ValueError(f"{len(self.members)} members but {len(self.weights)} weights")

    @property
    def name(self) -> str:
        return "wsum(" + ",".join(f"{w:g}*{m.name}" for m, w in zip(self.members, self.weights)) + ")"

    def fuse(self, rankings: list[Ranking]) -> dict[str, float]:
        scores: dict[str, float] = {}
        for hits, weight in zip(rankings, self.weights):
            if not hits:
                continue
            high, low = hits[0].score, hits[-1].score
            for hit in hits:
                normalised = (hit.score - low) / (high - low) if high > low else 1.0
                scores[hit.id] = scores.get(hit.id, 0.0) + weight * normalised
        return scores
