"""Query-likelihood language models over one reference paper's sentences.

The citing text is the query q, each sentence d of the cited paper a document, ranked by
log p(q|d) = Σ_{q_i ∈ q} log p(q_i|d) (a query term counted once per occurrence).

* **LMD** — Dirichlet smoothing (Zhai & Lafferty):
  p(q_i|d) = (f(q_i, d) + μ·p(q_i|C)) / (|d| + μ).
* **WE** — the embedding model of Cohan & Goharian (2017), Eq. 2: f replaced by
  f_sem(q_i, d) = Σ_{d_j ∈ d} s(q_i, d_j) and |d| by Σ_{w ∈ V} f_sem(w, d) =
  Σ_{d_j ∈ d} Σ_{w ∈ V} s(w, d_j), the relatedness mass of the sentence's terms
  (:meth:`~citegraph.contextualise.word_vectors.WordVectors.mass`); s is
  :func:`~citegraph.contextualise.word_vectors.relatedness`, 1 for the same term.
* **WE+dmn** — p = λ·p_sem + (1 − λ)·p_ont, where p_ont is the same estimate with
  f_ont(q_i, d) = Σ_j s₂(q_i, d_j), s₂ = 1 for the same term, γ for an ontology synonym,
  0 otherwise, and |d| replaced by Σ_j (1 + γ·|synonyms(d_j)|).

**The collection model p(w|C)** (:class:`Background`): term counts over a whole
collection — for CL-SciSumm every reference paper's sentences, in the graph the corpus
the word vectors were trained on — with add-one smoothing, so that a query term no
paper uses still has a probability (a related term in a sentence then still counts).

Everything that does not depend on μ, λ or γ is computed once per (query, paper) by
:func:`prepare` into a :class:`Features`; scoring a parameter setting is then a few
array operations, which is what makes grid search over folds cheap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .ontology import Ontology
    from .word_vectors import WordVectors

MU_GRID = (10, 25, 50, 100, 250, 500, 1000, 2500)
LAMBDA_GRID = (0.0, 0.25, 0.5, 0.75, 1.0)
GAMMA_GRID = (0.0, 0.1, 0.25, 0.5, 1.0)  # the paper's γ ∈ [0, 1]; γ = 0 mixes WE with LMD


@dataclass
class Background:
    """p(w|C) from term counts, add-one smoothed."""

    counts: Counter
    total: int

    @classmethod
    def from_terms(cls, documents: Iterable[Sequence[str]]) -> Background:
        counts: Counter = Counter()
        for terms in documents:
            counts.update(terms)
        return cls(counts, sum(counts.values()))

    def p(self, terms: Sequence[str]) -> np.ndarray:
        denominator = self.total + len(self.counts) + 1
        return np.array([(self.counts.get(t, 0) + 1) / denominator for t in terms])

    def to_json(self) -> dict:
        return {"total": self.total, "counts": dict(self.counts.most_common())}

    @classmethod
    def from_json(cls, data: dict) -> Background:
        return cls(Counter(data["counts"]), int(data["total"]))


class SentenceSet:
    """The analysed sentences of one paper as a term-count matrix (sentences × its terms)."""

    def __init__(self, sentences: Sequence[Sequence[str]]):
        self.vocab = sorted({t for terms in sentences for t in terms})
        self.index = {t: i for i, t in enumerate(self.vocab)}
        self.tf = np.zeros((len(sentences), len(self.vocab)))
        for row, terms in enumerate(sentences):
            for term, n in Counter(terms).items():
                self.tf[row, self.index[term]] = n
        self.length = self.tf.sum(axis=1)
        self._sem: tuple[WordVectors, np.ndarray] | None = None  # the vectors and Σ_w f_sem(w, d)
        self._syn: tuple[Ontology, np.ndarray] | None = None

    def __len__(self) -> int:
        return self.tf.shape[0]

    def exact(self, query: Sequence[str]) -> np.ndarray:
        """f(q_i, d) for each sentence (rows) and query term (columns)."""
        out = np.zeros((len(self), len(query)))
        for k, term in enumerate(query):
            if term in self.index:
                out[:, k] = self.tf[:, self.index[term]]
        return out

    def semantic(self, query: Sequence[str], vectors: WordVectors) -> tuple[np.ndarray, np.ndarray]:
        """f_sem(q_i, d) (sentences × query terms) and Σ_w f_sem(w, d) (sentences)."""
        if self._sem is None or self._sem[0] is not vectors:
            self._sem = vectors, self.tf @ vectors.mass(self.vocab) if self.vocab else np.zeros(len(self))
        similarity = vectors.similarity(query, self.vocab)  # (Q, V_d)
        return self.tf @ similarity.T, self._sem[1]

    def synonyms(self, query: Sequence[str], ontology: Ontology) -> tuple[np.ndarray, np.ndarray]:
        """Σ_j [d_j ≈ q_i] (sentences × query terms) and Σ_j |synonyms(d_j)| (sentences)."""
        if self._syn is None or self._syn[0] is not ontology:
            degree = np.array([len(ontology.synonyms(t)) for t in self.vocab], dtype=float)
            self._syn = ontology, self.tf @ degree if self.vocab else np.zeros(len(self))
        indicator = np.zeros((len(query), len(self.vocab)))
        for k, term in enumerate(query):
            for synonym in ontology.synonyms(term):
                if synonym in self.index:
                    indicator[k, self.index[synonym]] = 1.0
        return self.tf @ indicator.T, self._syn[1]


@dataclass
class Features:
    """What the LM scores need of one (query, paper) pair; see :func:`prepare`."""

    weight: np.ndarray  # (Q,) occurrences of each distinct query term
    p_c: np.ndarray  # (Q,) p(q_i|C)
    f: np.ndarray  # (n, Q) term counts
    length: np.ndarray  # (n,) |d|
    f_sem: np.ndarray | None = None
    sem_length: np.ndarray | None = None
    f_syn: np.ndarray | None = None
    syn_length: np.ndarray | None = None


def prepare(
    query: Sequence[str],
    sentences: SentenceSet,
    background: Background,
    vectors: WordVectors | None = None,
    ontology: Ontology | None = None,
) -> Features:
    counts = Counter(query)
    terms = list(counts)
    features = Features(
        np.array([counts[t] for t in terms], dtype=float), background.p(terms), sentences.exact(terms), sentences.length
    )
    if vectors is not None:
        features.f_sem, features.sem_length = sentences.semantic(terms, vectors)
    if ontology is not None:
        features.f_syn, features.syn_length = sentences.synonyms(terms, ontology)
    return features


def _log_likelihood(weight: np.ndarray, p: np.ndarray) -> np.ndarray:
    return np.log(p) @ weight if weight.size else np.zeros(p.shape[0])


def dirichlet(x: Features, mu: float) -> np.ndarray:
    """LMD: Σ_i log((f + μ p_C) / (|d| + μ)), one score per sentence."""
    p = (x.f + mu * x.p_c) / (x.length[:, None] + mu)
    return _log_likelihood(x.weight, p)


def semantic(x: Features, mu: float) -> np.ndarray:
    """WE: Eq. 2 of the paper."""
    return _log_likelihood(x.weight, _p_sem(x, mu))


def _p_sem(x: Features, mu: float) -> np.ndarray:
    if x.f_sem is None or x.sem_length is None:
        raise ValueError("the semantic models need features prepared with word vectors")
    return (x.f_sem + mu * x.p_c) / (x.sem_length[:, None] + mu)


def interpolated(x: Features, mu: float, lam: float, gamma: float) -> np.ndarray:
    """WE+dmn: λ·p_sem + (1 − λ)·p_ont."""
    if x.f_syn is None or x.syn_length is None:
        raise ValueError("the ontology models need features prepared with an ontology")
    p_ont = (x.f + gamma * x.f_syn + mu * x.p_c) / (x.length[:, None] + gamma * x.syn_length[:, None] + mu)
    p = p_ont if lam == 0 else lam * _p_sem(x, mu) + (1 - lam) * p_ont
    return _log_likelihood(x.weight, p)


def dirichlet_grid() -> list[dict]:
    return [{"mu": mu} for mu in MU_GRID]


def interpolated_grid() -> list[dict]:
    return [
        {"mu": mu, "lam": lam, "gamma": gamma}
        for mu in MU_GRID
        for lam in LAMBDA_GRID
        for gamma in (GAMMA_GRID if lam < 1 else GAMMA_GRID[:1])
    ]
