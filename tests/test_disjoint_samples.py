"""Train and test samples are disjoint by construction: every train/test pair the project
draws is two slices of one seeded permutation (:func:`citegraph.evaluation.sampling.split`),
so a training set drawn alone is the first slice of the later train/test split. Property
tests over 50 seeds and several sizes for every drawer; the overlap the old
``sample(rows, skip + n)[skip:]`` made at the defaults on ACL-200 (19 of 300 test papers)
is checked gone on the real graph; ``evaluate recommend`` refuses weights trained on its
test papers or with another seed, and with ``--seeds`` tests each seed with its own weights."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citegraph.errors import CitegraphError, OverlapError, UsageError
from citegraph.evaluation.sampling import SPLITS, split, split_part
from citegraph.local.data import Context, time_split
from citegraph.recommend.benchmark import parse_seeds
from citegraph.recommend.held_out import check_disjoint, draw_held_out, held_out_citations
from citegraph.recommend.weights import Weights, seed_file, training_papers, weights_for_seed

from conftest import citegraph, citegraph_ok

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


@settings(max_examples=300, deadline=None)
@given(
    seed=SEEDS,
    papers=st.integers(3, 300),
    test=st.sampled_from([0.1, 0.2, 0.5]),
    val=st.sampled_from([0.0, 0.1]),
    whole_years=st.booleans(),
)
def test_local_train_validation_and_test_share_no_citing_paper(seed, papers, test, val, whole_years):
    """Local recommendation's pair is a cut in time, not a draw (each side is sampled from its
    own part afterwards): its parts share no citing paper, and with whole years no year."""
    rng = np.random.default_rng(seed)
    contexts = [
        Context(f"c{i}", f"P{p}", ("X",), "text", year=2000 + int(p) % 12)
        for i, p in enumerate(rng.integers(0, papers, size=2 * papers))
    ]
    try:
        parts = time_split(contexts, test, val, whole_years)
    except CitegraphError:  # too few papers for a part: refused, not leaked
        return
    train, held_out = {c.citing for c in parts.train}, {c.citing for c in (*parts.val, *parts.test)}
    assert not train & held_out and not {c.citing for c in parts.val} & {c.citing for c in parts.test}
    if whole_years:
        assert max(c.year for c in parts.train) < min(c.year for c in (*parts.val, *parts.test))


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


def test_weights_learned_with_another_seed_are_refused_and_a_folder_gives_each_seed_its_own(tmp_path):
    """Seed 0's training papers are not a slice of seed 1's permutation: testing seed 1 with
    them is refused even when, by chance, no paper is shared."""
    rows = _rows(200)
    for seed in (0, 1):
        trained = draw_held_out(rows, 50, seed)
        Weights({"text": 1.0}).save(
            seed_file(tmp_path, seed), {"seed": seed}, training_papers=[e.seed.id for e in trained]
        )
    tested = draw_held_out(rows, 50, 1, skip=50)
    assert check_disjoint(weights_for_seed(tmp_path, 1), tested, 1)
    with pytest.raises(OverlapError, match=r"weights\.seed0\.json: learned on seed 0's papers, tested on seed 1's"):
        check_disjoint(weights_for_seed(tmp_path, 0), tested, 1)
    assert weights_for_seed(seed_file(tmp_path, 0), 1) == seed_file(tmp_path, 0)  # a file is itself; checked above
    with pytest.raises(CitegraphError, match=r"no weights for seed 2 \(weights\.seed2\.json\)"):
        weights_for_seed(tmp_path, 2)


def test_seeds_are_integers_each_given_once():
    assert parse_seeds([], 4) == (4,) and parse_seeds(["0", "1", "2"], 4) == (0, 1, 2)
    with pytest.raises(UsageError, match="--seeds: expected comma-separated integers, got '0,x'"):
        parse_seeds(["0", "x"], 0)
    with pytest.raises(UsageError, match="--seeds: each seed once, got 0,1,0"):
        parse_seeds(["0", "1", "0"], 0)


def test_bad_seeds_are_refused_before_the_graph_opens():
    """As `evaluate local`'s (test_local_seeds): no database starts for a usage error."""
    done = citegraph("evaluate", "recommend", "--out", "/tmp/unused", "--seeds", "0,x")
    assert done.returncode == 2 and "--seeds: expected comma-separated integers, got '0,x'" in done.stderr
    assert "ArcadeDB" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.server
