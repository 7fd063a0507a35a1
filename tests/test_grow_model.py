"""A model for the grown field, end to end: `citegraph grow --cited-by --contexts` from the recorded
fixtures (:mod:`grow_api` on the loopback, the session's real ArcadeDB Bolt server), `index bm25`,
`evaluate local --save` training a tiny real BERT on the grown citing sentences, then
`cite --draft --model` answering on the grown graph with it. Nothing reaches the network."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from grow_api import FIXTURES, ApiServer

from conftest import citegraph_ok

pytestmark = pytest.mark.server

SMALL = ("--bi-batch", "4", "--bi-max-length", "32", "--prefetch", "bm25:bm25s", "--seed", "12")
DRAFT = """---
bibliography: {bib}
---
Graph networks learn which papers a draft should cite [@wu2020], and walks over the
citation graph rank candidates by proximity [@?]. Sentences that cite a paper describe it in
other people's words [@?].
"""


@pytest.fixture
def env(server_env, tmp_path) -> dict[str, str]:
    """A graph grown from refs.bib with who cites it and the citing sentences, indexed by BM25."""
    # a key holds Semantic Scholar's keyed rate (1 a second), not the keyless one (one every 3 s)
    with ApiServer() as api:
        env = {**server_env, **api.env(), "CITEGRAPH_DATA_DIR": str(tmp_path / "data"), "CITEGRAPH_S2_KEY": "k"}
        grow = ("grow", "--from", str(FIXTURES / "refs.bib"), "--cited-by", "--contexts", "--format", "json")
        assert json.loads(citegraph_ok(*grow, "--no-progress", env=env).stdout)["contexts"] == 156
    citegraph_ok("index", "bm25", "--backend", "bm25s", env=env)
    return env


def exported(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "contexts.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_model_trained_on_the_grown_contexts_answers_cite_on_the_grown_graph(store, env, tiny_bert, tmp_path):
    out, folder = tmp_path / "out", tmp_path / "model"
    citegraph_ok(
        "evaluate", "local", "--out", str(out), "--rerankers", "biencoder", "--encoder", str(tiny_bert),
        "--bi-steps", "3", "--max-train", "100", *SMALL, "--save", str(folder), env=env,
    )  # fmt: skip
    # the query set is Semantic Scholar's citing sentences grow put on the CITES edges, marked [CIT]
    contexts = exported(out)
    assert len(contexts) == 157 and all("[CIT]" in c["context"] for c in contexts)
    assert {c["citing_id"] for c in contexts} <= {f"W{n}" for n in (*range(300, 306), *range(1000, 1250))}
    assert {"W100", "W101", "W102"} == {i for c in contexts for i in c["cited_ids"]}
    assert not any(c["categories"] for c in contexts)  # grown works have no arXiv categories
    first = next(c for c in contexts if c["context_id"] == "W300|W100|0")
    assert (
        first["context"] == "Earlier work ranks candidates by walks over the graph ([CIT]), which we extend in part 1."
    )

    card = json.loads((folder / "citegraph.json").read_text())
    results = json.loads((out / "results.json").read_text())["config"]
    assert card["base_model"] == f"hf:{tiny_bert}" and card["training"]["steps"] == 3
    assert card["graph"]["nodes"]["Paper"] >= 266 and card["graph"]["contexts"] == len(contexts)
    split = card["split"]
    assert (split["contexts_read"], split["answerable"], split["undated"]) == (157, 157, 0)
    assert (split["train"] + split["test"], split["train_used"]) == (157, 100) and split["test_used"] == split["test"]
    assert split["held_out_from"] == results["data_info"]["held_out_from"]
    # the training side is the older grown citing papers: their contexts were trained on, none of the test's
    tested = {json.loads(line)["citing_id"] for line in (out / "test_contexts.jsonl").read_text().splitlines()}
    trained = {c["citing_id"] for c in contexts} - tested
    assert len(trained) == split["train_papers"] and split["train_until"].split("(")[1].rstrip(")") in trained
    assert card["test"]["rows"]["tiny-bert bi-encoder, fine-tuned (3 steps)"]["R@10"] > 0

    # its fusion weights, tuned on the grown training side's contexts it was not trained on
    tune = ("cite", "tune", "--model", str(folder), "--with", "bm25:bm25s", "--contexts", "5", "--draft", "0.5")
    citegraph_ok(*tune, "--weights", "0,2", "--write", env=env)
    validation = json.loads((folder / "citegraph.json").read_text())["cite"]["validation"]
    assert (validation["training_side"], validation["trained_on"]) == (split["train"], 100)
    assert validation["train_until"] == split["train_until"] and validation["contexts"] == 5

    draft = tmp_path / "draft.md"
    draft.write_text(DRAFT.format(bib=FIXTURES / "refs.bib"), encoding="utf-8")
    cite = ("cite", "--draft", str(draft), "--model", str(folder), "--with", "bm25:bm25s", "-k", "3")
    answer = json.loads(citegraph_ok(*cite, "--format", "json", env=env).stdout)
    chosen = json.loads((folder / "citegraph.json").read_text())["cite"]["fusion"]
    weights = f"(weights: model {chosen['model']:g}, draft {chosen['draft']:g})"
    assert (
        answer["model"] == str(folder) and answer["ranking"] == f"first stage fused with the model {folder} {weights}"
    )
    first_slot, second_slot = answer["slots"]
    for slot in answer["slots"]:
        assert len(slot["suggestions"]) == 3 and all(s["model"] is not None for s in slot["suggestions"])
    assert first_slot["suggestions"][0]["id"] == "W100"
    assert f"'{first['context']}' (W300)" in " ".join(first_slot["suggestions"][0]["explanation"])
    assert {"W101", "W102"} <= {s["id"] for s in second_slot["suggestions"]}


def test_symtax_on_a_graph_without_arxiv_categories_says_so_and_leaves_out_the_taxonomy_rows(
    store, env, tiny_bert, tmp_path
):
    out = tmp_path / "out"
    done = citegraph_ok(
        "evaluate", "local", "--out", str(out), "--rerankers", "symtax", "--encoder", str(tiny_bert),
        "--max-steps", "2", "--ablations", "-enrichment,-taxonomy,euclidean,graph-appnp", *SMALL, env=env,
    )  # fmt: skip
    assert (
        "no paper has an arXiv category: SymTax's taxonomy term is the same for every paper, so its "
        "taxonomy ablations (-taxonomy, euclidean, graph-appnp) are not run" in done.stderr
    )
    results = json.loads((out / "results.json").read_text())
    rows = {row for table in results["tables"] for row in table["rows"]}
    assert {"SymTax (tiny-bert, vector, hyperbolic)", "− enrichment", "tiny-bert_vector"} <= rows
    assert not rows & {"− taxonomy", "hyperbolic → Euclidean", "tiny-bert_graph (APPNP)"}
    assert results["config"]["data_info"]["categories"] == 0
