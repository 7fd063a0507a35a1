"""Local citation recommendation (SymTax): the time-ordered split and its held-out graph view,
the enrichment switch, the separations, one training step of the reranker, and
`citegraph evaluate local` end to end on a synthetic corpus and on the unarXive sample."""

from __future__ import annotations

import json
import math
import tarfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from citegraph.errors import CitegraphError
from citegraph.evaluation.metrics import compare, over_seeds
from citegraph.ingest import formats, ingest
from citegraph.ingest.sources.taxonomy import BUNDLED
from citegraph.local import controls
from citegraph.local.config import LocalConfig, PrefetchConfig, SplitConfig
from citegraph.local.data import export_contexts, graph_papers, held_out_papers, read_contexts, time_split
from citegraph.local.enrich import HeldOutView, enrich_all
from citegraph.local.experiment import evaluate_local
from citegraph.local.geometry import distance, mobius_add, to_manifold
from citegraph.local.stages import Lists, enrich, load_corpus, query_set, split
from citegraph.local.symtax import RerankerConfig
from citegraph.local.tables import Rows, scored, tables
from citegraph.retrieval.base import Hit
from citegraph.synth import SynthSpec, generate

from conftest import citegraph, citegraph_ok, shared

torch = pytest.importorskip("torch")

# A tiny citation graph: who cites whom, with one context per citation, years 2015–2021.
PAPERS = {  # id: (year, categories, references)
    "A": (2015, ["cs.CL"], []),
    "B": (2016, ["cs.CL"], ["A"]),
    "C": (2017, ["cs.CV"], ["A"]),
    "D": (2018, ["cs.CL"], ["A", "B"]),
    "E": (2019, ["cs.CV"], ["C", "A"]),
    "F": (2020, ["cs.CL", "cs.LG"], ["D", "B", "C"]),
    "G": (2021, ["cs.CL"], ["F", "D"]),
    "H": (2021, ["cs.CV"], ["E", "C"]),
}
TOPIC = {"cs.CL": "text retrieval citation recommendation", "cs.CV": "cell cells protein gene data"}


