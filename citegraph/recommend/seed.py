"""What a recommendation is for (:class:`Seed`) and what it may see (:class:`View`).

A seed is a paper of the graph or a new paper's text, with the references already chosen;
its :class:`View` travels with it as one value, so that every statement, every signal and
every filter sees the same as-of year, the same negative papers and the same limits. The
seed's own citation edges are always hidden (they would hand a held-out citation to the
recommender): the Cypher statements take the seed's id for that.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..library.match import Match
from ..retrieval.base import Document


@dataclass(frozen=True, slots=True)
class View:
    """What one recommendation may see and recommend."""

    as_of: int | None = None  # the year of the view: nothing later recommended or used as evidence
    negatives: tuple[str, ...] = ()  # papers the user does not want more of
    field: str | None = None  # only candidates in this MAG field
    category: str | None = None  # only candidates in this arXiv category
    since: int | None = None  # only papers of this year or later (alerts: what is new for the seed)
    ingested_since: str | None = None  # …or ingested on this date (YYYY-MM-DD) or later (with ``since``)


@dataclass(frozen=True, slots=True)
class Seed:
    """What a recommendation is for."""

    id: str = ""  # '' for a paper not in the graph
    title: str = ""
    abstract: str = ""
    year: int | None = None
    references: tuple[str, ...] = ()
    view: View = field(default_factory=View)
    library: bool = False  # the references are the user's library (a set of seeds), not one paper's
    # references that seed the graph side but may still be recommended: a draft's references
    # that the slot at hand does not cite (`cite` blocks a reference only where it is cited)
    suggestible: tuple[str, ...] = ()

    @property
    def mine(self) -> str:
        """What the references are to the user, in explanations."""
        return "your papers" if self.library else "your references"

    @property
    def document(self) -> Document:
        return Document(self.id or "seed", self.title, self.abstract)

    @property
    def excluded(self) -> list[str]:
        """Never a candidate, in order: the seed, its references (but the suggestible ones) and
        the papers it does not want."""
        open_ = set(self.suggestible)
        return [
            *([self.id] if self.id else []),
            *(r for r in self.references if r not in open_),
            *self.view.negatives,
        ]

    @property
    def blocked(self) -> set[str]:
        return set(self.excluded)


@dataclass(frozen=True, slots=True)
class Asked:
    """A seed and how the entries the user gave were matched to the graph (:meth:`Recommender.ask`)."""

    seed: Seed
    library: list[Match]
    negatives: list[Match]

    @property
    def matches(self) -> list[Match]:
        return [*self.library, *self.negatives]


def earliest(year: int | None, as_of: int | None) -> int | None:
    """A seed's year seen as of a year: the earlier of the two."""
    return min((y for y in (year, as_of) if y is not None), default=None)
