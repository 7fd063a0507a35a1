"""The candidates of one seed: their features (what the weights score), the signals that
fired (what explanations show) and what the graph says of them (:class:`Facts`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True, slots=True)
class Signal:
    name: str
    value: float
    text: str
    via: tuple[str, ...] = ()  # the papers on the graph path


@dataclass(frozen=True, slots=True)
class Facts:
    """A candidate as the graph describes it for this seed (``recommend/features`` and the
    references' neighbourhood), seen through the seed's view."""

    title: str | None
    year: int | None
    external: bool
    citations: int  # by papers other than the seed (as of the view's year)
    ingested: str | None
    cocitation: int = 0  # co-citations with the seed's references
    coupling: int = 0  # the seed's references it cites
    overlap: float = 0.0  # MDCR's O: (cited by + coupling) / references


@dataclass
class Candidate:
    """A paper considered for a seed. ``facts`` is None until the graph has described it;
    candidates it does not describe (outside the field, or gone) are dropped."""

    id: str
    features: dict[str, float] = field(default_factory=dict)
    signals: list[Signal] = field(default_factory=list)
    facts: Facts | None = None

    def add(self, signal: Signal, feature: float | None = None, name: str | None = None) -> None:
        """A signal that fired, and the feature it sets (under ``name``, or the signal's own)."""
        if feature is not None:
            self.features[name or signal.name] = feature
        self.signals.append(signal)


class Candidates(dict[str, Candidate]):
    """A seed's candidates by id, in the order they were found (which the statements keep)."""

    def at(self, cid: str) -> Candidate:
        """The candidate ``cid``, added if new."""
        found = self.get(cid)
        if found is None:
            found = self[cid] = Candidate(cid)
        return found


@dataclass
class Recommendation:
    id: str
    title: str
    year: int | None
    score: float
    signals: list[Signal] = field(default_factory=list)

    def explanation(self) -> list[str]:
        return [s.text for s in self.signals]


#: Where a paper asked about (``--why``) ended for a seed, in the recommender's order: ranked
#: within the top k, ranked below it, left out by the seed's view or its own papers, linked to
#: the references in the graph but cut by the graph side's depth, or found by nothing.
Stage = Literal["recommended", "below k", "blocked", "not enriched", "not retrieved"]


@dataclass(frozen=True, slots=True)
class Fate:
    """What became of one paper for a seed (:meth:`Recommender.fates`): its stage, in words
    (``why``), and, for a candidate, its rank among every candidate, score, features and
    signals."""

    id: str
    stage: Stage
    why: str  # the stage in words: "rank 25 of 163, below k = 20", "blocked: already cited (…)"
    title: str | None = None
    rank: int | None = None
    of: int | None = None  # candidates ranked
    score: float | None = None
    features: dict[str, float] = field(default_factory=dict)
    signals: list[Signal] = field(default_factory=list)
