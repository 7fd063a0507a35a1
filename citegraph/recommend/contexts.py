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

The sentences, their view and their scoring live in :mod:`citegraph.local.sentences`
(local recommendation's candidate profiles read them too); this module names what the
recommender uses of them.
"""

from __future__ import annotations

from ..local.sentences import CitingSentences, ContextMatch, excerpt

__all__ = ["CitingSentences", "ContextMatch", "excerpt"]