def write_corpus(path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for pid, (year, categories, refs) in PAPERS.items():
            words = TOPIC[categories[0]]
            f.write(
                json.dumps(
                    {
                        "id": pid,
                        "year": year,
                        "categories": categories,
                        "title": f"paper {pid.lower()} on {words}",
                        "abstract": f"we study {words} with neural network models for paper {pid.lower()}.",
                        "references": [
                            {"id": r, "contexts": [f"as in [CIT] we use {words} for {r.lower()}."]} for r in refs
                        ],
                    }
                )
                + "\n"
            )
    return path


@pytest.fixture
def tiny_graph(store, tmp_path):
    ingest(store, formats.get("jsonl"), [write_corpus(tmp_path / "tiny.jsonl")])
    return store


# -- the time-ordered split and the held-out view ----------------------------------------------
def test_time_split_has_no_leakage_and_the_view_shows_no_test_edge(tiny_graph, tmp_path):
    counts = export_contexts(tiny_graph, tmp_path / "contexts.jsonl")
    assert counts["contexts"] == counts["edges"] == 13 and counts["contexts_citing_text"] == 13
    contexts = read_contexts(tmp_path / "contexts.jsonl")
    split = time_split(contexts, test=0.25)
    assert {c.citing for c in split.test} == {"G", "H"}  # the newest citing papers, whole
    assert max(c.year for c in split.train) < min(c.year for c in split.test)
    assert not {c.citing for c in split.train} & {c.citing for c in split.test}

    papers = [(r["id"], r["year"], r["arxiv_id"]) for r in graph_papers(tiny_graph)]
    hidden = held_out_papers(split, papers)
    assert hidden == ["G", "H"]
    view = HeldOutView.hiding(tiny_graph, hidden)
    visible = set(view.edges(list(PAPERS)))
    test_edges = {(c.citing, cited) for c in split.test for cited in c.cited}
    assert test_edges and not visible & test_edges
    assert visible == {(c.citing, c.cited[0]) for c in split.train}  # everything else stays visible
    assert set(HeldOutView(tiny_graph).edges(list(PAPERS))) >= test_edges  # without the view they are there

    # a test query whose prefetched candidates include another test paper (H, same year as G):
    # H's citations (E, C) must not come back through enrichment, B's (A) may
    query = next(c for c in split.test if c.citing == "G")
    [enriched] = enrich_all(view, [query], [["H", "B"]])
    assert enriched.ids == ["H", "B", "A"] and enriched.frequency == {"A": 1}
    [leaky] = enrich_all(HeldOutView(tiny_graph), [query], [["H", "B"]])
    assert {"E", "C"} <= set(leaky.ids)


def test_enrichment_on_and_off(tiny_graph, tmp_path):
    export_contexts(tiny_graph, tmp_path / "contexts.jsonl")
    query = next(c for c in read_contexts(tmp_path / "contexts.jsonl") if c.citing == "G")
    view = HeldOutView.hiding(tiny_graph, ["G", "H"])
    [on] = enrich_all(view, [query], [["D", "E", "D"]], size=300)
    assert on.ids == ["D", "E", "A", "B", "C"]  # A is cited by both candidates: first
    assert on.frequency == {"A": 2, "B": 1, "C": 1}
    [cut] = enrich_all(view, [query], [["D", "E"]], size=3)
    assert cut.ids == ["D", "E", "A"]
    # off: the prefetched list as it is, and no query at all (this view has no store to ask)
    [off] = enrich_all(HeldOutView(None), [query], [["D", "E", "D"]], enabled=False)
    assert off.ids == ["D", "E"] and off.frequency == {}
    assert on.ids != off.ids


def test_time_split_orders_by_arxiv_number_and_reads_markers(tmp_path):
    lines = [
        {
            "citing_id": f"p{i}",
            "cited_ids": ["x"],
            "context": "see TARGETCIT and OTHERCIT.",
            "year": 2022,
            "arxiv_id": f"22{month:02d}.{number:05d}",
        }
        for i, (month, number) in enumerate([(12, 3), (1, 7), (12, 1), (6, 2), (3, 9)])
    ]
    path = tmp_path / "q.jsonl"
    path.write_text(
        "".join(json.dumps(x) + "\n" for x in lines) + '{"citing_id": "undated", "cited_id": "x", "context": "[CIT]"}\n'
    )
    contexts = read_contexts(path)
    assert contexts[0].text == "see [CIT] and [REF]." and contexts[-1].cited == ("x",)
    split = time_split(contexts, test=0.4)
    assert [c.citing for c in split.test] == ["p2", "p0"]  # 2212.00001, 2212.00003: the newest
    assert [c.citing for c in split.train] == ["p1", "p4", "p3"]
    assert split.undated == 1


def test_bad_query_sets_name_file_line_and_field(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"citing_id": "a", "cited_ids": ["b"], "context": "x [CIT]"}\n'
        '{"citing_id": "a", "cited_ids": [], "context": "x [CIT]"}\n'
    )
    with pytest.raises(CitegraphError, match=r"bad.jsonl:2: 'cited_ids' must be a non-empty list"):
        read_contexts(path)
    path.write_text('{"citing_id": "a", "cited_ids": ["b"], "context": "x", "year": "2020"}\n')
    with pytest.raises(CitegraphError, match=r"bad.jsonl:1: 'year' must be an integer"):
        read_contexts(path)
    path.write_text('{"citing_id": "a", "cited_ids": ["b"], "context": "x [CIT] \\udc80"}\n')
    with pytest.raises(CitegraphError, match=r"bad.jsonl:1: field 'context' a lone UTF-16 surrogate \(\\udc80\)"):
        read_contexts(path)


# -- the stages of the experiment, each alone -------------------------------------------------------
def test_configuration_checks_and_the_one_reranker_config():
    with pytest.raises(CitegraphError, match="unknown ablation.*choose from -enrichment"):
        LocalConfig(ablations=("-enrichments",))
    with pytest.raises(CitegraphError, match="lm_mode must be one of"):
        LocalConfig(lm_mode="tuned")
    with pytest.raises(CitegraphError, match="textless must be skip or keep"):
        SplitConfig(textless="drop")
    assert LocalConfig(enrich=False).ablations == ("-taxonomy", "euclidean", "spherical", "graph-appnp")
    base = LocalConfig(
        lms=("a", "b"), lm_mode="frozen", max_steps=7, seed=3, reranker=RerankerConfig(proj_dim=8, max_steps=99)
    ).base
    assert (base.lm, base.max_steps, base.finetune, base.seed, base.proj_dim) == ("a", 7, False, 3, 8)


