"""The fine-tuned bi-encoder kept as a sentence-transformers folder: loaded as ``hf:<folder>``
(and by sentence-transformers itself) it gives the vectors it gave in memory; its card records
the run; a folder that is not a model is refused in one line; and the saved model, loaded
back into `evaluate local`, reproduces the figures its card records."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from test_local import _bi_contexts, _tables

from citegraph.errors import CitegraphError
from citegraph.ingest import formats, ingest
from citegraph.retrieval.base import Document
from citegraph.retrieval.dense.encoders import get_encoder
from citegraph.synth import SynthSpec, generate

from conftest import citegraph, citegraph_ok

torch = pytest.importorskip("torch")

CORPUS = {
    "a": "text retrieval for citation recommendation",
    "b": "dense models of cells",
    "c": "protein gene cancer patients study",
    "d": "graph neural network models",
    "e": "scientific papers data " + "graph models of text and cells in the scientific study " * 6,
}  # cut


@pytest.fixture
def trained(tiny_bert, tmp_path):
    """A bi-encoder trained a few steps on the synthetic contexts of test_local."""
    from citegraph.local.biencoder import BiEncoder, BiEncoderConfig, Training
    from citegraph.local.encoding import Candidate, PairEncoder

    contexts = _bi_contexts(tmp_path)
    config = BiEncoderConfig(lm=f"hf:{tiny_bert}", batch_queries=4, max_steps=5, lr=1e-3, warmup=0.0, max_length=24)
    model = BiEncoder(config, PairEncoder(config.lm, 48), {k: Candidate(v) for k, v in CORPUS.items()})
    model.train([Training(c, ("d", "a", "e", "b")) for c in contexts])
    return model, contexts


def _saved(model, folder: Path, licence: str | None = "cc-by-4.0") -> Path:
    from citegraph.local.saved import model_card, save_model

    card = model_card(
        model,
        graph={"nodes": {"Paper": 5}, "relationships": {"CITES": 4}, "contexts": 5},
        split={"train_until": "2019", "held_out_from": "2020", "train_used": 5, "test_used": 0},
        prefetch="bm25",
        wall_seconds=1.5,
        test=None,
        licence=licence,
    )
    return save_model(model, folder, card)


def test_the_saved_model_gives_the_vectors_it_gave_in_memory(trained, tmp_path):
    model, contexts = trained
    assert model.steps == 5
    folder = _saved(model, tmp_path / "model")
    assert {p.name for p in folder.iterdir()} >= {
        "config.json",
        "model.safetensors",
        "modules.json",
        "1_Pooling",
        "2_Normalize",
        "sentence_bert_config.json",
        "README.md",
        "citegraph.json",
        "tokenizer_config.json",
    }
    assert json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"] == 24
    queries = [c.query_text for c in contexts]
    documents = [Document(k, *v.split(" ", 1)) for k, v in CORPUS.items()]  # title, abstract: joined by a space
    in_memory = [_unit(model.encoder.embed(texts)) for texts in (queries, list(CORPUS.values()))]

    loaded = get_encoder(f"hf:{folder}", dtype="float32")
    assert (loaded.spec.pooling, loaded.spec.normalize, loaded.max_length, loaded.spec.similarity) == (
        "mean",
        True,
        24,
        "cosine",
    )
    through_citegraph = [loaded.encode([Document(str(i), q) for i, q in enumerate(queries)]), loaded.encode(documents)]
    for got, want in zip(through_citegraph, in_memory):
        np.testing.assert_allclose(got, want, atol=1e-6)
    assert not np.allclose(
        in_memory[1], _unit(get_encoder(f"hf:{model.config.lm[3:]}", pooling="mean").encode(documents)), atol=1e-3
    )  # it did learn something

    sentence_transformers = pytest.importorskip("sentence_transformers")
    st = sentence_transformers.SentenceTransformer(str(folder), device="cpu")
    assert st.max_seq_length == 24
    for texts, want in zip((queries, list(CORPUS.values())), in_memory):
        np.testing.assert_allclose(st.encode(texts), want, atol=1e-6)

    # as sentence-transformers 6 saves it (its own layout): citegraph reads that too
    st.save(str(tmp_path / "resaved"))
    resaved = get_encoder(f"hf:{tmp_path / 'resaved'}", dtype="float32")
    assert (resaved.spec.pooling, resaved.spec.normalize, resaved.max_length) == ("mean", True, 24)
    np.testing.assert_allclose(resaved.encode(documents), in_memory[1], atol=1e-6)

    card = json.loads((folder / "citegraph.json").read_text())
    assert card["training"]["steps"] == 5 and card["training"]["batch"] == 4 and card["max_length"] == 24
    assert card["licence"] == "cc-by-4.0" and card["machine"]["cores"] == os.cpu_count() and card["test"] is None
    readme = (folder / "README.md").read_text()
    assert "license: cc-by-4.0" in readme and "5 steps of 4 contexts" in readme


def test_saving_again_replaces_a_model_but_never_other_files(trained, tmp_path):
    model, _ = trained
    folder = _saved(model, tmp_path / "model")
    _saved(model, folder, licence=None)
    assert json.loads((folder / "citegraph.json").read_text())["licence"] is None
    assert not any(p.name.endswith(".partial") for p in tmp_path.iterdir())
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "draft.tex").write_text("mine")
    with pytest.raises(CitegraphError, match="exists and is not a model folder citegraph wrote"):
        _saved(model, tmp_path / "notes")
    assert (tmp_path / "notes" / "draft.tex").read_text() == "mine"


def test_a_folder_that_is_not_a_model_is_named_in_one_line(trained, tmp_path):
    model, _ = trained
    folder = _saved(model, tmp_path / "model")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(
        CitegraphError,
        match=r"is not a model directory \(no config.json, no weights "
        r"\(model.safetensors or pytorch_model.bin\)\)$",
    ):
        get_encoder(f"hf:{empty}")
    (folder / "modules.json").unlink()
    with pytest.raises(CitegraphError, match=r"\(no modules.json\)$"):
        get_encoder(f"hf:{folder}")
    (folder / "model.safetensors").unlink()
    with pytest.raises(CitegraphError, match=r"\(no weights \(model.safetensors or pytorch_model.bin\), no modules"):
        get_encoder(f"hf:{folder}")
    bad = citegraph("index", "dense", "--encoder", f"hf:{folder}")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert "no weights" in bad.stderr and "Traceback" not in bad.stderr


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_evaluate_local_saves_the_model_and_the_saved_model_reproduces_its_card(store, server_env, tiny_bert, tmp_path):
    corpus, out, folder = tmp_path / "synth.jsonl", tmp_path / "out", tmp_path / "model"
    generate(SynthSpec(150, seed=3, contexts=True), corpus)
    ingest(store, formats.get("jsonl"), [corpus])
    common = [
        "--rerankers",
        "biencoder",
        "--bi-batch",
        "4",
        "--bi-max-length",
        "32",
        "--max-train",
        "12",
        "--max-test",
        "8",
        "--prefetch",
        "bm25:bm25s",
    ]
    refused = citegraph("evaluate", "local", "--out", str(out), "--save", str(folder), env=server_env)
    assert (
        refused.returncode == 2
        and "--save keeps the fine-tuned bi-encoder: add biencoder to --rerankers" in refused.stderr
        and "Traceback" not in refused.stderr
    )
    citegraph_ok(
        "evaluate",
        "local",
        "--out",
        str(out),
        "--encoder",
        str(tiny_bert),
        "--bi-steps",
        "3",
        *common,
        "--save",
        str(folder),
        "--licence",
        "cc-by-4.0",
        env=server_env,
    )
    card = json.loads((folder / "citegraph.json").read_text())
    results = json.loads((out / "results.json").read_text())["config"]
    assert card["graph"]["nodes"]["Paper"] >= 150 and card["graph"]["relationships"]["CITES"] > 0
    assert card["graph"]["contexts"] == results["data_info"]["contexts_read"] > 0
    assert card["split"]["train_used"] == 12 and card["split"]["held_out_from"] == results["data_info"]["held_out_from"]
    # what rebuilds the split (citegraph cite tune validates on the contexts not trained on)
    assert {k: card["split"][k] for k in ("candidates", "test_share", "whole_years", "textless")} == {
        "candidates": "all",
        "test_share": results["test_share"],
        "whole_years": False,
        "textless": "skip",
    }
    assert card["training"]["steps"] == 3 and card["training"]["negatives"] == ["prefetch", "cocited", "popular"]
    assert card["base_model"] == f"hf:{tiny_bert}" and card["wall_seconds"] > 0
    tuned = "tiny-bert bi-encoder, fine-tuned (3 steps)"
    [main] = [t for t in _tables(out) if t["title"].startswith("Local")]
    assert card["test"]["rows"][tuned] == {m: cells[0] for m, cells in main["rows"][tuned].items()}
    assert "## Test figures of the same run" in (folder / "README.md").read_text()

    # the saved model, untrained further, ranks the same test contexts as well as it did in its run
    again = tmp_path / "again"
    citegraph_ok(
        "evaluate", "local", "--out", str(again), "--encoder", str(folder), "--bi-steps", "0", *common, env=server_env
    )
    [reloaded] = [t for t in _tables(again) if t["title"].startswith("Local")]
    figures = reloaded["rows"]["model bi-encoder, untrained"]
    assert {m: round(v[0], 6) for m, v in figures.items()} == {
        m: round(v, 6) for m, v in card["test"]["rows"][tuned].items()
    }

    # cite's fusion weights tuned for it on the training side it was not trained on, and kept
    citegraph_ok("index", "bm25", "--backend", "bm25s", env=server_env)
    tune = ["cite", "tune", "--model", str(folder), "--with", "bm25:bm25s", "--contexts", "5", "--draft", "0,1"]
    refused = citegraph(*tune, "--weights", "0,-1", env=server_env)
    assert refused.returncode == 2 and "--weights" in refused.stderr and "Traceback" not in refused.stderr
    tuned_run = citegraph_ok(*tune, "--weights", "0,2", "--write", env=server_env)
    written = json.loads((folder / "citegraph.json").read_text())["cite"]
    validation = written["validation"]
    assert validation["trained_on"] == card["split"]["train_used"] == 12
    assert validation["drawn_from"] == validation["training_side"] - 12 > 0
    assert validation["contexts"] == min(5, validation["drawn_from"])
    assert written["tuned_by"] == "citegraph cite tune"
    assert [(p["draft"], p["model"]) for p in written["grid"]] == [(0, 0), (0, 2), (1, 0), (1, 2)]
    best = max(written["grid"], key=lambda p: (p["mrr"], p["r@10"], -abs(p["draft"] - 0.5) - abs(p["model"] - 1)))
    assert written["fusion"] == {"draft": best["draft"], "model": best["model"]}
    assert f"chosen: draft {best['draft']:g}, model {best['model']:g}" in tuned_run.stdout
    # run again: the same slice, the same figures (nothing left unseeded); the card read back by cite
    again_run = citegraph_ok(*tune, "--weights", "0,2", env=server_env)
    assert (
        _grid_lines(again_run.stdout) == _grid_lines(tuned_run.stdout) and len(_grid_lines(tuned_run.stdout)) == 2
    )  # a row a draft weight
    assert "written to" not in again_run.stdout


def _grid_lines(printed: str) -> list[str]:
    return [line for line in printed.splitlines() if line.startswith("| ") and not line.startswith("| draft")]
