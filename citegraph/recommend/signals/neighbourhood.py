"""The references' neighbourhood in the graph (one ``recommend/neighbourhood`` statement):
papers cited by the references, papers coupled with the seed (citing its references) and
papers co-cited with them, each through at most ``fanout`` citing papers of a reference;
and the same links to the papers the user does not want, which push candidates down."""

from __future__ import annotations

import heapq
import math
import operator
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ...graph import GraphStore
from ...retrieval.signals import refuse_unlisted
from ..candidates import Candidates, Signal
from ..seed import Seed

KINDS = ("cited_by", "coupling", "cocitation")


@dataclass(frozen=True, slots=True)
class Links:
    """Per kind: paper id → count, and for 'cited_by' and 'coupling' paper id → the papers on
    the path; every kind present. Flat dicts built by ``dict(zip(…))``: a seed co-cites
    thousands of papers, and a tuple per paper was the largest Python cost of a request."""

    counts: dict[str, dict[str, int]]
    via: dict[str, dict[str, list[str]]]
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
        counts: dict[str, dict[str, int]] = {kind: {} for kind in KINDS}
        via: dict[str, dict[str, list[str]]] = {kind: {} for kind in KINDS}
        for row in rows:
            counts[row["kind"]] = dict(zip(row["ids"], row["counts"]))
            if row["via"]:
                via[row["kind"]] = dict(zip(row["ids"], row["via"]))
        if cocitation and counts["coupling"] and not counts["cocitation"]:  # co-citation reads cited_ids
            refuse_unlisted(store, list(counts["coupling"]))
        return cls(counts, via, rows)

    def candidates(self, depth: int, stubs: Collection[str] = frozenset()) -> list[str]:
        """Each kind's top ``depth`` by citing papers (or references), then id, leaving out
        ``stubs`` (co-citation counts :External stubs too: ``recommend/neighbourhood``)."""
        chosen = []
        for row in self.rows:
            top = heapq.nsmallest(depth + len(stubs), zip(map(operator.neg, row["citers"]), row["ids"]))
            chosen += [cid for _, cid in top if cid not in stubs][:depth]
        return chosen

    def add_to(self, found: Candidates, seed: Seed) -> None:
        """The paths behind "cited by 3 of your references: A, B, C" and "cites 2 of …"; their
        features come with the candidates' facts."""
        for kind, name, template in (
            ("cited_by", "cited_by_references", "cited by {n} of {mine}"),
            ("coupling", "coupling", "cites {n} of {mine}"),
        ):
            counts, via = self.counts[kind], self.via[kind]
            for cid in found.keys() & counts.keys():  # iterates the smaller of the two
                count, path_ = counts[cid], via[cid]
                found[cid].add(
                    Signal(name, count, template.format(n=count, mine=seed.mine) + path(path_, count), tuple(path_))
                )


@dataclass(frozen=True, slots=True)
class Unwanted:
    """Links to the negative seeds: how many of them cite a candidate or are cited by it
    (co-citation alone is too loose a link) is its ``negative`` feature."""

    links: Links

    def add_to(self, found: Candidates, seed: Seed) -> None:
        cited_by, coupling = self.links.via["cited_by"], self.links.via["coupling"]
        for cid in found.keys() & (cited_by.keys() | coupling.keys()):
            candidate = found[cid]
            via = tuple(dict.fromkeys([*cited_by.get(cid, ()), *coupling.get(cid, ())]))
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