def test_query_set_corpus_split_prefetch_and_enrich_alone(tiny_graph, tmp_path):
    corpus = load_corpus(tiny_graph)
    assert (
        len(corpus.documents) == 8
        and corpus.years["G"] == 2021
        and corpus.candidates["F"].categories == ("cs.CL", "cs.LG")
    )
    data = query_set(tiny_graph, None, tmp_path)
    assert data == tmp_path / "contexts.jsonl" and len(read_contexts(data)) == 13
    assert query_set(tiny_graph, data, tmp_path / "elsewhere") == data and not (tmp_path / "elsewhere").exists()

    queries = split(tiny_graph, corpus, read_contexts(data), SplitConfig(test_share=0.25, max_train=4), seed=12)
    assert {c.citing for c in queries.test} == {"G", "H"} and len(queries.test) == 4 and len(queries.train) == 4
    assert queries.info["train"] == 9 and queries.info["train_used"] == 4 and queries.view.held_out == ("G", "H")
    for max_train in (2, 9):  # the test sample does not depend on how much is trained on
        other = split(
            tiny_graph,
            corpus,
            read_contexts(data),
            SplitConfig(test_share=0.25, max_train=max_train, max_test=2),
            seed=12,
        )
        assert [c.id for c in other.test] == [
            c.id
            for c in split(
                tiny_graph, corpus, read_contexts(data), SplitConfig(test_share=0.25, max_test=2), seed=12
            ).test
        ]

    candidate_lists = Lists(corpus, LocalConfig(prefetch=PrefetchConfig("bm25:bm25s", depth=3)), tmp_path / "index")
    lists = candidate_lists.prefetch(queries.test)
    assert candidate_lists.prefetch(queries.test[:1]) == lists[:1]  # kept: not searched again
    for context, ids in zip(queries.test, lists):
        assert 0 < len(ids) <= 3 and context.citing not in ids
        assert all(corpus.years[i] <= context.year for i in ids)
    enriched = enrich(queries.view, queries.test, lists, LocalConfig(size=5))
    for ids, before in zip(enriched, lists):
        assert ids[: len(before)] == before and len(ids) <= 5
        assert set(ids[len(before) :]) <= {cited for _, cited in queries.view.edges(before)}  # the view's edges only
    assert enrich(queries.view, queries.test, lists, LocalConfig(enrich=False)) == lists


