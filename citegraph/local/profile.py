"""The public profile of a candidate: its own text plus the sentences that cite it (Goyal et
al. 2026, DAVINCI's "Profiler"), read from the graph's ``CITES.contexts`` under the held-out view.

A paper is also described by what others wrote when they cited it, and the graph keeps those
sentences on its citation edges: a flat index of titles and abstracts has no such thing. The
profile is used on both sides that can take it:

* **BM25 over profiles** (:func:`prefetch_over_profiles`): the prefetcher's spec indexed over
  each candidate's title, and its abstract followed by its profile sentences (placeholders
  removed), ranking the test contexts as the plain prefetcher does — a row beside it;
* **the bi-encoder's candidate vector** (:class:`ProfileMix`): the unit mix
  ``(1 − w)·t + w·m`` of the candidate's text vector ``t`` and the mean ``m`` of its profile
  sentences' vectors (both unit length; a candidate without sentences keeps ``t``), the
  weight ``w`` chosen on a validation slice of the *training* contexts (:meth:`ProfileMix.tune`).

**What a profile may hold.** Only what the held-out view shows (query ``local/profile_sentences``):
sentences of dated citing papers before the cut, never one of a validation or test citing paper
— so a test context's own sentence, whose citing paper is held out, can never reach its
candidate — and, for a training context (the validation slice), never one of its own citing
paper: that sentence *is* the query, and matching it would teach the weight to match exact
sentences (:meth:`Profiles.chosen`'s ``hidden``). tests/test_profile.py checks both on a real
server and fails when the restriction is taken away.

**Which sentences.** At most ``cap`` per candidate (``--profile-sentences``, default
:data:`~.config.PROFILE_SENTENCES`), the **newest** first (citing year, then citing paper id,
then position on the edge): the test contexts are the newest citing papers, and the newest
sentences describe a paper as the field cites it by then; a cap keeps a much cited paper's
profile from drowning its own text (ScisummNet keeps about 20 sentences per paper). The cap
applies after the view, so hiding a paper's sentences lets an older one in.

**Why the validation slice is trained on.** The slice is the newest :data:`VALIDATION`
training contexts, which the bi-encoder was also fine-tuned on: the ``without`` row stays the
model of a run without profiles, and the bias runs against the profile (the model already
matches these queries' cited texts well, so the text vector looks better than on unseen ones).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..evaluation.metrics import evaluate
from ..retrieval.base import Document, Ranking, rank
from ..retrieval.citing_sentences import CitingSentences
from . import prefetch as prefetching
from .config import PROFILE_SENTENCES, PrefetchConfig
from .data import Context, normalise_markers, without_placeholders

if TYPE_CHECKING:
    from .biencoder import BiEncoder
    from .enrich import HeldOutView
    from .stages import Corpus

VALIDATION = 200  # the newest training contexts, on which the bi-encoder's weight is chosen
WEIGHTS = tuple(round(0.1 * k, 1) for k in range(11))  # the grid of w


def view_sentences(view: HeldOutView) -> CitingSentences:
    """The citing sentences the held-out ``view`` shows (the module docstring)."""
    return CitingSentences(view.store.plain("local/profile_sentences", held_out=list(view.held_out)))


class Profiles:
    """Each cited paper's profile sentences: at most ``cap``, newest first, under a view."""

    def __init__(self, sentences: CitingSentences, cap: int = PROFILE_SENTENCES):
        self.sentences, self.cap = sentences, cap
        position = np.arange(len(sentences))
        # by cited paper; within it newest citing paper first, then citing id, then position
        self.order = np.lexsort((position, sentences.citing, -sentences.years, sentences.cited))
        cited = sentences.cited[self.order]
        self.starts = np.flatnonzero(np.r_[True, cited[1:] != cited[:-1]]) if len(cited) else np.array([], int)

    def chosen(self, hidden: str = "") -> np.ndarray:
        """Which sentences are in a profile when the citing paper ``hidden`` (a training
        context's own) is hidden too: the first ``cap`` shown of each cited paper in order."""
        shown = self.sentences.visible(hidden)[self.order]
        running = np.cumsum(shown)
        before = (running - shown)[self.starts]  # shown sentences before each cited paper's group
        sizes = np.diff(np.r_[self.starts, len(shown)])
        kept = shown & (running - np.repeat(before, sizes) <= self.cap)
        mask = np.zeros(len(shown), dtype=bool)
        mask[self.order[kept]] = True
        return mask

    def of(self, hidden: str = "") -> dict[str, list[str]]:
        """Cited paper id → its profile sentences, newest first."""
        s = self.sentences
        found: dict[str, list[str]] = {}
        for row in self.order[self.chosen(hidden)[self.order]]:
            found.setdefault(s.cited_ids[s.cited[row]], []).append(s.texts[row])
        return found

    def documents(self, documents: Iterable[Document]) -> list[Document]:
        """``documents`` with each one's profile sentences after its abstract (placeholders removed)."""
        profile = self.of()
        return [
            Document(
                d.id,
                d.title,
                " ".join(
                    [d.abstract, *(without_placeholders(normalise_markers(t)) for t in profile.get(d.id, ()))]
                ).strip(),
                d.keywords,
            )
            for d in documents
        ]


