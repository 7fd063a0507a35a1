"""CSFCube's official measures, as ``eval_scripts/ranking_eval.py`` of the release computes them.

The script uses ``rank_metrics`` (bwhite's gist, the copy in allenai/aspire
``src/evaluation/rank_metrics.py``) on the grades of the whole pool in ranked order
(:func:`official`):

* relevant means grade ≥ 2 (``threshold_grade=2``) for R-Prec, P@20 and R@20;
* NDCG uses the grades as gains (linear, not 2^g − 1) with ``ndcg_at_k``'s default
  discount: ranks 1 and 2 count fully, rank r > 2 by 1/log2(r); the ideal ranking sorts
  the pool's grades. NDCG is over the whole pool, NDCG@20 over 20 ranks and NDCG%20 over
  ``int(0.2 × pool size)`` ranks (0 ranks, so 0, for pools under 5);
* R-Prec is ``r_precision``: the precision at the rank of the last relevant candidate,
  not the precision at rank R;
* P@20 divides by 20; the script raises for pools under 20, which the release has none of;
* R@20 is the relevant share of the top 20 among all relevant candidates (0 without any).

The same rankings are also scored with citegraph's :func:`~..metrics.evaluate`
(trec_eval's definitions: discount 1/log2(r + 1), ideal from the judgements,
``Rprec(rel=2)`` = precision at rank R, NDCG%20 cut at least 1), to compare with the
other benchmarks; the two are reported apart as ``official`` and ``trec_eval``.

**Averaging**, as ``aggregate_metrics_crossval(split_str="test")``: per facet, the mean
over ``fold1_test``'s queries and the mean over ``fold2_test``'s, then the mean of the
two (the folds differ in size, so this is not the mean over queries); ``all`` does the
same with the splits' ``all`` lists. Every listed query counts, as in the script:
metrics.evaluate skips queries without any positive grade, which count 0 (what the official
definitions give them). The dev splits serve tuning; nothing is tuned here.

**Pool members a ranking leaves out** (BM25 drops candidates sharing no term with the
query; a run file may list a few): the official script scores the grades of the ranked
candidates only (``read_facet_specific_relevances`` looks up each ranked pid; NDCG's ideal
and R@20's relevant total come from that list), so a ranking that leaves out its
non-relevant candidates loses nothing. That is the default here (``unranked="official"``);
``"append"`` is citegraph's own policy: the left-out candidates follow the ranking in id
order, so every system is scored on one complete ranking of the pool. Either way a ranked id
outside the pool is ignored, and a query without any ranking scores 0.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence

from ...retrieval.base import Hit, Ranking
from ..metrics import evaluate
from .release import FOLDS, THRESHOLD, Release

AT = 20
PERCENT = 20
MEASURES = ("R-Prec", "P@20", "R@20", "NDCG", "NDCG@20", "NDCG%20")
OFFICIAL, TREC = "official", "trec_eval"
#: metrics.evaluate's names for the same measures, with CSFCube's relevance threshold
TREC_MEASURES = {
    "R-Prec": f"Rprec(rel={THRESHOLD})",
    "P@20": f"P(rel={THRESHOLD})@{AT}",
    "R@20": f"R(rel={THRESHOLD})@{AT}",
    "NDCG": "nDCG",
    "NDCG@20": f"nDCG@{AT}",
    "NDCG%20": f"NDCG%{PERCENT}",
}
SOURCE = (
    "iesl/CSFCube eval_scripts/ranking_eval.py (rank_metrics as in allenai/aspire "
    "src/evaluation/rank_metrics.py); folds per the release's datasheet.md"
)


def _dcg(gains: Sequence[int], k: int) -> float:
    """rank_metrics.dcg_at_k(method=0): ranks 1 and 2 undiscounted, rank r by 1/log2(r)."""
    return sum(g / math.log2(max(r, 2)) for r, g in enumerate(gains[:k], start=1))


def _ndcg(grades: Sequence[int], k: int) -> float:
    ideal = _dcg(sorted(grades, reverse=True), k)
    return _dcg(grades, k) / ideal if ideal else 0.0


def official(grades: Sequence[int]) -> dict[str, float]:
    """The official measures of one query from the grades of its whole pool in ranked order."""
    relevant = [g >= THRESHOLD for g in grades]
    total = sum(relevant)
    last = max((r for r, rel in enumerate(relevant, start=1) if rel), default=0)
    return {
        "R-Prec": total / last if total else 0.0,
        "P@20": sum(relevant[:AT]) / AT,
        "R@20": sum(relevant[:AT]) / total if total else 0.0,
        "NDCG": _ndcg(grades, len(grades)),
        "NDCG@20": _ndcg(grades, AT),
        "NDCG%20": _ndcg(grades, int(PERCENT / 100 * len(grades))),
    }


#: What becomes of pool members a ranking leaves out: scored as the official script scores
#: them (not at all), or appended in id order (citegraph's policy).
UNRANKED = ("official", "append")


def complete(ranking: Ranking, pool: Sequence[str], unranked: str = "official") -> list[str]:
    """The ranked pool members; with ``unranked="append"`` then the pool's candidates the
    ranking left out, in id order."""
    members = set(pool)
    ranked = [hit.id for hit in ranking if hit.id in members]
    if not ranked or unranked == "official":
        return ranked  # no answer at all scores 0, as metrics.evaluate scores it
    seen = set(ranked)
    return ranked + sorted(c for c in pool if c not in seen)


def official_values(release: Release, orders: Mapping[str, list[str]]) -> dict[str, dict[str, float]]:
    values = {q: official([release.pools[q].qrels[c] for c in order]) for q, order in orders.items()}
    return {m: {q: v[m] for q, v in values.items()} for m in MEASURES}


def trec_values(release: Release, orders: Mapping[str, list[str]]) -> dict[str, dict[str, float]]:
    """metrics.evaluate on the same complete rankings; queries it skips (no positive grade) are 0."""
    run = {q: [Hit(c, float(len(order) - i)) for i, c in enumerate(order)] for q, order in orders.items()}
    qrels = {q: release.pools[q].qrels for q in orders}
    sizes = {q: len(release.pools[q].candidates) for q in orders}
    result = evaluate(qrels, run, list(TREC_MEASURES.values()), depth=max(sizes.values()), pool_sizes=sizes)
    return {m: {q: result.per_query[name].get(q, 0.0) for q in orders} for m, name in TREC_MEASURES.items()}


def fold_mean(values: Mapping[str, float], folds: Mapping[str, Sequence[str]]) -> float:
    """The mean over each test fold's queries, then over the folds (the official aggregation)."""
    return statistics.mean(statistics.mean(values.get(q, 0.0) for q in folds[fold]) for fold in FOLDS)
