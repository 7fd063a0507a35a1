"""The contexts signal: papers cited in the graph's sentences most like the seed's text
(:mod:`citegraph.recommend.contexts`), seen through the seed's view — its own sentences
hidden (a held-out citation's sentence is the answer) and, as of a year, those of later papers."""

from __future__ import annotations

from dataclasses import dataclass

from ..candidates import Candidates, Signal
from ..contexts import CitingSentences, ContextMatch
from ..seed import Seed


@dataclass(frozen=True, slots=True)
class ContextMatches:
    matches: list[ContextMatch]  # best first

    @classmethod
    def gather(cls, sentences: CitingSentences | None, seed: Seed, depth: int) -> ContextMatches:
        if sentences is None or not seed.document.text:
            return cls([])
        return cls(
            sentences.search(seed.document.text, depth, hidden=seed.id, as_of=seed.view.as_of, exclude=seed.blocked)
        )

    def add_to(self, found: Candidates, seed: Seed) -> None:
        """``contexts``: the match's score relative to the best one."""
        for match in self.matches:
            value = match.score / self.matches[0].score
            found.at(match.cited).add(Signal("contexts", value, match.explanation(), (match.citing,)), value)
