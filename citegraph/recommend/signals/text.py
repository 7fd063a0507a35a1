"""The text side: each retriever's top ``depth`` matches outside the blocked papers, and the
ego-network enrichment of each one's top matches (the papers they cite)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ...graph import GraphStore
from ...retrieval.base import Document, Ranking, Retriever
from ...retrieval.signals import enrich
from ..candidates import Candidates, Signal
from ..seed import Seed


@dataclass(frozen=True, slots=True)
class TextMatches:
    rankings: list[tuple[str, Ranking]]  # (retriever name, its ranking), retrievers that found nothing left out

    def add_to(self, found: Candidates, seed: Seed) -> None:
        """``text:<retriever>``: the retriever's score, min–max normalised over its ranking."""
        for name, ranking in self.rankings:
            high, low = ranking[0].score, ranking[-1].score
            for position, hit in enumerate(ranking, start=1):
                value = (hit.score - low) / (high - low) if high > low else 1.0
                found.at(hit.id).add(Signal(name, value, f"{name} rank {position}"), value, f"text:{name}")

    @classmethod
    def gather(cls, retrievers: Sequence[Retriever], document: Document, blocked: set[str], depth: int) -> TextMatches:
        out = []
        for retriever in retrievers:
            [ranking] = retriever.search([document], depth + len(blocked) + 1)
            ranking = [h for h in ranking if h.id not in blocked][:depth]
            if ranking:
                out.append((retriever.name, ranking))
        return cls(out)

    def top(self, depth: int) -> list[str]:
        return [hit.id for _, ranking in self.rankings for hit in ranking[:depth]]


@dataclass(frozen=True, slots=True)
class Enrichment:
    frequency: dict[str, int]  # candidate → how many of the top text matches cite it

    @classmethod
    def gather(cls, store: GraphStore, text_top: list[str], size: int, seed: Seed) -> Enrichment:
        if not text_top:
            return cls({})
        enriched = enrich(store, text_top, size=size, max_year=seed.view.as_of, as_of=seed.view.as_of)
        blocked = seed.blocked
        return cls({cid: n for cid, n in enriched.frequency.items() if cid not in blocked})

    def add_candidates(self, found: Candidates) -> None:
        for cid in self.frequency:
            found.at(cid)

    def add_to(self, found: Candidates, seed: Seed) -> None:
        for cid in found.keys() & self.frequency.keys():
            n = self.frequency[cid]
            found[cid].add(Signal("enrichment", n, f"cited by {n} of the top text matches"), math.log1p(n))
