"""`evaluate local` with every candidate shown by its title only (``--candidates uniform``) or
only the candidates with an abstract (``--candidates abstracts``), its no-learning control rows,
and several seeds sharing the corpus, the index and the lists."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from citegraph.ingest import formats, ingest
from citegraph.local import prefetch as prefetching
from citegraph.local.biencoder import BiEncoderConfig
from citegraph.local.config import LocalConfig, PrefetchConfig, SplitConfig
from citegraph.local.data import read_contexts
from citegraph.local.encoding import PairEncoder
from citegraph.local.experiment import evaluate_local, kept_seed
from citegraph.local.stages import load_corpus
from citegraph.synth import SynthSpec, generate

from conftest import citegraph

pytest.importorskip("torch")

BM25 = "prefetch (bm25:bm25s)"


def _half_without_abstracts(path: Path) -> list[str]:
    """A synthetic corpus where every other paper has a title only; the abstracts left."""
    generate(SynthSpec(150, seed=3, contexts=True), path)
    papers = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for i, paper in enumerate(papers):
        if i % 2:
            paper["abstract"] = ""
    path.write_text("".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    return [p["abstract"] for p in papers if p["abstract"]]


def _spy(monkeypatch, owner, name: str, record) -> None:
    """Record what ``owner.name`` is called with, then call it."""
    real = getattr(owner, name)

    def spied(*args, **kwargs):
        record(*args, **kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, spied)


def _shown_to_the_lms(monkeypatch) -> list[str]:
    """Every text an LM reads from now on (pairs and embeddings)."""
    shown: list[str] = []
    _spy(monkeypatch, PairEncoder, "pairs", lambda self, first, second: shown.extend([*first, *(second or ())]))
    _spy(
        monkeypatch,
        PairEncoder,
        "embed",
        lambda self, texts, second=None, batch_size=64: shown.extend([*texts, *(second or ())]),
    )
    return shown


def _candidate_side(shown: list[str], out: Path) -> list[str]:
    """The texts of ``shown`` that are not a query of the run in ``out``."""
    queries = {c.query_text for c in read_contexts(out / "contexts.jsonl")}
    return [t for t in shown if t not in queries]


def _small(tiny_bert: Path, **settings) -> LocalConfig:
    return LocalConfig(
        lms=(f"hf:{tiny_bert}",),
        split=SplitConfig(max_train=12, max_test=6),
        prefetch=PrefetchConfig("bm25:bm25s"),
        biencoder=BiEncoderConfig(max_steps=2, batch_queries=4),
        **settings,
    )


def test_uniform_candidates_show_no_abstract_and_seeds_share_the_lists(store, tiny_bert, tmp_path, monkeypatch):
    abstracts = _half_without_abstracts(tmp_path / "synth.jsonl")
    ingest(store, formats.get("jsonl"), [tmp_path / "synth.jsonl"])
    everything = load_corpus(store, "all")
    uniform = load_corpus(store, "uniform")
    assert uniform.years == everything.years and uniform.abstracts == everything.abstracts  # the same candidates
    assert any(a in everything.candidates[p].text for p in everything.abstracts for a in abstracts)  # can fail

    shown = _shown_to_the_lms(monkeypatch)
    indexed, searched = [], []
    _spy(monkeypatch, prefetching, "build_prefetcher", lambda spec, docs, work: indexed.extend(docs))
    _spy(monkeypatch, prefetching, "prefetch", lambda retriever, contexts, *_: searched.extend(c.id for c in contexts))

    out = tmp_path / "out"
    config = _small(
        tiny_bert,
        candidates="uniform",
        rerankers=("biencoder", "symtax"),
        ablations=(),
        lm_mode="frozen",
        max_steps=1,
        seeds=(0, 1),
    )
    results = evaluate_local(store, out, config)

    # no model and no index ever read an abstract of a candidate (the queries keep the citing abstract)
    candidate_side = _candidate_side(shown, out)
    assert candidate_side and not [t for t in candidate_side for a in abstracts if a in t]
    assert indexed and all(d.abstract == "" and d.title for d in indexed)

    # two seeds: two test samples, each context prefetched once, one index
    tests = [{c.id for c in read_contexts(out / f"seed-{s}" / "test_contexts.jsonl")} for s in (0, 1)]
    assert tests[0] != tests[1] and len(searched) == len(set(searched)) >= len(tests[0] | tests[1])
    assert len({d.id for d in indexed}) == len(indexed)

    main, *significance = results.tables
    assert "6 test contexts, 2 seeds (0, 1): mean ± sd, candidates: titles only" in main.title
    assert [r for r in main.rows if r.startswith(BM25)][:3] == [
        BM25,
        f"{BM25}, abstract-first",
        f"{BM25}, same-kind text ({results.config['data_info']['same_kind']})",
    ]
    assert [t.title.split(" — ")[0] for t in significance[:2]] == [
        f"Paired t-test p against {BM25}",
        f"Paired randomisation test p against {BM25}",
    ]
    assert significance[2].title.startswith("Paired t-test p against the strongest baseline per measure (")
    assert significance[3].title.startswith("Paired randomisation test p against the strongest baseline per measure")
    assert "SymTax (tiny-bert, vector, hyperbolic)" in significance[3].rows
    assert "tiny-bert bi-encoder, fine-tuned (2 steps)" in significance[3].rows
    # the controls' prior on top of the model is a learned row, tested against the strongest baseline
    assert "tiny-bert bi-encoder, fine-tuned (2 steps), abstract-first" in significance[3].rows

    # a cell is the mean ± sd of the seeds' own tables, which results.json keeps
    saved = json.loads((out / "results.json").read_text())["config"]["per_seed"]
    for row in (BM25, "tiny-bert bi-encoder, fine-tuned (2 steps)"):
        for measure in ("R@10", "MRR"):
            values = [saved[s]["tables"][0]["rows"][row][measure][0] for s in ("0", "1")]
            mean, sd = main.rows[row][measure]
            assert mean == pytest.approx(np.mean(values)) and (sd or 0.0) == pytest.approx(np.std(values, ddof=1))
    assert saved["1"]["seed"] == 1 and saved["1"]["variants"]["tiny-bert bi-encoder, fine-tuned (2 steps)"]["seed"] == 1

    # run again: every seed is read back from its own results.json, nothing is trained or ranked
    read, logged = len(shown), []
    again = evaluate_local(store, out, replace(config, seeds=(1, 0)), log=logged.append)
    assert len(shown) == read and sum("kept from an earlier run" in line for line in logged) == 2
    assert again.tables[0].rows[BM25] == main.rows[BM25]
    # another configuration does not reuse them
    assert kept_seed(replace(config, max_steps=2).with_seed(0), out / "contexts.jsonl", out / "seed-0") is None


def test_abstracts_setting_shows_only_candidates_with_an_abstract(store, tiny_bert, tmp_path, monkeypatch):
    abstracts = _half_without_abstracts(tmp_path / "synth.jsonl")
    ingest(store, formats.get("jsonl"), [tmp_path / "synth.jsonl"])
    corpus = load_corpus(store, "abstracts")
    assert set(corpus.years) == corpus.abstracts and len(corpus.abstracts) == len(abstracts)
    assert all(d.abstract for d in corpus.documents)

    shown = _shown_to_the_lms(monkeypatch)
    out = tmp_path / "out"
    results = evaluate_local(store, out, _small(tiny_bert, candidates="abstracts", rerankers=("biencoder",)))
    # every candidate a model read or ranked, enriched ones included, is shown with its abstract
    candidate_side = _candidate_side(shown, out)
    assert candidate_side and all(any(a in t for a in abstracts) for t in candidate_side)
    main = results.tables[0]
    assert "candidates: the papers with an abstract" in main.title
    assert main.rows[f"{BM25}, abstract-first"] == main.rows[BM25]  # no prior left to re-order by
    assert not [r for r in main.rows if r.endswith("(2 steps), abstract-first")]
    cited = {p for c in read_contexts(out / "test_contexts.jsonl") for p in c.cited}
    assert cited and cited <= corpus.abstracts


def test_bad_seeds_are_one_line():
    done = citegraph("evaluate", "local", "--out", "/tmp/unused", "--seeds", "0,x")
    assert done.returncode != 0 and "--seeds: '0,x' is not a comma-separated list of integers" in done.stderr
    assert "Traceback" not in done.stderr
