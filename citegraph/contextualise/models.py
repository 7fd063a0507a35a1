"""The contextualisation models by name, their parameter grids and defaults.

=============  ============================================================  ==============
name           model                                                         parameters
=============  ============================================================  ==============
``bm25``       BM25 over the paper's sentences (:mod:`.bm25`)                k1, b
``lmd``        query likelihood, Dirichlet smoothing (:func:`.lm.dirichlet`)  μ
``we``         embedding LM, Eq. 2 of Cohan & Goharian (:func:`.lm.semantic`)  μ
``we+rtrft``   ``we`` with vectors retrofitted to the ontology                μ
``we+dmn``     ``we`` interpolated with the ontology LM                      μ, λ, γ
=============  ============================================================  ==============

A model turns a (query, paper) pair into parameter-free features once (:meth:`Model.prepare`)
and scores them per parameter setting (:meth:`Model.score`).

**Queries.** The citing text with its citation markers removed ("(Brown et al., 1993)",
"Tillmann and Ney (2000)", "[12]", "[CIT]"), then analysed like the sentences. The
markers name other papers as often as the cited one, and the cited paper's own sentences
never contain its authors' names; removing them raised LMD's c-F from 13.3 to 17.1 in the
5-fold cross-validation on CL-SciSumm.

**Defaults** (:data:`DEFAULTS`, what ``citegraph contextualise`` uses on the graph) are
the settings the 5-fold cross-validation on the 40 CL-SciSumm topics chose most often
(``citegraph evaluate contextualise``, seed 0). For ``we+dmn`` every fold chose λ = 0,
γ = 0, which is LMD: with word vectors trained on CL-SciSumm's 155k tokens neither the
vectors nor the synonyms helped there (see the README); ``--param`` sets others.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import CitegraphError
from . import bm25 as bm25_
from . import lm

if TYPE_CHECKING:  # the registry stays cheap to import: the CLI takes its choices from it
    from .ontology import Ontology
    from .word_vectors import WordVectors

_YEAR = r"(?:1[89]|20)\d{2}[a-z]?"
_NAME = r"[A-Z][\w'’`-]+"
_MARKERS = [  # in this order: the names before "(2000)" go with it
    re.compile(
        _NAME + r"(?:\s+(?:et\s+al\.?|and\s+" + _NAME + r"|&\s+" + _NAME + r"))?"  # Tillmann and Ney (2000)
        r"\s*,?\s*\(\s*" + _YEAR + r"\s*\)"
    ),
    re.compile(r"\((?=[^()]*\b" + _YEAR + r"\b)[^()]*\)"),  # (Brown et al., 1993; Och 2003)
    re.compile(r"\[(?:\s*\d+\s*(?:[,;–-]\s*\d+\s*)*|[A-Z]{2,}\d*)\]"),  # [12], [3, 4-6], [CIT]
]


def strip_citations(text: str) -> str:
    """The text without citation markers."""
    for marker in _MARKERS:
        text = marker.sub(" ", text)
    return " ".join(text.split())


def query_terms(text: str) -> list[str]:
    from ..retrieval.bm25 import analyze

    return analyze(strip_citations(text))


@dataclass
class Resources:
    """What the models may need besides the texts."""

    background: lm.Background
    vectors: WordVectors | None = None
    retrofitted: WordVectors | None = None
    ontology: Ontology | None = None


@dataclass(frozen=True)
class Model:
    name: str
    label: str  # as the results table shows it
    grid: Callable[[], list[dict]]
    _prepare: Callable[[Sequence[str], lm.SentenceSet, Resources], Any]
    _score: Callable[..., np.ndarray]
    needs: tuple[str, ...] = ()  # of "vectors", "ontology", "retrofitted" (vectors fitted to the ontology)

    def prepare(self, query: Sequence[str], sentences: lm.SentenceSet, resources: Resources) -> Any:
        return self._prepare(query, sentences, resources)

    def score(self, features: Any, params: dict) -> np.ndarray:
        return self._score(features, **params)


def _lm(vectors: str | None = None, ontology: bool = False):
    def prepare(query, sentences, r: Resources):
        return lm.prepare(
            query, sentences, r.background, getattr(r, vectors) if vectors else None, r.ontology if ontology else None
        )

    return prepare


MODELS: dict[str, Model] = {
    m.name: m
    for m in [
        Model("bm25", "BM25", bm25_.grid, lambda q, s, r: bm25_.prepare(q, s), bm25_.bm25),
        Model("lmd", "LMD", lm.dirichlet_grid, _lm(), lm.dirichlet),
        Model("we", "WE", lm.dirichlet_grid, _lm("vectors"), lm.semantic, ("vectors",)),
        Model(
            "we+rtrft",
            "WE+rtrft",
            lm.dirichlet_grid,
            _lm("retrofitted"),
            lm.semantic,
            ("vectors", "ontology", "retrofitted"),
        ),
        Model(
            "we+dmn",
            "WE+dmn",
            lm.interpolated_grid,
            _lm("vectors", ontology=True),
            lm.interpolated,
            ("vectors", "ontology"),
        ),
    ]
}
DEFAULT_MODELS = tuple(MODELS)

#: Parameters for use outside an evaluation (the graph), chosen by the CL-SciSumm cross-validation.
DEFAULTS: dict[str, dict] = {
    "bm25": {"k1": 0.9, "b": 0.9},
    "lmd": {"mu": 100},
    "we": {"mu": 1000},
    "we+rtrft": {"mu": 1000},
    "we+dmn": {"mu": 100, "lam": 0.0, "gamma": 0.0},
}


def settings(model: Model, overrides: dict[str, float] | None = None) -> dict:
    """The model's :data:`DEFAULTS` with ``overrides``; a parameter the model lacks is an error."""
    params = dict(DEFAULTS[model.name])
    unknown = sorted(set(overrides or {}) - set(params))
    if unknown:
        raise CitegraphError(f"model {model.name} has no parameter {', '.join(unknown)} (it has: {', '.join(params)})")
    return {**params, **(overrides or {})}


def ranking(scores: np.ndarray) -> np.ndarray:
    """Sentence indices, best first; ties in document order."""
    return np.lexsort((np.arange(len(scores)), -np.asarray(scores)))


def get(name: str) -> Model:
    try:
        return MODELS[name]
    except KeyError:
        raise CitegraphError(f"unknown contextualisation model {name!r}; known: {', '.join(MODELS)}") from None