def test_the_default_held_out_split_on_acl200_no_longer_overlaps(acl):
    """At the defaults (300 + 300, seed 0) the old draw put 19 training papers in the test set."""
    train_set = held_out_citations(acl.store, 300, seed=0)
    test_set = held_out_citations(acl.store, 300, seed=0, skip=300)
    assert len(train_set) == len(test_set) == 300
    assert not {e.seed.id for e in train_set} & {e.seed.id for e in test_set}


@pytest.mark.server
def test_evaluate_recommend_refuses_weights_trained_on_its_test_papers(acl, server_env, tmp_path):
    weights = tmp_path / "weights.json"
    citegraph_ok("recommend-train", "--papers", "30", "--seed", "4", "--out", str(weights), env=server_env)
    recorded = json.loads(weights.read_text(encoding="utf-8"))
    assert recorded["trained_on"] == len(recorded["training_papers"]) == 30
    assert recorded["training_papers"] == sorted(e.seed.id for e in held_out_citations(acl.store, 30, seed=4))

    evaluate = ["evaluate", "recommend", "--model", str(weights), "--papers", "20", "--seed", "4"]
    overlapping = citegraph(*evaluate, "--skip", "20", "--out", str(tmp_path / "refused"), env=server_env)
    assert overlapping.returncode == 2, overlapping.stderr
    [message] = [line for line in overlapping.stderr.splitlines() if line.strip()]
    assert (
        "10 of the 20 test papers of seed 4 were used to learn these weights" in message and "Traceback" not in message
    )
    assert not (tmp_path / "refused" / "results.json").exists()

    citegraph_ok(*evaluate, "--skip", "20", "--allow-overlap", "--out", str(tmp_path / "allowed"), env=server_env)
    citegraph_ok(*evaluate, "--skip", "30", "--out", str(tmp_path / "disjoint"), env=server_env)


@pytest.mark.server
def test_several_seeds_learn_and_test_each_on_its_own_disjoint_papers(acl, server_env, tmp_path):
    """``recommend-train --seeds 0,1`` writes one weights file per seed; ``evaluate recommend
    --seeds 0,1`` tests each seed on its own test papers with its own weights and prints the rows
    as mean ± sd; one seed's weights are refused for the other."""
    folder = tmp_path / "weights"
    citegraph_ok("recommend-train", "--papers", "20", "--seeds", "0,1", "--out", str(folder), env=server_env)
    assert sorted(p.name for p in folder.iterdir()) == ["weights.seed0.json", "weights.seed1.json"]

    evaluate = ["evaluate", "recommend", "--papers", "15", "--skip", "20", "--seeds", "0,1"]
    result = citegraph_ok(*evaluate, "--model", str(folder), "--out", str(tmp_path / "results"), env=server_env)
    assert "held-out citations (15 papers, text: bm25; mean ± sd over seeds 0, 1)" in result.stdout
    saved = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    summary, tests = saved["tables"][:2]
    assert list(summary["rows"]) == ["text only", "fusion (default weights)", "learned"]
    assert all(sd is not None for cells in summary["rows"].values() for _, sd in cells.values())
    assert "learned vs fusion (default weights), all papers: randomisation" in tests["rows"]
    assert [t["title"].split(";")[-1] for t in saved["tables"][2:]] == [" seed 0)", " seed 1)"]
    for seed in (0, 1):
        tested = set(saved["per_query"][f"seed {seed}"]["learned"]["MRR"])
        assert tested == {e.seed.id for e in held_out_citations(acl.store, 15, seed=seed, skip=20)}
        assert len(tested) == 15 and not tested & training_papers(seed_file(folder, seed))
        per_seed = saved["tables"][2 + seed]["rows"]["learned"]["MRR"][0]
        assert per_seed == pytest.approx(sum(saved["per_query"][f"seed {seed}"]["learned"]["MRR"].values()) / 15)
    mean = summary["rows"]["learned"]["MRR"][0]
    assert mean == pytest.approx(
        (saved["tables"][2]["rows"]["learned"]["MRR"][0] + saved["tables"][3]["rows"]["learned"]["MRR"][0]) / 2
    )

    mismatched = citegraph(
        *evaluate, "--model", str(seed_file(folder, 0)), "--out", str(tmp_path / "refused"), env=server_env
    )
    assert mismatched.returncode == 2, mismatched.stderr
    assert (
        "learned on seed 0's papers, tested on seed 1's" in mismatched.stderr and "Traceback" not in mismatched.stderr
    )
    assert not (tmp_path / "refused" / "results.json").exists()
