"""The parts several answers share: how a library entry was matched, a recommendation with its
reasons, the seed a recommendation was for. Each is made from the recommender's own value
(:meth:`MatchOut.of`, :meth:`RecommendationOut.of`), so every door answers the same fields."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..library.match import Match
from ..recommend import Recommendation, Seed
from ..recommend.candidates import Fate, Stage


class MatchOut(BaseModel):
    """How an entry of a library (an id, a DOI, a bibliography's record) met the graph."""

    entry: str = Field(description="The entry as given, or where it is: 'refs.bib:12 (key)'")
    paper: str | None = Field(description="The graph paper it matched (null: none)")
    how: str = Field(description="How it matched (paper id, DOI, title and its score), or why it did not")
    title: str = Field("", description="The matched paper's title; unmatched, the entry's own")
    warnings: list[str] = Field([], description="What the entry holds that its format would not resolve either")

    @classmethod
    def of(cls, match: Match) -> MatchOut:
        return cls(
            entry=match.entry.where,
            paper=match.paper,
            how=match.how,
            title=match.title if match.paper else match.entry.title,
            warnings=list(match.entry.warnings),
        )


class SignalOut(BaseModel):
    """A signal behind a recommendation."""

    name: str
    value: float
    text: str
    via: list[str] = Field(description="The papers on the graph path")


class RecommendationOut(BaseModel):
    id: str
    title: str
    year: int | None
    score: float
    explanation: list[str] | None = Field(None, description="Why, one reason a line (null: not asked for)")
    signals: list[SignalOut] | None = Field(None, description="The signals behind the reasons (null: not asked for)")

    @classmethod
    def of(cls, found: Recommendation, explain: bool = True) -> RecommendationOut:
        return cls(
            id=found.id,
            title=found.title,
            year=found.year,
            score=found.score,
            explanation=found.explanation() if explain else None,
            signals=[SignalOut(name=s.name, value=s.value, text=s.text, via=list(s.via)) for s in found.signals]
            if explain
            else None,
        )


class WhyOut(BaseModel):
    """What became of one paper asked about (``--why``, ``explain``): its rank among every
    candidate, or the stage that dropped it."""

    candidate: str
    candidate_found: bool = Field(description="Whether the paper is a candidate for the seed at all")
    stage: Stage = Field(
        description="recommended (within k), below k, blocked (the seed, already cited, not wanted, newer than "
        "the seed or the as-of date, outside the field or category, a stub), not enriched (linked to the "
        "references in the graph but cut by the graph side's depth), not retrieved (found by nothing)"
    )
    title: str | None = None
    rank: int | None = Field(default=None, description="Its rank among every candidate")
    of: int | None = Field(default=None, description="How many candidates were ranked")
    score: float | None = None
    features: dict[str, float] = Field(default={}, description="The features its score weighs")
    explanation: list[str] = Field(default=[], description="Its reasons, one a line")
    why_not: str | None = Field(default=None, description="Why it is not recommended, in words (null: it is)")

    @classmethod
    def of_fate(cls, fate: Fate) -> WhyOut:
        found = fate.rank is not None
        return cls(
            candidate=fate.id,
            candidate_found=found,
            stage=fate.stage,
            title=fate.title,
            rank=fate.rank,
            of=fate.of,
            score=fate.score,
            features=fate.features,
            explanation=[s.text for s in fate.signals],
            why_not=None if fate.stage == "recommended" else fate.why if found else f"not a candidate — {fate.why}",
        )


class SeedOut(BaseModel):
    """What was recommended for: a graph paper (its id), a new paper's text ('' id) or a library."""

    id: str
    title: str
    year: int | None
    references: list[str] = Field(description="The references (a library: its papers) that seed the graph side")

    @classmethod
    def of(cls, seed: Seed) -> SeedOut:
        return cls(id=seed.id, title=seed.title, year=seed.year, references=list(seed.references))
