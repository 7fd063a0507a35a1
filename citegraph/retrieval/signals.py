"""Graph signals for candidates: ego-network enrichment, co-citation and coupling.

The text scorers prefetch candidates; the graph widens and describes them. Enrichment
(SymTax's Enricher, Goyal et al. 2024) adds the papers the candidates cite, most often
cited by them first — a paper cited by many of a query's likely references is a likely
reference itself (SymTax: top 100 prefetched → 300 enriched). Co-citation and
bibliographic-coupling counts of (query, candidate) pairs are the graph features the
recommender and the reranker use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..graph import GraphStore


@dataclass(frozen=True, slots=True)
class Enriched:
    ids: list[str]  # the candidates, then the added neighbours
    frequency: dict[str, int]  # added neighbour → how many candidates cite it


def enrich(store: GraphStore, candidates: Sequence[str], size: int = 300) -> Enriched:
    """``candidates`` (deduplicated, order kept) ∪ their most cited outgoing neighbours, ``size`` in all."""
    kept = list(dict.fromkeys(candidates))
    room = max(0, size - len(kept))
    rows = store.run("signals/enrich", ids=kept, limit=room) if room else []
    return Enriched(kept + [row["id"] for row in rows], {row["id"]: row["frequency"] for row in rows})


@dataclass(frozen=True, slots=True)
class PairCounts:
    query: str
    candidate: str
    cocitation: int
    coupling: int


def pair_counts(store: GraphStore, pairs: Iterable[tuple[str, str]]) -> list[PairCounts]:
    """Co-citation and coupling counts of (query, candidate) pairs present in the graph."""
    rows = store.rows("signals/pair_counts", pairs=[{"query": q, "candidate": c} for q, c in pairs])
    return [PairCounts(r["query"], r["candidate"], r["cocitation"], r["coupling"]) for r in rows]
