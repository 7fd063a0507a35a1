"""Metrics through ir_measures, with citegraph's decided edge cases, on hand-computed examples."""

from __future__ import annotations

import math

import pytest

from citegraph.errors import CitegraphError
from citegraph.evaluation.metrics import compare, evaluate, mean_std, over_seeds
from citegraph.retrieval.base import Hit


def run_of(*ids: str) -> list[Hit]:
    return [Hit(i, float(len(ids) - r)) for r, i in enumerate(ids)]


def test_hand_computed_values():
    qrels = {"q1": {"a": 1, "c": 1, "z": 0}}
    result = evaluate(qrels, {"q1": run_of("a", "b", "c")}, ["MAP", "R@2", "P@1", "MRR", "R-Prec", "nDCG"])
    mean = result.mean
    assert mean["MAP"] == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert mean["R@2"] == pytest.approx(0.5) and mean["P@1"] == 1 and mean["MRR"] == 1
    assert mean["R-Prec"] == pytest.approx(0.5)  # two relevant: precision at 2
    assert mean["nDCG"] == pytest.approx((1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3)))


def test_a_query_without_results_scores_zero_and_counts():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    result = evaluate(qrels, {"q1": run_of("a"), "q3": []}, ["MAP", "nDCG@10"])
    assert result.queries == ["q1", "q2", "q3"]
    assert result.per_query["MAP"] == {"q1": 1.0, "q2": 0.0, "q3": 0.0}
    assert result.mean["MAP"] == pytest.approx(1 / 3)


def test_queries_without_relevant_documents_are_not_evaluated():
    result = evaluate({"q1": {"a": 1}, "q2": {"b": 0}}, {"q1": run_of("a"), "q2": run_of("b")}, ["MAP"])
    assert result.queries == ["q1"]


def test_ties_are_broken_by_id_whatever_the_input_order():
    qrels = {"q": {"a": 1}}
    for hits in ([Hit("x", 1.0), Hit("a", 1.0)], [Hit("a", 1.0), Hit("x", 1.0)]):
        assert evaluate(qrels, {"q": hits}, ["MAP"]).mean["MAP"] == 1.0  # "a" < "x": a ranks first


def test_runs_are_cut_at_the_depth():
    qrels = {"q": {"c": 1}}
    assert evaluate(qrels, {"q": run_of("a", "b", "c")}, ["MAP"], depth=2).mean["MAP"] == 0.0
    assert evaluate(qrels, {"q": run_of("a", "b", "c")}, ["MAP"], depth=3).mean["MAP"] == pytest.approx(1 / 3)


def test_csfcube_ndcg_percent_and_graded_binary_measures():
    # pool of 10 → NDCG%20 is nDCG@2 with graded gains (trec_eval: gain = grade)
    qrels = {"q": {"c1": 3, "c2": 0, "c3": 2, "c4": 1}}
    ranking = run_of("c2", "c1", "c3", "c4")
    result = evaluate(qrels, {"q": ranking}, ["NDCG%20", "P(rel=2)@2", "R(rel=2)@2", "R-Prec"], pool_sizes={"q": 10})
    dcg = 0 / math.log2(2) + 3 / math.log2(3)
    ideal = 3 / math.log2(2) + 2 / math.log2(3)
    assert result.mean["NDCG%20"] == pytest.approx(dcg / ideal)
    assert result.mean["P(rel=2)@2"] == pytest.approx(0.5)  # c1 counts, c2 does not
    assert result.mean["R(rel=2)@2"] == pytest.approx(0.5)  # c1 of {c1, c3}
    with pytest.raises(CitegraphError, match="pool size"):
        evaluate(qrels, {"q": ranking}, ["NDCG%20"])
    with pytest.raises(CitegraphError, match="unknown measure"):
        evaluate(qrels, {"q": ranking}, ["Bogus@3"])


def test_paired_comparison():
    qrels = {f"q{i}": {"a": 1} for i in range(30)}
    good = evaluate(qrels, {q: run_of("a", "b") for q in qrels}, ["MAP"])
    bad = evaluate(qrels, {q: run_of("b", "a") if i % 3 else run_of("a") for i, q in enumerate(qrels)}, ["MAP"])
    result = compare(good, bad, "MAP", permutations=2000)
    assert result.mean_a == 1.0 and result.mean_b == pytest.approx((10 + 20 * 0.5) / 30)
    assert result.t_test_p < 0.001 and result.randomisation_p < 0.01
    assert compare(good, good, "MAP").randomisation_p == 1.0
    assert mean_std([1.0, 3.0]) == (2.0, pytest.approx(math.sqrt(2)))


def test_over_seeds_averages_means_and_pools_each_query_over_the_seeds_that_drew_it():
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {"a": 1}}
    seed0 = evaluate({q: qrels[q] for q in ("q1", "q2")}, {"q1": run_of("a"), "q2": run_of("b", "a")}, ["MRR"])
    seed1 = evaluate({q: qrels[q] for q in ("q2", "q3")}, {"q2": run_of("a"), "q3": run_of("b", "c")}, ["MRR"])
    summary = over_seeds([0, 1], [seed0, seed1])
    assert seed0.mean["MRR"] == 0.75 and seed1.mean["MRR"] == 0.5
    assert summary.mean["MRR"] == 0.625 and summary.sd["MRR"] == pytest.approx(math.sqrt(2) * 0.125)
    assert summary.pooled.queries == ["q1", "q2", "q3"]
    assert summary.pooled.per_query["MRR"] == {"q1": 1.0, "q2": 0.75, "q3": 0.0}
    # a run restricted to some queries keeps the others' values: they must not be pooled
    narrowed = over_seeds([0, 1], [type(seed0)(seed0.per_query, ["q2"]), type(seed1)(seed1.per_query, ["q3"])])
    assert narrowed.pooled.queries == ["q2", "q3"] and narrowed.pooled.per_query["MRR"] == {"q2": 0.5, "q3": 0.0}
    with pytest.raises(CitegraphError, match="2 runs for 3 seeds"):
        over_seeds([0, 1, 2], [seed0, seed1])


@pytest.mark.slow  # ranx compiles its metrics with numba first: over a minute on 2 cores
def test_agrees_with_ranx_on_random_runs():
    """A second library on random runs (distinct scores, every query answered), where the
    libraries' documented differences do not apply."""
    ranx = pytest.importorskip("ranx")
    import random

    rng = random.Random(3)
    docs = [f"d{i:03}" for i in range(300)]
    qrels, run = {}, {}
    for q in (f"q{i}" for i in range(40)):
        qrels[q] = {d: rng.choice([1, 2]) for d in rng.sample(docs, rng.randint(1, 15))}
        scores = rng.sample(range(10_000), 120)
        run[q] = [Hit(d, float(s)) for d, s in zip(rng.sample(docs, 120), scores)]
    ours = evaluate(qrels, run, ["MAP", "nDCG", "R@30", "P@10", "MRR", "nDCG@20"]).mean
    theirs = ranx.evaluate(
        ranx.Qrels(qrels),
        ranx.Run({q: {h.id: h.score for h in hits} for q, hits in run.items()}),
        ["map", "ndcg", "recall@30", "precision@10", "mrr", "ndcg@20"],
    )
    for mine, other in zip(
        ["MAP", "nDCG", "R@30", "P@10", "MRR", "nDCG@20"],
        ["map", "ndcg", "recall@30", "precision@10", "mrr", "ndcg@20"],
    ):
        assert ours[mine] == pytest.approx(theirs[other], abs=1e-9), mine
