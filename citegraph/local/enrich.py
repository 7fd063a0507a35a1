"""Enrich: SymTax's Enricher (the "symbiosis" stage) on a held-out view of the graph.

The prefetched candidates are widened with the papers they cite (1-hop outgoing
neighbours; citing papers are not followed), most often cited by the candidates first, to
``size`` candidates in all (SymTax: 100 → 300). The enrichment runs in Cypher
(:func:`citegraph.retrieval.signals.enrich`, the recommender's) against a **held-out
view**: the held-out citing papers (:func:`.data.held_out_papers`: every validation/test
citing paper and everything newer than the training cut) are never expanded, so a test
citation can never be found by following it — and no copy of the graph is made. The same
exclusion backs :meth:`HeldOutView.edges`, which lists what the view shows.

``enabled=False`` really turns the stage off: no query is sent, the candidates pass as
they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from ..retrieval.signals import Enriched, enrich
from .data import Context

if TYPE_CHECKING:
    from ..graph import GraphStore

SIZE = 300  # SymTax: the enriched list is cut at 300 by frequency


@dataclass(frozen=True)
class HeldOutView:
    """The graph without the citation edges of ``held_out`` citing papers."""

    store: GraphStore
    held_out: tuple[str, ...] = ()

    @cached_property
    def hidden(self) -> frozenset[str]:
        return frozenset(self.held_out)

    @classmethod
    def hiding(cls, store: GraphStore, held_out: Iterable[str]) -> HeldOutView:
        return cls(store, tuple(sorted(set(held_out))))

    def edges(self, citing: Sequence[str]) -> list[tuple[str, str]]:
        """The (citing, cited) edges of ``citing`` papers that the view shows."""
        rows = self.store.rows("local/view_edges", ids=list(citing), held_out=list(self.held_out))
        return [(row["citing"], row["cited"]) for row in rows]

    def enrich(self, context: Context, candidates: Sequence[str], size: int = SIZE, with_text: bool = True) -> Enriched:
        """``candidates`` (deduplicated, order kept) ∪ their most cited outgoing neighbours in
        the view, ``size`` in all; never the citing paper, never a paper newer than it, and
        with ``with_text`` only papers with a title or abstract."""
        return enrich(
            self.store,
            candidates,
            size,
            hidden=self.hidden,
            exclude=context.citing,
            max_year=context.year,
            with_text=with_text,
        )


def enrich_all(
    view: HeldOutView,
    contexts: Sequence[Context],
    prefetched: Sequence[Sequence[str]],
    *,
    size: int = SIZE,
    enabled: bool = True,
    with_text: bool = True,
) -> list[Enriched]:
    """The enriched candidate list of every context (or the prefetched one, when disabled)."""
    if not enabled:
        return [Enriched(list(dict.fromkeys(p)), {}) for p in prefetched]
    return [view.enrich(c, p, size, with_text) for c, p in zip(contexts, prefetched)]
