"""Word vectors for the embedding language model: training, τ, φ, retrofitting.

**Terms.** The vectors are trained on the terms the models score: the output of
:func:`citegraph.retrieval.bm25.analyze` (Lucene's tokenisation, stopwords removed,
Porter stems). A vector is therefore one per stem ("translat" stands for translation,
translate, translated), so no query word misses its vector for being inflected.

**Training** (:func:`train_word2vec`): gensim's Word2Vec, skip-gram with negative
sampling and window 5 as in Cohan & Goharian (2017), gensim's default minimum count 5,
but 100 dimensions rather than 300 and more epochs, because the corpora here (a
benchmark's papers, the titles, abstracts and citation contexts of the graph) are small.
The minimum count matters: words seen two to four times get poorly trained vectors that
sit close to hundreds of others, so a sentence holding one gets an enormous
Σ_w f_sem(w, d) (on CL-SciSumm, with min_count 2 one term in a hundred has a relatedness
mass over 387, with min_count 5 over 105). One worker thread and a fixed hash make it
reproducible: same corpus and seed, same vectors. Nothing is downloaded. The trained
vectors are centred (:func:`centred`), which small corpora need for τ to mean anything.

**τ** (:func:`noise_threshold`): the mean plus two standard deviations of ``|cos|``
between two random samples of the vocabulary (1,000 words each by default; pairs of a
word with itself excluded), as the paper chooses it.

**φ and s(q, t)** (:func:`relatedness`): the paper's s(q, t) = φ(e(q)·e(t)) when the
cosine exceeds τ, else 0, with φ(x) = log(x / (1 − x)) the logit. The logit is infinite
at x = 1 and negative below x = 0.5, and a negative "frequency" would make the Dirichlet
estimate negative, so here

* an identical term counts 1 — exactly as in the term count f — so f_sem ≥ f, and the
  Dirichlet model is the special case of a model that knows no related words;
* a different term counts φ(cos) clipped to [0, 1]: nothing up to cos = 0.5 (the logit's
  damping of weakly related words, on top of τ), rising steeply to 1 at cos ≈ 0.73; no
  related word counts more than the word itself.

**Retrofitting** (:func:`retrofit`): Faruqui et al. (2015), 10 iterations of
q_i ← (α q̂_i + Σ_j β_ij q_j) / (α + Σ_j β_ij) over the ontology's term pairs, with α = 1
and β_ij = 1/degree(i) as in their code; the vectors are renormalised afterwards.

A :class:`WordVectors` folder holds ``vectors.npy`` (unit rows, float32), ``terms.txt``
and ``meta.json`` (training settings and corpus size).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import CitegraphError

if TYPE_CHECKING:
    from .ontology import Ontology

VECTORS, TERMS, META = "vectors.npy", "terms.txt", "meta.json"
DIM, WINDOW, MIN_COUNT, EPOCHS, NEGATIVE = 100, 5, 5, 20, 5
#: Token passes Word2Vec makes by default: 20 epochs of a 1M-token corpus, fewer (down to 5)
#: over larger ones — the ScisummNet full texts (3.4M tokens) get 5, as gensim's default.
PASSES, MIN_EPOCHS = 20_000_000, 5
TAU_SAMPLE = 1000
_EPS = 1e-6


def phi(x: np.ndarray | float) -> np.ndarray:
    """The logit log(x / (1 − x)), for x in (0, 1)."""
    x = np.clip(np.asarray(x, dtype=np.float64), _EPS, 1 - _EPS)
    return np.log(x / (1 - x))


def relatedness(cosines: np.ndarray, tau: float) -> np.ndarray:
    """s for different terms: φ(cos) clipped to [0, 1] where cos > τ, else 0 (see the module doc)."""
    cosines = np.asarray(cosines, dtype=np.float64)
    return np.where(cosines > tau, np.clip(phi(cosines), 0.0, 1.0), 0.0)


@dataclass
class WordVectors:
    """Unit-length vectors of analysed terms (stems)."""

    terms: list[str]
    vectors: np.ndarray  # (V, dim) float32, unit rows
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.vectors = np.asarray(self.vectors, dtype=np.float32)
        if self.vectors.ndim != 2 or len(self.vectors) != len(self.terms):
            raise CitegraphError(f"{len(self.terms)} terms but vectors of shape {self.vectors.shape}")
        norms = np.linalg.norm(self.vectors, axis=1, keepdims=True)
        self.vectors = self.vectors / np.where(norms == 0, 1, norms)
        self.index = {t: i for i, t in enumerate(self.terms)}
        self._tau: float | None = self.meta.get("tau")
        self._mass = np.full(len(self.terms), np.nan)

    def __len__(self) -> int:
        return len(self.terms)

    # -- τ and the relatedness mass ----------------------------------------------------
    @property
    def tau(self) -> float:
        if self._tau is None:
            self._tau = noise_threshold(self.vectors)
            self.meta["tau"] = self._tau
        return self._tau

    def cosines(self, a: Iterable[str], b: Iterable[str]) -> np.ndarray:
        """Cosines between the terms ``a`` (rows) and ``b`` (columns); 0 where either is unknown."""
        a, b = list(a), list(b)
        out = np.zeros((len(a), len(b)))
        ia = [(k, self.index[t]) for k, t in enumerate(a) if t in self.index]
        ib = [(k, self.index[t]) for k, t in enumerate(b) if t in self.index]
        if ia and ib:
            rows, cols = np.array(ia).T, np.array(ib).T
            out[np.ix_(rows[0], cols[0])] = self.vectors[rows[1]] @ self.vectors[cols[1]].T
        return out

    def similarity(self, a: Iterable[str], b: Iterable[str]) -> np.ndarray:
        """s(a_i, b_j): 1 for the same term, else :func:`relatedness` of their vectors."""
        a, b = list(a), list(b)
        s = relatedness(self.cosines(a, b), self.tau)
        same = np.array(a, dtype=object)[:, None] == np.array(b, dtype=object)[None, :] if a and b else s > 0
        return np.where(same, 1.0, s)

    def mass(self, terms: Iterable[str]) -> np.ndarray:
        """Σ_{w ∈ V} s(w, t) for each term t: what t adds to the semantic model's |d|.

        1 for a term without a vector (it only matches itself); computed on first need
        per term, a block of the vocabulary at a time, and kept.
        """
        terms = list(terms)
        ids = [self.index.get(t) for t in terms]
        todo = sorted({i for i in ids if i is not None and np.isnan(self._mass[i])})
        for start in range(0, len(todo), 256):
            block = todo[start : start + 256]
            cos = self.vectors @ self.vectors[block].T  # (V, block)
            s = relatedness(cos, self.tau)
            s[block, np.arange(len(block))] = 0.0  # the term itself counts 1, added below
            self._mass[block] = 1.0 + s.sum(axis=0)
        return np.array([1.0 if i is None else self._mass[i] for i in ids])

    # -- files -------------------------------------------------------------------------
    def save(self, folder: Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        np.save(folder / VECTORS, self.vectors)
        (folder / TERMS).write_text("".join(t + "\n" for t in self.terms), encoding="utf-8")
        (folder / META).write_text(json.dumps({**self.meta, "tau": self.tau}, indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> WordVectors:
        folder = Path(folder)
        if not (folder / VECTORS).is_file():
            raise CitegraphError(f"{folder} holds no word vectors ({VECTORS})")
        terms = (folder / TERMS).read_text(encoding="utf-8").splitlines()
        meta = json.loads((folder / META).read_text(encoding="utf-8")) if (folder / META).is_file() else {}
        return cls(terms, np.load(folder / VECTORS), meta)

    @classmethod
    def exists(cls, folder: Path) -> bool:
        return (Path(folder) / VECTORS).is_file()


def noise_threshold(vectors: np.ndarray, sample: int = TAU_SAMPLE, seed: int = 0) -> float:
    """τ: mean + 2 standard deviations of |cos| between two random word samples."""
    n = len(vectors)
    if n < 2:
        return 1.0  # nothing to compare: no word is related to another
    rng = np.random.default_rng(seed)
    size = min(sample, n // 2)
    chosen = rng.permutation(n)[: 2 * size]
    a, b = vectors[chosen[:size]], vectors[chosen[size:]]
    cos = np.abs(a.astype(np.float64) @ b.astype(np.float64).T)
    return float(cos.mean() + 2 * cos.std())


def _hash(text: str) -> int:
    """Deterministic across processes, unlike hash() of a str (gensim seeds vectors with it)."""
    return zlib.crc32(text.encode("utf-8"))


class _Replay:
    """A re-iterable corpus over a function that yields term lists (gensim reads it per epoch)."""

    def __init__(self, make: Callable[[], Iterable[list[str]]]):
        self.make = make

    def __iter__(self) -> Iterator[list[str]]:
        return (terms for terms in self.make() if terms)


def train_word2vec(
    sentences,
    dim: int = DIM,
    window: int = WINDOW,
    min_count: int = MIN_COUNT,
    epochs: int | None = None,
    negative: int = NEGATIVE,
    seed: int = 0,
) -> WordVectors:
    """Skip-gram Word2Vec on ``sentences``: a list of term lists, or a function returning a
    fresh iterator over them (for corpora streamed from a file or the graph).

    ``epochs`` defaults to :data:`EPOCHS` on small corpora and to ``PASSES`` token passes
    (at least :data:`MIN_EPOCHS`) on large ones, so that training time stays bounded:
    single-threaded (reproducible), a pass over 3.4M tokens takes about 40 s here."""
    try:
        from gensim.models import Word2Vec
    except ImportError:
        raise CitegraphError("the word-embedding models need gensim: pip install 'citegraph[contextualise]'") from None

    corpus = _Replay(sentences) if callable(sentences) else [s for s in sentences if s]
    model = Word2Vec(
        vector_size=dim,
        window=window,
        min_count=min_count,
        sg=1,
        negative=negative,
        seed=seed,
        workers=1,
        hashfxn=_hash,
    )
    model.build_vocab(corpus)
    if epochs is None:
        epochs = max(MIN_EPOCHS, min(EPOCHS, PASSES // max(1, model.corpus_total_words)))
    meta = {
        "trainer": "gensim Word2Vec skip-gram",
        "dim": dim,
        "window": window,
        "min_count": min_count,
        "epochs": epochs,
        "negative": negative,
        "seed": seed,
        "sentences": model.corpus_count,
        "tokens": model.corpus_total_words,
        "centred": True,
    }
    if not model.wv.index_to_key:  # no word seen min_count times: every term only matches itself
        return WordVectors([], np.zeros((0, dim), dtype=np.float32), meta)
    model.train(corpus, total_examples=model.corpus_count, epochs=epochs)
    return WordVectors(list(model.wv.index_to_key), centred(model.wv.vectors), meta)


def centred(vectors: np.ndarray) -> np.ndarray:
    """Unit vectors less their mean direction (renormalised by WordVectors).

    Word2Vec trained on a small corpus puts every vector in one cone: on 5 CL-SciSumm
    papers the cosine of random word pairs averages 0.64, so τ = mean + 2 sd exceeds 1 and
    no word is related to any other. Removing the common mean (Mu & Viswanath's
    post-processing without the principal components) brings random |cos| to 0.29 and
    leaves the neighbours (search: beam, dp, reorder, monotone, dynamic).
    """
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return (unit - unit.mean(axis=0)).astype(np.float32)


def retrofit(vectors: WordVectors, ontology: Ontology, iterations: int = 10, alpha: float = 1.0) -> WordVectors:
    """Faruqui et al.'s retrofitting of the vectors to the ontology's synonym pairs."""
    original = vectors.vectors.astype(np.float64)
    new = original.copy()
    neighbours = {
        vectors.index[t]: [vectors.index[n] for n in ns if n in vectors.index]
        for t, ns in ontology.neighbours.items()
        if t in vectors.index
    }
    neighbours = {i: ns for i, ns in neighbours.items() if ns}
    for _ in range(iterations):
        for i, ns in neighbours.items():
            beta = 1.0 / len(ns)
            new[i] = (alpha * original[i] + beta * new[ns].sum(axis=0)) / (alpha + beta * len(ns))
    meta = {
        **{k: v for k, v in vectors.meta.items() if k != "tau"},
        "retrofitted": {"iterations": iterations, "alpha": alpha, "terms_moved": len(neighbours)},
    }
    return WordVectors(list(vectors.terms), new.astype(np.float32), meta)