def prefetch_over_profiles(
    profiles: Profiles, corpus: Corpus, contexts: Sequence[Context], config: PrefetchConfig, work: Path
) -> list[list[str]]:
    """The top ``depth`` of each (test) context from the prefetcher's spec indexed over the
    profile documents of the corpus's papers with text (no other candidate than the plain
    prefetcher's: a paper without text stays out, whatever cites it)."""
    retriever = prefetching.build_prefetcher(config.spec, profiles.documents(corpus.documents), work)
    return prefetching.prefetch(retriever, contexts, corpus.years, config.depth)


@dataclass
class ProfileMix:
    """A fine-tuned bi-encoder's candidate vectors mixed with their profile sentences' mean."""

    model: BiEncoder
    profiles: Profiles
    sentence_vectors: dict[int, np.ndarray] = field(default_factory=dict, init=False, repr=False)  # by row

    def rank(
        self, contexts: Sequence[Context], candidates: Sequence[Sequence[str]], weight: float, own: bool = False
    ) -> list[Ranking]:
        """Each context's candidates by cosine to the mixed vectors; with ``own`` (training
        contexts) each context's own citing paper is hidden from every profile."""
        return self.encode(contexts, candidates, own).rank(weight)

    def encode(self, contexts: Sequence[Context], candidates: Sequence[Sequence[str]], own: bool = False) -> Encoded:
        """The vectors :meth:`rank` mixes, each text and sentence encoded once, for any weight."""
        s = self.profiles.sentences
        lists = [list(dict.fromkeys(ids)) for ids in candidates]
        ids = list(dict.fromkeys(p for ordered in lists for p in ordered))
        texts = list(dict.fromkeys(self.model.text_of(p) for p in ids))
        text_row = {t: i for i, t in enumerate(texts)}
        hidden = [c.citing if own else "" for c in contexts]
        views = list(dict.fromkeys(hidden))
        wanted = np.isin(s.cited_ids[s.cited], ids) if len(s) else np.zeros(0, dtype=bool)
        masks = [self.profiles.chosen(h) & wanted for h in views]
        rows = np.flatnonzero(np.logical_or.reduce(masks)) if masks and len(s) else np.zeros(0, dtype=int)
        text_vectors = self.model.embed(texts)
        missing = [int(r) for r in rows if r not in self.sentence_vectors]  # the tuning encoded many already
        self.sentence_vectors.update(zip(missing, self.model.embed([s.texts[r] for r in missing])))
        sentence_vectors = np.zeros((len(s), text_vectors.shape[1]), dtype=np.float32)
        for r in rows:
            sentence_vectors[r] = self.sentence_vectors[int(r)]
        means = np.concatenate(
            [_unit_sums(s.cited, len(s.cited_ids), m, sentence_vectors) for m in masks]
            or [np.zeros((0, text_vectors.shape[1]), dtype=np.float32)]
        )
        position = {p: i for i, p in enumerate(s.cited_ids)}
        offset = {h: k * len(s.cited_ids) for k, h in enumerate(views)}
        return Encoded(
            self.model.embed([c.query_text for c in contexts]),
            lists,
            text_vectors,
            [np.array([text_row[self.model.text_of(p)] for p in ordered], dtype=int) for ordered in lists],
            means,
            [
                np.array([offset[h] + position[p] if p in position else -1 for p in ordered], dtype=int)
                for ordered, h in zip(lists, hidden)
            ],
        )

    def tune(self, validation: Sequence[Context], candidates: Sequence[Sequence[str]]) -> tuple[float, dict]:
        """The weight of :data:`WEIGHTS` with the best MRR on the validation contexts (their own
        papers hidden from the profiles), the smallest on ties; and the MRR of each."""
        qrels = {c.id: dict.fromkeys(c.cited, 1) for c in validation}
        encoded = self.encode(validation, candidates, own=True)
        mrr = {}
        for weight in WEIGHTS:
            ranked = dict(zip((c.id for c in validation), encoded.rank(weight)))
            mrr[weight] = evaluate(qrels, ranked, ["MRR"]).mean["MRR"]
        return max(WEIGHTS, key=lambda w: (mrr[w], -w)), mrr


