"""The references' neighbourhood in the graph (one ``recommend/neighbourhood`` statement):
papers cited by the references, papers coupled with the seed (citing its references) and
papers co-cited with them, each through at most ``fanout`` citing papers of a reference;
and the same links to the papers the user does not want, which push candidates down."""

from __future__ import annotations

import heapq
import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat

from ...graph import GraphStore
from ..candidates import Candidates, Signal
from ..seed import Seed

KINDS = ("cited_by", "coupling", "cocitation")


@dataclass(frozen=True, slots=True)
class Links:
    """kind → paper id → (count, citing papers, the papers on the path), every kind present."""

    by_kind: dict[str, dict[str, tuple[int, int, list[str]]]]
    rows: list[dict]

    @classmethod
    def gather(cls, store: GraphStore, seed: Seed, refs: Sequence[str], fanout: int, cocitation: bool = True) -> Links:
        rows = (
            store.plain(
                "recommend/neighbourhood",
                refs=list(refs),
                exclude=seed.excluded,
                seed=seed.id,
                fanout=fanout,
                as_of=seed.view.as_of,
                cocitation=cocitation,
            )
            if refs
            else []
        )
        by_kind: dict[str, dict[str, tuple[int, int, list[str]]]] = {kind: {} for kind in KINDS}
        for row in rows:  # zip, not paper by paper: a seed co-cites thousands of papers
            by_kind[row["kind"]] = dict(zip(row["ids"], zip(row["counts"], row["citers"], row["via"] or repeat(()))))
        return cls(by_kind, rows)

    def count(self, kind: str, cid: str) -> int:
        return self.by_kind[kind].get(cid, (0,))[0]

    def add_candidates(self, found: Candidates, depth: int) -> None:
        """Each kind's top ``depth`` by citing papers (or references), then id."""
        for row in self.rows:
            for _, cid in heapq.nsmallest(depth, zip(map(operator.neg, row["citers"]), row["ids"])):
                found.at(cid)

    def add_to(self, found: Candidates, seed: Seed) -> None:
        """The paths behind "cited by 3 of your references: A, B, C" and "cites 2 of …"; their
        features come with the candidates' facts."""
        for cid, candidate in found.items():
            for kind, name, template in (
                ("cited_by", "cited_by_references", "cited by {n} of {mine}"),
                ("coupling", "coupling", "cites {n} of {mine}"),
            ):
                if link := self.by_kind[kind].get(cid):
                    count, _, via = link
                    candidate.add(
                        Signal(name, count, template.format(n=count, mine=seed.mine) + path(via, count), tuple(via))
                    )


@dataclass(frozen=True, slots=True)
class Unwanted:
    """Links to the negative seeds: how many of them cite a candidate or are cited by it
    (co-citation alone is too loose a link) is its ``negative`` feature."""

    links: Links

    def add_to(self, found: Candidates, seed: Seed) -> None:
        against = self.links.by_kind
        for cid, candidate in found.items():
            via = tuple(
                dict.fromkeys(
                    p for kind in ("cited_by", "coupling") if cid in against[kind] for p in against[kind][cid][2]
                )
            )
            if via:
                candidate.add(
                    Signal(
                        "negative",
                        -len(via),
                        f"linked to {len(via)} of the papers you marked as not wanted" + path(via, len(via)),
                        via,
                    ),
                    math.log1p(len(via)),
                )


def path(via: Sequence[str], count: int, shown: int = 3) -> str:
    """': A, B, C, …' — the papers a graph signal goes through."""
    return ": " + ", ".join(via[:shown]) + (", …" if count > shown else "") if via else ""
