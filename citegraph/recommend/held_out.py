"""Held-out citations: learning the recommender's weights and measuring them.

A paper of the graph loses one reference; the recommender, seeded with the paper and its
other references, should rank the lost one high (its own citation edges never count as
evidence, see :mod:`citegraph.recommend.recommender`). :func:`train` fits the weights by logistic
regression on such examples (``citegraph recommend-train``); :func:`evaluate_held_out`
ranks the candidates under each weighting (the registered benchmark ``recommend``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..errors import CitegraphError, OverlapError
from ..evaluation.sampling import generator, sample, split
from ..heavy import lazy
from .recommender import Recommender
from .seed import Seed
from .weights import Weights, trained_seed, training_papers

T = TypeVar("T")

if TYPE_CHECKING:
    from ..graph import GraphStore


@dataclass(frozen=True, slots=True)
class HeldOut:
    seed: Seed
    held_out: str  # the reference removed from the seed: what should be recommended


def held_out_citations(store: GraphStore, n: int, seed: int = 0, min_refs: int = 3, skip: int = 0) -> list[HeldOut]:
    """``n`` papers of the graph, each with one random reference held out (seeded); see
    :func:`draw_held_out`, which this draws the same papers as. Only the drawn papers' texts
    and references are read: the candidates are ids, however large the graph."""
    chosen = drawn([row["id"] for row in store.run("recommend/held_out", min_refs=min_refs)], n, seed, skip)
    found = {row["id"]: row for row in store.run("recommend/held_out_papers", ids=chosen)}
    return hold_out([found[i] for i in chosen], seed)


def draw_held_out(rows: Sequence[Mapping], n: int, seed: int = 0, skip: int = 0) -> list[HeldOut]:
    """Papers ``skip`` to ``skip + n`` of the one seeded permutation of ``rows`` (the
    ``recommend/held_out_papers`` rows of every candidate, by id), each with one random
    reference held out. ``recommend-train`` learns on the first ``papers``; a test with
    ``skip`` ≥ ``papers`` is disjoint from them by construction."""
    return hold_out(drawn(rows, n, seed, skip), seed)


def drawn(candidates: Sequence[T], n: int, seed: int, skip: int) -> list[T]:
    """Candidates ``skip`` to ``skip + n`` of the one permutation drawn for ``seed``: of ids
    or of whole rows alike, since it depends only on their number."""
    return split(candidates, (skip, n), seed, "held-out")[1]


def hold_out(rows: Sequence[Mapping], seed: int) -> list[HeldOut]:
    """Each paper with one of its references held out, drawn with ``seed`` and its id."""
    out = []
    for row in rows:
        [held] = sample(sorted(row["references"]), 1, generator(seed, "held-out", row["id"]))
        refs = tuple(r for r in row["references"] if r != held)
        out.append(HeldOut(Seed(row["id"], row["title"] or "", row["abstract"] or "", row["year"], refs), held))
    return out


def check_disjoint(weights_file: Path, examples: Sequence[HeldOut], seed: int) -> bool:
    """Raise :class:`OverlapError` when the weights were learned on another seed's permutation
    (its slices are not disjoint from this seed's) or a test paper is one they were learned on;
    ``False`` when the file does not record its training papers (nothing to check)."""
    trained_with = trained_seed(weights_file)
    if trained_with is not None and trained_with != seed:
        raise OverlapError(
            f"{weights_file}: learned on seed {trained_with}'s papers, tested on seed {seed}'s: the two draws "
            f"are not disjoint; test each seed with the weights learned with it (recommend-train --seeds), "
            f"or pass --allow-overlap"
        )
    trained = training_papers(weights_file)
    if trained is None:
        return False
    shared = sorted(trained.intersection(e.seed.id for e in examples))
    if shared:
        raise OverlapError(
            f"{weights_file}: {len(shared)} of the {len(examples)} test papers of seed {seed} were used to learn "
            f"these weights (e.g. {', '.join(shared[:3])}); test with recommend-train's --seed and --skip ≥ its "
            f"--papers ({len(trained)}), or pass --allow-overlap"
        )
    return True


def train(recommender: Recommender, examples: Sequence[HeldOut]) -> dict[str, float]:
    """Weights learned by logistic regression: does a candidate's feature vector mark the
    held-out citation? Candidates of every example, balanced classes; the weights are the
    coefficients (their order is what ranks), stored as plain numbers."""
    rows, labels = [], []
    for example in examples:
        for candidate in recommender.candidates(example.seed).values():
            rows.append(candidate.features)
            labels.append(int(candidate.id == example.held_out))
    if not any(labels):
        raise CitegraphError("no held-out citation was among the candidates: nothing to learn from")
    names = sorted({name for row in rows for name in row})
    matrix = [[row.get(name, 0.0) for name in names] for row in rows]
    model = lazy("sklearn.linear_model").LogisticRegression(class_weight="balanced", max_iter=1000).fit(matrix, labels)
    return {**{name: float(w) for name, w in zip(names, model.coef_[0])}, "bias": float(model.intercept_[0])}


def evaluate_held_out(
    recommender: Recommender,
    examples: Sequence[HeldOut],
    variants: Mapping[str, Weights | Mapping[str, float]],
    k: int = 100,
    measures: Sequence[str] = ("R@5", "R@20", "MRR", "MAP"),
):
    """Each weighting's metrics on the held-out citations (one relevant paper per seed)."""
    from ..evaluation.metrics import evaluate

    qrels = {e.seed.id: {e.held_out: 1} for e in examples}
    candidates = {e.seed.id: recommender.candidates(e.seed) for e in examples}
    results = {}
    for name, weights in variants.items():
        scorer = weights if isinstance(weights, Weights) else Weights(weights)
        run = {q: scorer.rank(cs, k) for q, cs in candidates.items()}
        results[name] = evaluate(qrels, run, measures, depth=k)
    return results