@dataclass(frozen=True)
class Encoded:
    """Contexts and their candidates as vectors: each candidate's text vector and the unit mean
    of its profile sentences' vectors under the context's view (row -1: it has none)."""

    queries: np.ndarray
    lists: list[list[str]]
    text_vectors: np.ndarray
    text_rows: list[np.ndarray]
    means: np.ndarray
    mean_rows: list[np.ndarray]

    def rank(self, weight: float) -> list[Ranking]:
        rankings = []
        for q, ordered, text_rows, mean_rows in zip(self.queries, self.lists, self.text_rows, self.mean_rows):
            t = self.text_vectors[text_rows].astype(np.float64)
            m = t.copy()
            has = mean_rows >= 0
            m[has] = self.means[mean_rows[has]]
            has[has] = np.linalg.norm(m[has], axis=1) > 0
            m[~has] = t[~has]
            mixed = (1 - weight) * t + weight * m
            mixed /= np.maximum(np.linalg.norm(mixed, axis=1, keepdims=True), 1e-12)
            rankings.append(rank(dict(zip(ordered, (mixed @ q).tolist())), len(ordered)))
        return rankings


def _unit_sums(groups: np.ndarray, size: int, mask: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Per group (``size`` of them), the unit sum of the ``mask``-ed rows' vectors (a zero row: none)."""
    rows = np.flatnonzero(mask)
    sums = np.zeros((size, vectors.shape[1]), dtype=np.float64)
    np.add.at(sums, groups[rows], vectors[rows])
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    return np.divide(sums, norms, out=np.zeros_like(sums), where=norms > 0).astype(np.float32)


def biencoder_row(
    model: BiEncoder,
    profiles: Profiles,
    train: Sequence[Context],
    prefetched: Sequence[Sequence[str]],
    test: Sequence[Context],
    candidates: Sequence[Sequence[str]],
) -> tuple[dict[str, Ranking], dict[str, Any]]:
    """The fine-tuned ``model`` with profiles ranking the test ``candidates``, its weight tuned on
    the newest :data:`VALIDATION` training contexts (time order) and their ``prefetched`` lists;
    what it did, for results.json."""
    started = time.perf_counter()
    mix = ProfileMix(model, profiles)
    weight, tried = mix.tune(train[-VALIDATION:], prefetched[-VALIDATION:])
    ranked = dict(zip((c.id for c in test), mix.rank(test, candidates, weight)))
    return ranked, {
        "profile_weight": weight,
        "validation_contexts": len(train[-VALIDATION:]),
        "validation_mrr": {str(w): round(m, 4) for w, m in tried.items()},
        "profile_sentences": profiles.cap,
        "seconds": round(time.perf_counter() - started, 1),
    }
