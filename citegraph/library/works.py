"""Prior and derivative works of a set of papers, as Connected Papers lists them: the
papers most cited by the set's neighbourhood (the foundations it builds on) and the papers
citing most of it (later work that builds on the whole area) — one Cypher statement,
``library/works``; as of a year, nothing later counts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the driver loads with the first store, not with --help
    from ..graph import GraphStore


@dataclass(frozen=True, slots=True)
class Work:
    id: str
    title: str
    year: int | None
    links: int  # neighbourhood papers citing it (prior) or cited by it (derivative)


def prior_and_derivative(
    store: GraphStore, ids: Sequence[str], *, as_of: int | None = None, k: int = 20, fanout: int = 100
) -> dict[str, list[Work]]:
    """``{"prior": [...], "derivative": [...]}``, most linked first, ties by id."""
    rows = {
        row["kind"]: row["papers"]
        for row in store.run("library/works", ids=list(ids), fanout=fanout, as_of=as_of, limit=k)
    }
    return {
        kind: [Work(i, title or "", year, links) for i, title, year, links in rows.get(kind, [])]
        for kind in ("prior", "derivative")
    }
