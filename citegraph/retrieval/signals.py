"""Graph signals for candidates: ego-network enrichment, co-citation and coupling.

The text scorers prefetch candidates; the graph widens and describes them. Enrichment
(SymTax's Enricher, Goyal et al. 2024) adds the papers the candidates cite, most often
cited by them first — a paper cited by many of a query's likely references is a likely
reference itself (SymTax: top 100 prefetched → 300 enriched). Co-citation and
bibliographic-coupling counts of (query, candidate) pairs are the graph features the
recommender and the reranker use.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import CitegraphError
from .base import Document, Query, Ranking, rank

if TYPE_CHECKING:
    from ..graph import GraphStore


@dataclass(frozen=True, slots=True)
class Enriched:
    ids: list[str]  # the candidates, then the added neighbours
    frequency: dict[str, int]  # added neighbour → how many candidates cite it


def enrich(
    store: GraphStore,
    candidates: Sequence[str],
    size: int = 300,
    *,
    hidden: Collection[str] = frozenset(),
    exclude: str | None = None,
    max_year: int | None = None,
    with_text: bool = False,
    as_of: int | None = None,
) -> Enriched:
    """``candidates`` (deduplicated, order kept) ∪ their most cited outgoing neighbours, ``size``
    in all. ``hidden`` papers' citations are not followed (a held-out view), nor (``as_of`` a
    year) those of papers published later or undated; ``exclude`` is never added, nor a
    paper newer than ``max_year``, nor (``with_text``) one without text."""
    kept = list(dict.fromkeys(candidates))
    room = max(0, size - len(kept))
    if not room:
        return Enriched(kept, {})
    expanded = [c for c in kept if c not in hidden]
    if max_year is None and not with_text:  # each candidate's cited_ids, read with its record
        [row] = store.plain("signals/enrich", ids=expanded, as_of=as_of)
        if not row["cited"]:
            refuse_unlisted(store, expanded, as_of)
    else:  # the filters read every cited paper's record: through the edges
        [row] = store.plain(
            "signals/enrich_filtered", ids=expanded, max_year=max_year, as_of=as_of, with_text=with_text
        )
    left_out = {*kept, exclude}
    frequency = Counter(n for cited in row["cited"] for n in cited if n not in left_out)
    top = sorted(frequency.items(), key=lambda item: (-item[1], item[0]))[:room]  # most cited first, then by id
    return Enriched(kept + [n for n, _ in top], dict(top))


def refuse_unlisted(store: GraphStore, ids: Sequence[str], as_of: int | None = None) -> None:
    """Refuses a graph whose papers cite by their edges but have no ``cited_ids`` (ingested
    before citegraph kept them): the statements that read the lists would find nothing and
    say nothing. Called where lists were due and none came back."""
    if ids and store.value("signals/unlisted", ids=list(ids), as_of=as_of):
        raise CitegraphError(
            "the graph's papers have citations but no cited_ids: it was ingested before citegraph "
            "kept them; run the same `citegraph ingest` again with --restart (or load it in bulk again)"
        )


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


@dataclass
class CoCitationScorer:
    """A graph scorer for held-out citations: candidates co-cited with the query's other references.

    For a query paper in the graph, the references that are candidates of its pool are
    held out (they are what is being predicted); a candidate scores the number of papers,
    other than the query itself, citing it and at least one of the remaining references.
    The query's own citation edges never count, so a held-out citation cannot leak.
    """

    store: GraphStore
    name: str = "cocitation"

    def search(self, queries: Sequence[Query], k: int, pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        papers = [q for q in queries if isinstance(q, Document)]
        if pools is None or len(papers) < len(queries):
            raise CitegraphError("the co-citation scorer ranks the candidate pools of papers in the graph")
        references: dict[str, set[str]] = {q.id: set() for q in papers}
        for row in self.store.rows("signals/references", ids=[q.id for q in papers]):
            references[row["paper"]].add(row["reference"])
        rows: list[dict[str, Any]] = [
            {"query": q.id, "known": sorted(references[q.id] - set(pool)), "candidates": sorted(pool)}
            for q, pool in zip(papers, pools)
        ]
        scores: dict[str, dict[str, float]] = {row["query"]: dict.fromkeys(row["candidates"], 0.0) for row in rows}
        for row in self.store.rows("signals/cocitation_scores", rows=rows):
            scores[row["query"]][row["candidate"]] = float(row["score"])
        return [rank(scores[q.id], k) for q in papers]
