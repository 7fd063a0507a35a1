"""Ranking metrics through ir_measures, with the edge cases decided rather than inherited.

The measures are ir_measures' (trec_eval's definitions, via pytrec_eval): MAP, nDCG, R@k,
P@k, MRR (RR), R-Precision, with ``rel=`` for graded judgements. Libraries disagree on
two edge cases, so citegraph fixes them before a library sees the run:

* **A query with no results** (judged but absent from the run, or with an empty ranking)
  scores 0 on every measure — pytrec_eval would skip it, which inflates the mean.
* **Ties** are broken by document id (ascending) and the run handed over with strictly
  decreasing scores, so every library ranks exactly as citegraph does.

Runs are cut at ``depth`` (500, as the MDCR paper evaluates the top 500) before scoring.
Queries without any relevant document in the qrels are not evaluated (as trec_eval).
Per-query values are kept: :func:`compare` tests two systems with a paired t-test and a
paired randomisation (permutation) test. A system run with several seeds is summarised by
:func:`over_seeds`: the mean ± sd of its seeds' means, and one per-query mean that the paired
tests compare.

CSFCube's NDCG%20 (Mysore et al. 2021) is nDCG cut at ``int(0.2 × pool size)`` of each
query, with its graded relevance as gains: :func:`evaluate` takes ``NDCG%20`` as a
measure name and the pool sizes in ``pool_sizes``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import CitegraphError
from ..retrieval.base import Ranking

Qrels = Mapping[str, Mapping[str, int]]
DEPTH = 500
_PERCENT = re.compile(r"^nDCG%(\d+)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """Per-query values and their means, by measure name."""

    per_query: dict[str, dict[str, float]]  # measure → query → value
    queries: list[str]

    @property
    def mean(self) -> dict[str, float]:
        return {
            m: float(np.mean([v[q] for q in self.queries])) if self.queries else 0.0 for m, v in self.per_query.items()
        }


def _measure(name: str):
    import ir_measures

    aliases = {"MAP": "AP", "MRR": "RR", "R-Prec": "Rprec", "NDCG": "nDCG"}
    head, sep, tail = name.partition("@")
    base = aliases.get(head, head)
    try:
        return ir_measures.parse_measure(base + sep + tail)
    except (ValueError, NameError, SyntaxError) as exc:
        raise CitegraphError(
            f"unknown measure {name!r} (e.g. MAP, nDCG, nDCG@20, R@30, P@20, MRR, R-Prec, NDCG%20, P(rel=2)@20)"
        ) from exc


def _strict(ranking: Ranking, depth: int) -> dict[str, float]:
    """The top ``depth`` of a ranking, ties by id, as strictly decreasing scores."""
    ordered = sorted(ranking, key=lambda h: (-h.score, h.id))[:depth]
    return {hit.id: float(len(ordered) - i) for i, hit in enumerate(ordered)}


def evaluate(
    qrels: Qrels,
    run: Mapping[str, Ranking],
    measures: Sequence[str],
    depth: int = DEPTH,
    pool_sizes: Mapping[str, int] | None = None,
) -> Evaluation:
    """Score ``run`` against ``qrels``; see the module docstring for the decided edge cases."""
    import ir_measures

    queries = sorted(q for q, judged in qrels.items() if any(g > 0 for g in judged.values()))
    scored = {q: _strict(run.get(q, []), depth) for q in queries}
    per_query: dict[str, dict[str, float]] = {}
    for name in measures:
        percent = _PERCENT.match(name)
        values = dict.fromkeys(queries, 0.0)
        if percent:
            if pool_sizes is None:
                raise CitegraphError(f"{name} needs each query's pool size")
            by_cutoff: dict[int, list[str]] = {}
            for q in queries:
                by_cutoff.setdefault(max(1, int(int(percent.group(1)) / 100 * pool_sizes[q])), []).append(q)
            for cutoff, group in by_cutoff.items():
                values.update(_calc(ir_measures.nDCG @ cutoff, qrels, scored, group))
        else:
            values.update(_calc(_measure(name), qrels, scored, queries))
        per_query[name] = values
    return Evaluation(per_query, queries)


def _calc(measure, qrels: Qrels, scored: Mapping[str, dict[str, float]], queries: Sequence[str]) -> dict[str, float]:
    import ir_measures

    with_results = [q for q in queries if scored[q]]
    found = ir_measures.iter_calc(
        [measure], {q: dict(qrels[q]) for q in with_results}, {q: scored[q] for q in with_results}
    )
    return {m.query_id: float(m.value) for m in found}


@dataclass(frozen=True, slots=True)
class Comparison:
    measure: str
    mean_a: float
    mean_b: float
    t_test_p: float
    randomisation_p: float


def compare(a: Evaluation, b: Evaluation, measure: str, permutations: int = 10_000, seed: int = 0) -> Comparison:
    """Paired tests of two systems on the queries both were evaluated on."""
    from scipy import stats

    queries = sorted(set(a.queries) & set(b.queries))
    x = np.array([a.per_query[measure][q] for q in queries])
    y = np.array([b.per_query[measure][q] for q in queries])
    if len(queries) < 2 or np.allclose(x, y):
        return Comparison(measure, float(x.mean()) if len(x) else 0.0, float(y.mean()) if len(y) else 0.0, 1.0, 1.0)
    t = stats.ttest_rel(x, y).pvalue
    permuted = stats.permutation_test(
        (x, y), lambda u, v: np.mean(u - v), permutation_type="samples", n_resamples=permutations, random_state=seed
    )
    return Comparison(measure, float(x.mean()), float(y.mean()), float(t), float(permuted.pvalue))


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value)."""
    mean = float(np.mean(values)) if values else math.nan
    return mean, float(np.std(values, ddof=1)) if len(values) > 1 else 0.0


@dataclass(frozen=True, slots=True)
class OverSeeds:
    """One system run with several seeds: what a table prints and what a paired test compares."""

    seeds: tuple[int, ...]
    runs: tuple[Evaluation, ...]
    mean: dict[str, float]  # measure → mean over seeds of each seed's mean
    sd: dict[str, float]  # measure → sample standard deviation of those means
    pooled: Evaluation  # each query's value averaged over the seeds that evaluated it


def over_seeds(seeds: Sequence[int], runs: Sequence[Evaluation]) -> OverSeeds:
    """Summarise ``runs`` (one per seed, same measures). The paired tests run on ``pooled``: a
    query's mean over the seeds that drew it, so that two systems run with the same seeds are
    compared query by query even when each seed draws its own test sample."""
    if not runs or len(seeds) != len(runs):
        raise CitegraphError(f"over_seeds: {len(runs)} runs for {len(seeds)} seeds")
    measures = list(runs[0].per_query)
    spread = {m: mean_std([run.mean[m] for run in runs]) for m in measures}
    drawn = [set(run.queries) for run in runs]
    queries = sorted(set().union(*drawn))
    pooled = {
        m: {q: float(np.mean([run.per_query[m][q] for run, drew in zip(runs, drawn) if q in drew])) for q in queries}
        for m in measures
    }
    return OverSeeds(
        tuple(seeds),
        tuple(runs),
        {m: mean for m, (mean, _) in spread.items()},
        {m: sd for m, (_, sd) in spread.items()},
        Evaluation(pooled, queries),
    )
