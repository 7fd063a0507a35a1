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
and the recommender behaves as it does without this module. Reading them is most of a
short command's time (ACL-200 ∪ ScisummNet: 16,586 sentences, 0.7–2.7 s to fetch and 0.8 s
to analyse on 2 busy cores), so :class:`KeptSentences` keeps them, analysed, in a file for as
long as the graph's state — a key that changes with every write — stays the same. The analysis is BM25's
(:func:`citegraph.retrieval.bm25.analyze`, Lucene's imitated), with the ``[CIT]``
marker removed; k1 and b are BM25's defaults.
"""

from __future__ import annotations

import math
import os
import textwrap
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..config import private_folder
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

    def arrays(self) -> dict[str, np.ndarray]:
        """Everything the sentences hold, as arrays of numbers (strings as UTF-8 and offsets):
        what :meth:`from_arrays` restores, with nothing to unpickle."""
        by_term = self.counts.by_term()
        return {
            **_packed("texts", self.texts),
            **_packed("citing_ids", self.citing_ids),
            **_packed("cited_ids", self.cited_ids),
            **_packed("vocabulary", self.counts.vocabulary),  # in column order, as a dict keeps it
            "citing": self.citing,
            "cited": self.cited,
            "years": self.years,
            "lengths": self.counts.lengths,
            "by_term_data": by_term.data,
            "by_term_indices": by_term.indices,
            "by_term_indptr": by_term.indptr,
            "by_term_shape": np.asarray(by_term.shape),
        }

    @classmethod
    def from_arrays(cls, arrays) -> CitingSentences:
        """The sentences :meth:`arrays` gave, as they were (nothing read or analysed again)."""
        from scipy.sparse import csc_matrix

        sentences = cls(())
        sentences.texts = _unpacked(arrays, "texts")
        sentences.citing_ids = np.asarray(_unpacked(arrays, "citing_ids"), dtype=object)
        sentences.cited_ids = np.asarray(_unpacked(arrays, "cited_ids"), dtype=object)
        sentences.citing, sentences.cited, sentences.years = arrays["citing"], arrays["cited"], arrays["years"]
        by_term = csc_matrix(
            (arrays["by_term_data"], arrays["by_term_indices"], arrays["by_term_indptr"]),
            shape=tuple(arrays["by_term_shape"]),
        )
        sentences.counts = TermCounts.of(_unpacked(arrays, "vocabulary"), arrays["lengths"], by_term)
        return sentences

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


def _packed(name: str, strings: Iterable[str]) -> dict[str, np.ndarray]:
    encoded = [text.encode("utf-8") for text in strings]
    return {
        name: np.frombuffer(b"".join(encoded), dtype=np.uint8),
        f"{name}_ends": np.cumsum([len(e) for e in encoded], dtype=np.int64),
    }


def _unpacked(arrays, name: str) -> list[str]:
    blob, ends = arrays[name].tobytes(), arrays[f"{name}_ends"].tolist()
    return [blob[start:end].decode("utf-8") for start, end in zip([0, *ends], ends)]


class KeptSentences:
    """The graph's citing sentences kept, analysed, in ``path`` under the graph's state, for
    commands that would otherwise read and analyse them all again (on a resident graph, in
    less time than that takes: docs/graph.md).

    ``state`` gives a key that changes with every write to the graph, or None when there is
    none to trust (no such key for the graph; a write under way): then the graph is read, and
    nothing is kept. A copy is kept only when the state was the same before and after the
    graph was read, so it never holds sentences of a state other than its key's; one of
    another state is read again and replaced."""

    def __init__(self, path: Path, state: Callable[[], str | None]):
        self.path, self.state = path, state

    def load(self, store) -> CitingSentences | None:
        """The sentences of the graph behind ``store`` (None when it has none), from the copy
        when it is the graph's state's."""
        key = self.state()
        if key is None:
            return CitingSentences.load(store)
        kept = self._read(key)
        if kept is not None:
            return kept or None
        sentences = CitingSentences.load(store)
        if self.state() == key:
            self._write(key, sentences)
        return sentences

    def _read(self, key: str) -> CitingSentences | Literal[False] | None:
        """The copy of state ``key`` (False: the graph had no sentences), or None when there is none."""
        try:
            with np.load(self.path, allow_pickle=False) as arrays:
                if str(arrays["key"]) != key:
                    return None
                return CitingSentences.from_arrays(arrays) if "texts" in arrays else False
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # none yet, or damaged: read the graph
            return None

    def _write(self, key: str, sentences: CitingSentences | None) -> None:
        arrays: dict[str, Any] = {"key": np.asarray(key), **(sentences.arrays() if sentences is not None else {})}
        partial = self.path.with_name(f"{self.path.name}.{os.getpid()}.partial")
        try:
            private_folder(self.path.parent)
            with open(partial, "wb") as out:
                np.savez(out, **arrays)
            os.replace(partial, self.path)  # whole, or not there: a reader never sees half a copy
        except OSError:  # nowhere to keep it: the next command reads the graph again
            partial.unlink(missing_ok=True)
