"""Train and test samples are disjoint by construction: every train/test pair the project
draws is two slices of one seeded permutation (:func:`citegraph.evaluation.sampling.split`),
so a training set drawn alone is the first slice of the later train/test split. Property
tests over 50 seeds and several sizes for every drawer; the overlap the old
``sample(rows, skip + n)[skip:]`` made at the defaults on ACL-200 (19 of 300 test papers)
is checked gone on the real graph; ``evaluate recommend`` refuses weights trained on its
test papers."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citegraph.errors import CitegraphError
from citegraph.evaluation.sampling import SPLITS, split, split_part
from citegraph.recommend.held_out import draw_held_out, held_out_citations
from citegraph.recommend.weights import Weights, training_papers

SEEDS = st.integers(0, 49)
SIZES = st.integers(0, 400)


def _rows(n: int) -> list[dict]:
    """Held-out candidates as the Cypher returns them: by id, each with its references."""
    return [
        {"id": f"P{i:05d}", "title": "", "abstract": "", "year": 2000, "references": [f"R{i}", f"S{i}", f"T{i}"]}
        for i in range(n)
    ]


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, population=st.integers(0, 1000), sizes=st.lists(SIZES, min_size=1, max_size=4))
def test_split_parts_are_disjoint_and_a_prefix_drawn_alone_is_the_same(seed, population, sizes):
    values = list(range(population))
    parts = split(values, sizes, seed, "purpose")
    assert [len(p) for p in parts] == [max(0, min(s, population - sum(sizes[:i]))) for i, s in enumerate(sizes)]
    flat = [v for p in parts for v in p]
    assert len(flat) == len(set(flat))
    assert split(values, sizes[:1], seed, "purpose")[0] == parts[0]  # the training part drawn alone


def test_split_is_seeded_per_purpose():
    values = list(range(500))
    assert split(values, [50], 0, "a") == split(values, [50], 0, "a")
    assert split(values, [50], 0, "a") != split(values, [50], 0, "b")
    assert split(values, [50], 0, "a") != split(values, [50], 1, "a")
    with pytest.raises(ValueError):
        split(values, [-1], 0, "a")


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, population=st.integers(0, 900), n=SIZES, field=st.sampled_from(["", "Physics", "All"]))
def test_query_splits_of_one_seed_share_no_query(seed, population, n, field):
    """Pools' and MDCR's queries: ``--split val`` and ``--split test`` of the same seed."""
    values = [f"Q{i}" for i in range(population)]
    test, val = (split_part(name, n, values, seed, "queries", field) for name in SPLITS)
    assert len(test) == min(n, population) and not set(test) & set(val)


def test_an_unknown_query_split_is_refused():
    with pytest.raises(CitegraphError, match="unknown split 'dev': one of test, val"):
        split_part("dev", 5, list(range(20)), 0, "queries")


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, population=st.integers(0, 900), train=SIZES, test=SIZES)
def test_held_out_training_and_test_papers_are_disjoint(seed, population, train, test):
    rows = _rows(population)
    trained = {e.seed.id for e in draw_held_out(rows, train, seed)}
    tested = draw_held_out(rows, test, seed, skip=train)
    assert len(trained) == min(train, population)
    assert len(tested) == max(0, min(test, population - train))
    assert not trained & {e.seed.id for e in tested}


def test_a_weights_file_lists_its_training_papers_or_says_it_does_not(tmp_path):
    path = tmp_path / "w.json"
    Weights({"text": 1.0}).save(path, {"seed": 0}, training_papers=["B", "A"])
    assert json.loads(path.read_text(encoding="utf-8"))["training_papers"] == ["A", "B"]
    assert training_papers(path) == {"A", "B"}
    Weights({"text": 1.0}).save(path, {"seed": 0})  # as written before the ids were recorded
    assert training_papers(path) is None
    path.write_text('{"weights": {"text": 1}, "training_papers": "A"}', encoding="utf-8")
    with pytest.raises(CitegraphError, match=r"w\.json: training_papers must be a list of paper ids"):
        training_papers(path)


@pytest.mark.server
def test_the_default_held_out_split_on_acl200_no_longer_overlaps(acl):
    """At the defaults (300 + 300, seed 0) the old draw put 19 training papers in the test set."""
    train_set = held_out_citations(acl.store, 300, seed=0)
    test_set = held_out_citations(acl.store, 300, seed=0, skip=300)
    assert len(train_set) == len(test_set) == 300
    assert not {e.seed.id for e in train_set} & {e.seed.id for e in test_set}


@pytest.mark.server
def test_evaluate_recommend_refuses_weights_trained_on_its_test_papers(acl, server_env, tmp_path):
    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "citegraph.cli", *args], capture_output=True, text=True, env=server_env, timeout=600
        )

    weights = tmp_path / "weights.json"
    trained = cli("recommend-train", "--papers", "30", "--seed", "4", "--out", str(weights))
    assert trained.returncode == 0, trained.stderr
    recorded = json.loads(weights.read_text(encoding="utf-8"))
    assert recorded["trained_on"] == len(recorded["training_papers"]) == 30
    assert recorded["training_papers"] == sorted(e.seed.id for e in held_out_citations(acl.store, 30, seed=4))

    evaluate = ["evaluate", "recommend", "--model", str(weights), "--papers", "20", "--seed", "4"]
    overlapping = cli(*evaluate, "--skip", "20", "--out", str(tmp_path / "refused"))
    assert overlapping.returncode == 2, overlapping.stderr
    [message] = [line for line in overlapping.stderr.splitlines() if line.strip()]
    assert "10 of the 20 test papers were used to learn these weights" in message and "Traceback" not in message
    assert not (tmp_path / "refused" / "results.json").exists()

    allowed = cli(*evaluate, "--skip", "20", "--allow-overlap", "--out", str(tmp_path / "allowed"))
    assert allowed.returncode == 0, allowed.stderr
    disjoint = cli(*evaluate, "--skip", "30", "--out", str(tmp_path / "disjoint"))
    assert disjoint.returncode == 0, disjoint.stderr
