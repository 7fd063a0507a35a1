"""The recommender's contexts signal: a candidate cited in sentences like the seed's text.

Where the graph's ``CITES`` edges carry the citing sentences (ScisummNet, unarXive, S2ORC
…), a paper is also described by what others wrote when they cited it. The seed's text
(title and abstract, or a free text) is scored with BM25 against each cited paper's
citing sentences **joined into one document**, and the explanation quotes the paper's
sentence that matches best ("cited in contexts like: '…'"). The feature is the score
relative to the best paper's (1.0 for the best), as each retriever's is normalised.

Why joined and not each paper's best sentence: measured with ``recommend-train`` on 300
held-out citations of ACL-200 ∪ ScisummNet (seed 0, on a draw whose test papers still
overlapped its training papers), the learned recommender's MRR was 0.213 without the signal,
0.216 with the best sentence, 0.223 with the joined sentences; R@20 moved by at most one
paper in 300. On disjoint training and test papers the signal does not pay at all (what
``citegraph repro run recommend-contexts`` prints now, docs/recommend.md). One
sentence is short and matches few of the query's words; the joined sentences gather the
ways a paper is cited (ScisummNet keeps at most about 20 sentences per paper, so much
cited papers do not grow without bound).

The sentences, their view and their scoring live in :mod:`citegraph.retrieval.citing_sentences`
(local recommendation's candidate profiles read them too); here they are seen through the
seed's view — its own sentences hidden (a held-out citation's sentence is the answer) and, as
of a year, those of later papers.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...retrieval.citing_sentences import CitingSentences, ContextMatch
from ..candidates import Candidates, Signal
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
