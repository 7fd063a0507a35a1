"""The graph's citing sentences (``CITES.contexts``) as a term matrix, seen through a view.

Where the graph's ``CITES`` edges carry the sentences that cite a paper (ScisummNet,
unarXive, S2ORC …), those sentences describe the cited paper in other people's words. Two
parts read them: the recommender's contexts signal (:mod:`citegraph.recommend.signals.contexts`)
and the public profile of local recommendation's candidates (:mod:`citegraph.local.profile`).

**The view.** :meth:`CitingSentences.visible` hides the sentences of one citing paper
(``hidden``) and, as of a year, those of later (or undated) citing papers: neither as matches
nor in the BM25 statistics (sentence count, average length, document frequencies are those of
the sentences the view shows). The recommender hides its seed's: a held-out citation's
sentence was written by the seed paper and paraphrases its abstract, so counting it would
hand the answer over; a profile hides a training context's own paper's. An index built once
cannot forget documents per query, so every query scores the sentence matrix with BM25's
kernel (:mod:`citegraph.retrieval.bm25.kernel`) under the statistics of its view: the shown
sentences, joined per cited paper by a sparse product.

The sentences are read from the graph once, when the recommender first needs them
(:meth:`CitingSentences.load`); a graph without any (ACL-200 alone) gives no signal,
and the recommender behaves as it does without this module. The analysis is BM25's
(:func:`citegraph.retrieval.bm25.analyze`, Lucene's imitated), with the ``[CIT]``
marker removed; k1 and b are BM25's defaults.
"""

from __future__ import annotations

import math
import textwrap
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..vocabulary import CONTEXT_MARKER
from .bm25 import K1, B, analyze
from .bm25.kernel import Statistics, TermCounts

SHOWN = 200  # characters of the best sentence shown in an explanation


@dataclass(frozen=True, slots=True)
class ContextMatch:
    """A cited paper and its best-matching citing sentence."""

    cited: str
    score: float
    sentence: str
    citing: str  # the paper that wrote the sentence

    def explanation(self) -> str:
        return f"cited in contexts like: '{excerpt(self.sentence)}' ({self.citing})"


def excerpt(sentence: str, width: int = SHOWN) -> str:
    """At most ``width`` characters of a sentence, from a word about ``width / 2`` before its
    ``[CIT]`` marker when the marker would be cut off otherwise ("… as in [CIT] …")."""
    marker = sentence.find(CONTEXT_MARKER)
    start = 0 if marker < width // 2 else sentence.rfind(" ", 0, marker - width // 2) + 1
    return ("… " if start else "") + textwrap.shorten(sentence[start:], width, placeholder=" …")


class CitingSentences:
    """Every citing sentence of the graph as a term matrix, scored per query under a view."""

    def __init__(self, rows: Iterable[dict]):
        citing, years, cited, self.texts = [], [], [], []
        for row in rows:
            for sentence in row["contexts"]:
                citing.append(row["citing"])
                years.append(math.nan if row["year"] is None else row["year"])
                cited.append(row["cited"])
                self.texts.append(sentence)
        self.citing_ids, self.citing = np.unique(np.asarray(citing, dtype=object), return_inverse=True)
        self.cited_ids, self.cited = np.unique(np.asarray(cited, dtype=object), return_inverse=True)
        self.years = np.asarray(years, dtype=float)
        self.counts = TermCounts(analyze(text.replace(CONTEXT_MARKER, " ")) for text in self.texts)

    @classmethod
    def load(cls, store) -> CitingSentences | None:
        """The graph's citing sentences (recommend/contexts), or None when it has none."""
        rows = store.plain("recommend/contexts")
        return cls(rows) if rows else None

    def __len__(self) -> int:
        return len(self.texts)

    def visible(self, hidden: str = "", as_of: int | None = None) -> np.ndarray:
        """The sentences a view shows: not the ``hidden`` paper's own, as of a year none later."""
        shown = self.counts.lengths > 0  # like Lucene, a sentence without terms is not in the statistics
        at = np.searchsorted(self.citing_ids, hidden)
        if hidden and at < len(self.citing_ids) and self.citing_ids[at] == hidden:
            shown &= self.citing != at
        if as_of is not None:
            shown &= self.years <= as_of  # NaN (undated) compares false: hidden
        return shown

    def cited_in_view(self, paper: str, hidden: str = "", as_of: int | None = None) -> bool:
        """Whether ``paper`` is cited in a sentence the view shows."""
        at = np.searchsorted(self.cited_ids, paper)
        if at == len(self.cited_ids) or self.cited_ids[at] != paper:
            return False
        return bool((self.visible(hidden, as_of) & (self.cited == at)).any())

    def search(
        self, query: str, depth: int, *, hidden: str = "", as_of: int | None = None, exclude: Iterable[str] = ()
    ) -> list[ContextMatch]:
        """The ``depth`` cited papers (not in ``exclude``) whose visible citing sentences,
        joined, match ``query`` best (BM25), best first, ties by id; each with its best sentence."""
        shown = self.visible(hidden, as_of)
        if not shown.any():
            return []
        from scipy.sparse import csr_matrix

        repeated = Counter(analyze(query.replace(CONTEXT_MARKER, " ")))
        terms = list(repeated)
        repeats = [repeated[t] for t in terms]
        frequencies = self.counts.frequencies(terms)  # sentences × query terms
        rows = np.flatnonzero(shown)
        joined = csr_matrix((np.ones(len(rows)), (self.cited[rows], rows)), shape=(len(self.cited_ids), len(self)))
        # the sentences' scores choose the one to quote; the papers' (their sentences joined) rank
        sentence_scores = Statistics(self.counts.lengths, shown).saturations(frequencies, repeats, K1, B)
        scores = Statistics(joined @ self.counts.lengths.astype(float)).scores(joined @ frequencies, repeats, K1, B)
        hits = np.flatnonzero(sentence_scores > 0)
        order = hits[np.lexsort((hits, -sentence_scores[hits], self.cited[hits]))]
        _, first = np.unique(self.cited[order], return_index=True)
        skip = set(exclude)
        found = sorted(
            (
                ContextMatch(
                    self.cited_ids[self.cited[row]],
                    float(scores[self.cited[row]]),
                    self.texts[row],
                    self.citing_ids[self.citing[row]],
                )
                for row in order[first]
                if self.cited_ids[self.cited[row]] not in skip
            ),
            key=lambda m: (-m.score, m.cited),
        )
        return found[:depth]