def test_tables_score_runs_alone(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(
        "".join(
            json.dumps({"citing_id": f"p{i}", "cited_ids": [cited], "context": "x [CIT]", "year": 2020}) + "\n"
            for i, cited in enumerate(["a", "f"])
        )
    )
    test = read_contexts(path)
    ranked = {c.id: [Hit(d, 10.0 - r) for r, d in enumerate("abcdef")] for c in test}  # a first, f sixth
    [mine] = scored(test, {"mine": ranked}).values()
    [table] = tables(LocalConfig(max_steps=5), len(test), {"mine": over_seeds((12,), [mine])}, Rows(["mine"]))
    assert table.rows["mine"]["R@5"] == [0.5, None] and table.rows["mine"]["R@10"][0] == 1.0
    assert table.rows["mine"]["MRR"][0] == pytest.approx((1 + 1 / 6) / 2)
    assert "2 test contexts, prefetch bm25 top 100, enriched to 300" in table.title and "5 steps" in table.title
    assert mine.per_query["MRR"] == {test[0].id: 1.0, test[1].id: pytest.approx(1 / 6)}


def test_the_controls_reorder_the_prefetched_list_as_defined(tmp_path):
    """abstract-first: a stable sort on "has an abstract"; same-kind: the list restricted to the
    kind most training positives have (decided on the training side only)."""
    lists = [["t1", "a1", "t2", "a2", "a3"], ["a4", "t3"], []]
    abstracts = {"a1", "a2", "a3", "a4"}
    assert controls.first(lists, abstracts) == [["a1", "a2", "a3", "t1", "t2"], ["a4", "t3"], []]
    assert controls.same_kind(lists, abstracts, True) == [["a1", "a2", "a3"], ["a4"], []]
    assert controls.same_kind(lists, abstracts, False) == [["t1", "t2"], ["t3"], []]
    path = tmp_path / "q.jsonl"
    path.write_text(
        "".join(
            json.dumps({"citing_id": f"p{i}", "cited_ids": cited, "context": "x [CIT]", "year": 2020}) + "\n"
            for i, cited in enumerate([["a1", "t1"], ["t2"], ["a2"]])
        )
    )
    train = read_contexts(path)
    assert controls.cited_mostly_have_an_abstract(train, abstracts)  # 2 of 4: a tie counts as "with an abstract"
    assert not controls.cited_mostly_have_an_abstract(train[:2], abstracts)  # 1 of 3


def test_learned_rows_are_tested_against_the_strongest_baseline_per_measure(tmp_path):
    """R@1 is best for the abstract-first control, R@5 for the prefetcher: each measure's p-value
    compares the model with that measure's best baseline, which the title names."""
    path = tmp_path / "q.jsonl"
    path.write_text(
        "".join(
            json.dumps({"citing_id": f"p{i}", "cited_ids": ["x"], "context": "x [CIT]", "year": 2020}) + "\n"
            for i in range(6)
        )
    )
    test = read_contexts(path)

    def at(position: dict[int, int]) -> dict[str, list[Hit]]:  # context i → rank of x (1-based)
        return {
            c.id: [Hit(d, 100.0 - r) for r, d in enumerate([f"n{k}" for k in range(position[i] - 1)] + ["x"])]
            for i, c in enumerate(test)
        }

    runs = {
        "bm25": at({0: 2, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2}),  # R@1 0, R@5 1
        "abstract-first": at({0: 1, 1: 1, 2: 1, 3: 9, 4: 9, 5: 9}),  # R@1 0.5, R@5 0.5
        "model": at({0: 1, 1: 1, 2: 1, 3: 1, 4: 2, 5: 2}),  # R@1 0.67, R@5 1
    }
    results = {n: over_seeds((0,), [e]) for n, e in scored(test, runs).items()}
    rows = Rows(list(runs), baselines=["bm25", "abstract-first"], learned=["model"])
    main, t_prefetch, p_prefetch, t_best, p_best = tables(LocalConfig(rerankers=("biencoder",)), 6, results, rows)
    assert list(main.rows) == list(runs) and list(p_prefetch.rows) == ["abstract-first", "model"]
    assert p_best.title.startswith("Paired randomisation test p against the strongest baseline per measure")
    assert "abstract-first: R@1, R@10" not in p_best.title and "bm25: R@5" in p_best.title
    assert "abstract-first: R@1" in p_best.title and list(p_best.rows) == ["model"]
    for measure, baseline in (("R@1", "abstract-first"), ("R@5", "bm25")):
        expected = compare(results["model"].pooled, results[baseline].pooled, measure, permutations=2000)
        assert p_best.rows["model"][measure][0] == expected.randomisation_p
        assert t_best.rows["model"][measure][0] == expected.t_test_p
    assert p_best.rows["model"]["R@5"][0] == 1.0  # the same R@5 as bm25: nothing to test


# -- separations ------------------------------------------------------------------------------
def _points(n: int, dim: int = 5, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    v = torch.randn(n, dim, generator=g, dtype=torch.float64)
    return v / v.norm(dim=-1, keepdim=True) * torch.rand(n, 1, generator=g, dtype=torch.float64) * 0.95


def test_hyperbolic_distance_known_values():
    x = _points(20)
    zero = torch.zeros_like(x)
    assert torch.allclose(distance(zero, x), 2 * torch.atanh(x.norm(dim=-1)))
    assert torch.allclose(distance(zero, x, "spherical"), 2 * torch.atan(x.norm(dim=-1)))
    assert torch.allclose(distance(zero, x, "euclidean"), x.norm(dim=-1))
    # the Poincaré ball's closed form: arcosh(1 + 2‖x−y‖² / ((1−‖x‖²)(1−‖y‖²)))
    y = _points(20, seed=1)
    closed = torch.acosh(1 + 2 * (x - y).norm(dim=-1) ** 2 / ((1 - x.norm(dim=-1) ** 2) * (1 - y.norm(dim=-1) ** 2)))
    assert torch.allclose(distance(x, y), closed)
    assert torch.allclose(distance(x, y), distance(y, x))
    assert torch.allclose(distance(x, x), torch.zeros(20, dtype=torch.float64), atol=1e-7)
    point = torch.tensor([0.5, 0.0], dtype=torch.float64)
    assert math.isclose(float(distance(torch.zeros(2, dtype=torch.float64), point)), 2 * math.atanh(0.5))


@pytest.mark.parametrize("geometry", ["hyperbolic", "euclidean", "spherical"])
def test_triangle_inequality(geometry):
    x, y, z = _points(200, seed=2), _points(200, seed=3), _points(200, seed=4)
    assert bool((distance(x, z, geometry) <= distance(x, y, geometry) + distance(y, z, geometry) + 1e-9).all())
    assert bool((distance(x, y, geometry) > 0).all())


def test_mobius_addition_identities():
    a, b = _points(50, seed=5), _points(50, seed=6)
    zero = torch.zeros_like(a)
    assert torch.allclose(mobius_add(zero, a), a) and torch.allclose(mobius_add(a, zero), a)
    assert torch.allclose(mobius_add(-a, a), zero, atol=1e-12)
    assert torch.allclose(mobius_add(-a, mobius_add(a, b)), b)  # left cancellation
    assert (mobius_add(a, b).norm(dim=-1) < 1).all()  # the ball is closed under ⊕
    assert torch.allclose(mobius_add(a, b, kappa=0.0), a + b)
    # the printed form of SymTax's paper, for κ = −1
    ab, a2, b2 = (a * b).sum(-1, keepdim=True), (a * a).sum(-1, keepdim=True), (b * b).sum(-1, keepdim=True)
    assert torch.allclose(mobius_add(a, b), ((1 + 2 * ab + b2) * a + (1 - a2) * b) / (1 + 2 * ab + a2 * b2))
    assert (to_manifold(torch.randn(10, 4) * 50).norm(dim=-1) < 1).all()


# -- the reranker ---------------------------------------------------------------------------------
@pytest.mark.parametrize("taxonomy,gnn", [("vector", "appnp"), ("graph", "appnp"), ("graph", "gat")])
def test_one_training_step_lowers_the_loss(tiny_graph, tiny_bert, tmp_path, taxonomy, gnn):
    from citegraph.local.encoding import Candidate, PairEncoder
    from citegraph.local.symtax import Reranker, RerankerConfig
    from citegraph.local.taxonomy_fusion import load_taxonomy

    ingest(tiny_graph, formats.get("taxonomy"), [BUNDLED])
    export_contexts(tiny_graph, tmp_path / "contexts.jsonl")
    contexts = {c.id: c for c in read_contexts(tmp_path / "contexts.jsonl")}
    corpus = {
        r["id"]: Candidate(f"{r['title']} {r['abstract']}", tuple(r["categories"])) for r in graph_papers(tiny_graph)
    }
    graph = load_taxonomy(tiny_graph)
    assert set(graph.maps["cs.CL"]) == {"I.2.7"} and graph.edges  # cs.CL → Natural Language Processing
    encoder = PairEncoder(f"hf:{tiny_bert}", 64)
    config = RerankerConfig(lm=encoder.name, taxonomy=taxonomy, gnn=gnn, finetune=True, lr_lm=1e-3, hidden=16)
    reranker = Reranker(config, encoder, corpus, graph)
    for module in (*reranker.model.modules(), *reranker.encoder.model.modules()):
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0  # the same loss before and after the step
    triplets = [
        (contexts["F|D|0"], "D", ["A", "E", "H"]),
        (contexts["E|C|0"], "C", ["B", "D"]),
        (contexts["H|E|0"], "E", ["A", "F"]),
    ]
    with torch.no_grad():
        before = float(reranker.loss(triplets))
    lm_before = next(reranker.encoder.model.parameters()).clone()
    assert reranker.step(triplets) == pytest.approx(before)
    with torch.no_grad():
        after = float(reranker.loss(triplets))
    assert 0 < after < before
    assert not torch.equal(next(reranker.encoder.model.parameters()), lm_before)  # the LM was fine-tuned …
    assert torch.equal(next(encoder.model.parameters()), lm_before)  # … as a copy: the shared LM is untouched
    [ranking] = reranker.rank([contexts["F|D|0"]], [["A", "B", "D", "E"]])
    assert sorted(h.id for h in ranking) == ["A", "B", "D", "E"] and all(0 < h.score < 1 for h in ranking)


# -- end to end -----------------------------------------------------------------------------------
def _tables(out: Path) -> list[dict]:
    return json.loads((out / "results.json").read_text())["tables"]


def _check_metrics(table: dict) -> None:
    for cells in table["rows"].values():
        assert set(cells) == {"R@1", "R@5", "R@10", "R@20", "R@50", "nDCG@10", "MRR"}
        assert all(0.0 <= mean <= 1.0 for mean, _ in cells.values())
        assert cells["R@1"][0] <= cells["R@5"][0] <= cells["R@10"][0] <= cells["R@20"][0] <= cells["R@50"][0]


def test_evaluate_local_on_a_synthetic_corpus(store, server_env, tiny_bert, tmp_path):
    corpus, out = tmp_path / "synth.jsonl", tmp_path / "out"
    generate(SynthSpec(150, seed=3, contexts=True), corpus)  # `citegraph synth --papers 150 --contexts`
    ingest(store, formats.get("jsonl"), [corpus])
    ingest(store, formats.get("taxonomy"), [BUNDLED])
    result = citegraph_ok(
        "evaluate",
        "local",
        "--out",
        str(out),
        "--encoder",
        str(tiny_bert),
        "--max-steps",
        "2",
        "--max-train",
        "12",
        "--max-test",
        "6",
        "--prefetch",
        "bm25:bm25s",
        "--ablations",
        "-enrichment,-taxonomy,euclidean,spherical,graph-appnp,graph-gat",
        env=server_env,
    )
    assert "ablations (SymTax Table 3)" in result.stdout
    assert "LM fine-tuned once, shared" in result.stdout  # the CPU default
    ablation, fusion, t_test, randomisation, _, against_strongest = _tables(out)
    assert t_test["title"].startswith("Paired t-test p against prefetch (bm25:bm25s)")
    assert list(randomisation["rows"]) == [*list(ablation["rows"])[1:], *fusion["rows"]]
    assert list(against_strongest["rows"]) == [*list(ablation["rows"])[4:], *fusion["rows"]]  # the learned rows
    assert list(ablation["rows"]) == [
        "prefetch (bm25:bm25s)",
        "prefetch (bm25:bm25s), abstract-first",
        "prefetch (bm25:bm25s), same-kind text (with an abstract)",
        "prefetch (bm25:bm25s) + enrichment",
        "SymTax (tiny-bert, vector, hyperbolic)",
        "− enrichment",
        "− taxonomy",
        "hyperbolic → Euclidean",
        "hyperbolic → spherical (SymTax release)",
    ]
    assert list(fusion["rows"]) == ["tiny-bert_vector", "tiny-bert_graph (APPNP)", "tiny-bert_graph (GAT)"]
    _check_metrics(ablation)
    _check_metrics(fusion)
    config = json.loads((out / "results.json").read_text())["config"]
    info = config["data_info"]
    assert info["test_used"] == 6 and info["train_used"] == 12 and info["hidden_citing_papers"] >= info["test_papers"]
    assert info["positive_in_enriched"] >= info["positive_in_prefetched"] > 0
    assert info["candidates_enriched"] > info["candidates_prefetched"]
    assert all(v["steps"] == 2 for v in config["variants"].values())
    lm = f"hf:{tiny_bert}"
    assert config["pairs_encoded"][f"{lm} (fine-tuned)"] > 0  # the ablations read the full model's LM

    # the same query set without the Enricher: no enrichment row, candidates are the prefetched lists
    config = LocalConfig(
        data=out / "contexts.jsonl",
        lms=(lm,),
        enrich=False,
        ablations=("-enrichment", "-taxonomy"),
        lm_mode="frozen",
        max_steps=1,
        split=SplitConfig(max_train=12, max_test=6),
        prefetch=PrefetchConfig("bm25:bm25s"),
    )
    table, *tests = evaluate_local(store, tmp_path / "plain", config).tables
    assert len(tests) == 4
    assert list(table.rows) == [
        "prefetch (bm25:bm25s)",
        "prefetch (bm25:bm25s), abstract-first",
        "prefetch (bm25:bm25s), same-kind text (with an abstract)",
        "SymTax (tiny-bert, vector, hyperbolic)",
        "− taxonomy",
    ]
    plain = json.loads((tmp_path / "plain" / "results.json").read_text())["config"]["data_info"]
    assert plain["candidates_enriched"] == plain["candidates_prefetched"] == 100


def test_contexts_export_and_evaluate_local_on_the_unarxive_sample(store, server_env, tiny_bert, tmp_path):
    with tarfile.open(shared("samples/unarxive/unarXive_data_sample.tar.gz")) as archive:
        archive.extractall(tmp_path, filter="data")
    citegraph_ok("ingest", "unarxive", str(tmp_path / "unarXive_data_sample"), "--no-progress", env=server_env)
    query_set, out = tmp_path / "contexts.jsonl", tmp_path / "out"
    citegraph_ok("contexts", "export", "--out", str(query_set), env=server_env)
    lines = [json.loads(line) for line in query_set.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 1217 and len({(x["citing_id"], x["cited_ids"][0]) for x in lines}) == 601
    first = next(x for x in lines if x["citing_id"] == "2212.11766")
    assert set(first) == {
        "context_id",
        "citing_id",
        "cited_ids",
        "context",
        "section",
        "title",
        "abstract",
        "categories",
        "year",
        "arxiv_id",
    }
    assert first["title"].startswith("Long bet will lose") and first["year"] == 2022 and first["categories"]
    assert all(x["context"].count("[CIT]") == 1 for x in lines)
    # the sample's cited papers are stubs without text: reachable only through enrichment (--textless keep)
    citegraph_ok(
        "evaluate",
        "local",
        "--data",
        str(query_set),
        "--out",
        str(out),
        "--encoder",
        str(tiny_bert),
        "--lm-mode",
        "finetune",
        "--textless",
        "keep",
        "--max-steps",
        "2",
        "--max-train",
        "8",
        "--max-test",
        "5",
        "--prefetch",
        "bm25:bm25s",
        "--ablations",
        "-taxonomy",
        env=server_env,
    )
    ablation, *_ = _tables(out)
    assert list(ablation["rows"]) == [
        "prefetch (bm25:bm25s)",
        "prefetch (bm25:bm25s), abstract-first",
        "prefetch (bm25:bm25s), same-kind text (without an abstract)",  # the cited papers are stubs
        "prefetch (bm25:bm25s) + enrichment",
        "SymTax (tiny-bert, vector, hyperbolic)",
        "− taxonomy",
    ]
    _check_metrics(ablation)


def test_papers_without_any_category_share_the_unknown_embedding():
    """ACL papers (ScisummNet, ACL-200) have no arXiv category: the taxonomy table is empty."""
    import numpy as np

    from citegraph.local.nets import TaxonomyFusion
    from citegraph.local.taxonomy_fusion import TaxonomyGraph

    module = TaxonomyFusion(TaxonomyGraph([], {}, {}), lambda texts: np.zeros((len(texts), 8), np.float32))
    embedded = module.papers([[], []])
    assert tuple(embedded.shape) == (2, module.dim) and bool((embedded[0] == embedded[1]).all())


# -- the bi-encoder ------------------------------------------------------------------------------
def _bi_contexts(tmp_path: Path):
    """Four training contexts: p1 cites a and b (co-cited), p2 and p3 cite a, p4 cites c."""
    rows = [
        ("p1", "a", "as in [CIT] we use text retrieval for citation recommendation ."),
        ("p1", "b", "dense models [CIT] encode cells and genes ."),
        ("p2", "a", "text retrieval [CIT] ranks citation papers ."),
        ("p3", "a", "citation recommendation with text retrieval [CIT] ."),
        ("p4", "c", "protein data of patients [CIT] in a cancer study ."),
    ]
    path = tmp_path / "bi.jsonl"
    path.write_text(
        "".join(json.dumps({"citing_id": p, "cited_ids": [c], "context": t, "year": 2020}) + "\n" for p, c, t in rows)
    )
    return read_contexts(path)


def test_biencoder_draws_each_hard_negative_type_and_learns(tiny_bert, tmp_path):
    from citegraph.local.biencoder import BiEncoder, BiEncoderConfig, HardNegatives, Training
    from citegraph.local.encoding import Candidate, PairEncoder

    contexts = _bi_contexts(tmp_path)
    corpus = {
        "a": Candidate("text retrieval for citation recommendation"),
        "b": Candidate("dense models of cells"),
        "c": Candidate("protein gene cancer patients study"),
        "d": Candidate("graph neural network models"),
        "e": Candidate("scientific papers data"),
    }
    examples = [Training(c, ("d", "a", "e", "b")) for c in contexts]
    with pytest.raises(CitegraphError, match="unknown negative type"):
        BiEncoderConfig(negatives=("random",))
    with pytest.raises(CitegraphError, match=r"checkpoint step\(s\) 0, 3 not between 0 and the last step \(3\)"):
        BiEncoderConfig(max_steps=3, checkpoints=(0, 1, 3))
    config = BiEncoderConfig(
        lm=f"hf:{tiny_bert}",
        negatives=("prefetch", "cocited", "popular"),
        prefetch_top=1,
        popular_top=1,
        batch_queries=4,
        max_steps=40,
        lr=1e-3,
        warmup=0.0,
        max_length=32,
    )
    negatives = HardNegatives(examples, config)
    assert negatives.popular == ["a"] and negatives.cited_by["p1"] == {"a", "b"}
    rng = np.random.default_rng(0)
    assert negatives.draw(examples[0], rng) == ["d", "b"]  # the first-ranked non-cited; co-cited b; a is cited
    assert negatives.draw(examples[4], rng) == ["d", "a"]  # p4 cites nothing else: no co-cited negative

    encoder = PairEncoder(config.lm, 32)
    untrained, model = BiEncoder(replace(config, max_steps=0), encoder, corpus), BiEncoder(config, encoder, corpus)
    assert untrained.train(examples) == []
    everything = [list(corpus)] * len(contexts)

    def mrr(ranker) -> float:
        return float(
            np.mean(
                [
                    1 / (1 + [h.id for h in r].index(c.cited[0]))
                    for c, r in zip(contexts, ranker.rank(contexts, everything))
                ]
            )
        )

    before = mrr(untrained)
    losses = model.train(examples)
    assert len(losses) == 40 and np.mean(losses[-5:]) < np.mean(losses[:5])
    assert mrr(model) > before and mrr(model) >= 0.9  # it fits its training contexts …
    assert mrr(untrained) == before  # … on its own copy of the LM
    seen = []
    curve = BiEncoder(replace(config, max_steps=6, checkpoints=(2, 4)), encoder, corpus)

    def evaluate(step: int) -> None:
        seen.append((step, curve.steps, curve.seconds))
        time.sleep(0.2)  # a checkpoint's ranking is not training time

    started = time.perf_counter()
    curve.train(examples, at_checkpoint=evaluate)
    assert [(step, steps) for step, steps, _ in seen] == [(2, 2), (4, 4)]
    assert 0 < seen[0][2] < seen[1][2] < curve.seconds < time.perf_counter() - started - 0.4
    [ranking] = model.rank(contexts[:1], [["e", "a", "a", "z"]])
    assert sorted(h.id for h in ranking) == ["a", "e", "z"]  # deduplicated; a paper without text still ranked


def test_evaluate_local_with_the_biencoder_and_more_first_stages(store, server_env, tiny_bert, tmp_path):
    corpus, out = tmp_path / "synth.jsonl", tmp_path / "out"
    generate(SynthSpec(150, seed=3, contexts=True), corpus)
    ingest(store, formats.get("jsonl"), [corpus])
    lm = f"hf:{tiny_bert}"
    result = citegraph_ok(
        "evaluate",
        "local",
        "--out",
        str(out),
        "--encoder",
        str(tiny_bert),
        "--rerankers",
        "biencoder",
        "--first-stages",
        f"{lm},rrf(bm25:bm25s,{lm})",
        "--bi-steps",
        "3",
        "--bi-checkpoints",
        "1,2",
        "--bi-batch",
        "4",
        "--max-train",
        "12",
        "--max-test",
        "8",
        "--prefetch",
        "bm25:bm25s",
        env=server_env,
    )
    assert "first stages and bi-encoder" in result.stdout and "bi-encoder: 3 steps of 4" in result.stdout
    main, t_test, randomisation, _, against_strongest = _tables(out)
    rows = [
        "prefetch (bm25:bm25s)",
        "prefetch (bm25:bm25s), abstract-first",
        "prefetch (bm25:bm25s), same-kind text (with an abstract)",
        f"prefetch ({lm})",
        f"prefetch (rrf(bm25:bm25s,{lm}))",
        "prefetch (bm25:bm25s) + enrichment",
        "tiny-bert bi-encoder, untrained",
        "tiny-bert bi-encoder, fine-tuned (1 of 3 steps)",
        "tiny-bert bi-encoder, fine-tuned (2 of 3 steps)",
        "tiny-bert bi-encoder, fine-tuned (3 steps)",
        "tiny-bert bi-encoder, fine-tuned (3 steps) + first stage (RRF)",
        "tiny-bert bi-encoder, fine-tuned (3 steps), abstract-first",
    ]
    assert list(main["rows"]) == rows and list(t_test["rows"]) == list(randomisation["rows"]) == rows[1:]
    assert list(against_strongest["rows"]) == rows[6:]
    _check_metrics(main)
    assert all(
        0 <= p <= 1 for table in (t_test, randomisation) for cells in table["rows"].values() for p, _ in cells.values()
    )
    config = json.loads((out / "results.json").read_text())["config"]
    trained = config["variants"]["tiny-bert bi-encoder, fine-tuned (3 steps)"]
    assert trained["steps"] == 3 and trained["device"] == "cpu" and trained["final_loss"] > 0
    assert config["variants"]["tiny-bert bi-encoder, untrained"]["steps"] == 0
    assert [config["variants"][f"tiny-bert bi-encoder, fine-tuned ({k} of 3 steps)"]["steps"] for k in (1, 2)] == [1, 2]
    bad = citegraph(
        "evaluate",
        "local",
        "--out",
        str(tmp_path / "bad"),
        "--rerankers",
        "biencoder",
        "--bi-checkpoints",
        "1,x",
        env=server_env,
    )
    assert bad.returncode != 0 and "--bi-checkpoints: '1,x' is not a comma-separated list of steps" in bad.stderr
    assert "Traceback" not in bad.stderr
    assert {"prefetch", "enrich", "bi-encoder", f"prefetch ({lm})", "total"} <= set(config["seconds"])
    assert len(config["load_average"]) == 3 and config["pairs_encoded"] == {}
