"""The SymTax pipeline end to end, its evaluation and ablations (SymTax's Tables 3 and 4).

:func:`evaluate_local`:

1. reads the query set (``data``, or the graph's contexts exported to ``out/contexts.jsonl``);
2. keeps the answerable contexts (``textless="skip"``: the cited paper must have a title or
   abstract, as text rerankers need; ``"keep"``: every cited paper, textless ones included,
   reachable only through enrichment and read as empty text) and counts what it dropped;
3. splits them by time (:func:`.data.time_split`) and opens the held-out view hiding the
   citations of every test citing paper and everything newer than the cut;
4. prefetches the top ``depth`` (100) candidates (:mod:`.prefetch`) for a sample of train
   (``max_train``) and test (``max_test``) contexts, and enriches them in the view to
   ``size`` (300) — unless ``enrich=False``, which sends no enrichment query at all: training
   negatives and test candidates are then the prefetched lists;
5. trains one reranker per variant (bounded by ``max_steps``; its LM fine-tuned, shared or
   frozen as ``lm_mode`` says) on the train contexts and ranks each test context's
   candidates with it;
6. scores every run with the evaluation harness — Recall@5/10/20/50, nDCG@10, MRR — and
   writes ``results.json/.csv/.md`` (:func:`citegraph.evaluation.report.write_results`).

Rows of the ablation table: the prefetcher alone, prefetch + enrichment (enriched order),
SymTax (LM, vector fusion, hyperbolic), − enrichment (the same model over the prefetched
candidates only: the Enricher is an inference stage), − taxonomy, hyperbolic → Euclidean,
hyperbolic → spherical (the positive curvature of SymTax's release). The LM × fusion table
crosses every LM of ``encoder`` with vector and graph fusion (APPNP or GAT). With
``enrich=False`` the enrichment rows are left out and every model ranks prefetched lists.

Cost (``lm_mode``, :mod:`.ablations`): a frozen or shared LM runs once over every (query,
candidate) pair that training samples or ranking needs, for all variants together; with
``finetune`` every variant fine-tunes and runs its own. On 2 CPU cores all-MiniLM-L6 reads
about 30 pairs of 128 tokens a second (fewer when the cores are shared), so a test context
with 300 candidates costs about 10 s per LM pass: bound ``max_test`` and ``max_steps``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..errors import CitegraphError
from ..evaluation.metrics import evaluate
from ..evaluation.report import Table, write_results
from ..retrieval.base import Document, Ranking
from ..retrieval.spec import Spec, parse_spec
from .ablations import ABLATIONS, DEFAULT_ABLATIONS, LM_MODES
from .data import Context, export_contexts, held_out_papers, read_contexts, time_split, write_contexts
from .enrich import SIZE, HeldOutView, enrich_all
from .prefetch import DEPTH, build_prefetcher
from .prefetch import prefetch as prefetch_
from .rerank import Candidate, Example, PairCache, PairEncoder, Reranker, RerankerConfig
from .taxonomy import load_taxonomy

MEASURES = ("R@5", "R@10", "R@20", "R@50", "nDCG@10", "MRR")
Textless = Literal["skip", "keep"]
_LM_SHOWN = {"finetune": "LM fine-tuned per variant", "shared": "LM fine-tuned once, shared",
             "frozen": "frozen LM"}

if TYPE_CHECKING:
    from ..graph import GraphStore


def evaluate_local(store: GraphStore, out: str | Path, *, data: str | Path | None = None,
                   prefetch: str | Spec = "bm25", encoder: str | Sequence[str] = "minilm", max_steps: int = 200,
                   ablations: Sequence[str] = DEFAULT_ABLATIONS, enrich: bool = True, lm_mode: str = "finetune",
                   textless: Textless = "skip", test_share: float = 0.2,
                   whole_years: bool = False, max_train: int | None = 2000, max_test: int | None = 500,
                   depth: int = DEPTH, size: int = SIZE, reranker: RerankerConfig | None = None,
                   seed: int = 12, log: Callable[[str], None] | None = None) -> list[Table]:
    """Run the pipeline and its ablations; see the module docstring. Returns the result tables."""
    log = log or (lambda message: None)
    started = time.perf_counter()
    timings: dict[str, float] = {}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    lms = [e for e in (encoder.split(",") if isinstance(encoder, str) else encoder) if e]
    unknown = sorted(set(ablations) - set(ABLATIONS))
    if unknown or not lms:
        raise CitegraphError(f"unknown ablation(s) {', '.join(unknown)}; choose from {', '.join(ABLATIONS)}"
                             if unknown else "name at least one LM (encoder)")
    if lm_mode not in LM_MODES:
        raise CitegraphError(f"lm_mode must be one of {', '.join(LM_MODES)}, not {lm_mode!r}")
    prefetch = str(parse_spec(prefetch))  # canonical: it names the prefetch rows
    if textless not in ("skip", "keep"):
        raise CitegraphError(f"textless must be skip or keep, not {textless!r}")
    base = replace(reranker or RerankerConfig(), lm=lms[0], max_steps=max_steps, finetune=lm_mode != "frozen",
                   seed=seed)

    # 1–2. queries and the corpus
    papers = store.run("local/papers")
    corpus = {p["id"]: Candidate(_text(p), tuple(sorted(p["categories"] or ()))) for p in papers}
    years = {p["id"]: p["year"] for p in papers if corpus[p["id"]].text}
    if data is None:
        data = out / "contexts.jsonl"
        export = export_contexts(store, data)
        log(f"exported {export['contexts']} contexts of {export['citing_papers']} citing papers to {data}")
    contexts = read_contexts(data)
    kept, info = _answerable(contexts, corpus, textless)
    log(f"{len(kept)} of {len(contexts)} contexts answerable ({textless} textless cited papers)")
    if not kept:
        return _empty(out, info, "no context cites a paper with text; try textless='keep'")

    # 3. time-ordered split and the held-out view
    split = time_split(kept, test_share, whole_years=whole_years)
    hidden = held_out_papers(split, ((p["id"], p["year"], p["arxiv_id"]) for p in papers))
    view = HeldOutView.hiding(store, hidden)
    rng = np.random.default_rng(seed)
    train, test = _sample(split.train, max_train, rng), _sample(split.test, max_test, rng)
    write_contexts(test, out / "test_contexts.jsonl")
    info.update(split.info, hidden_citing_papers=len(hidden), train_used=len(train), test_used=len(test))
    log(f"split: {split.info}; using {len(train)} train and {len(test)} test contexts; "
        f"the view hides the citations of {len(hidden)} papers")

    # 4. prefetch and enrich
    t = time.perf_counter()
    docs = [Document(p["id"], *_title_abstract(p)) for p in papers if corpus[p["id"]].text]
    retriever = build_prefetcher(prefetch, docs, out / "index")
    queries = [*train, *test]
    prefetched = prefetch_(retriever, queries, years, depth)
    timings["prefetch"] = time.perf_counter() - t
    t = time.perf_counter()
    enriched = [e.ids for e in enrich_all(view, queries, prefetched, size=size, enabled=enrich,
                                          with_text=textless == "skip")]
    timings["enrich"] = time.perf_counter() - t
    n = len(train)
    test_prefetched, test_enriched = prefetched[n:], enriched[n:]
    info.update(_coverage(test, test_prefetched, test_enriched, corpus), documents=len(docs))
    log(f"prefetch ({prefetch}) {timings['prefetch']:.1f} s, enrichment {timings['enrich']:.1f} s; "
        f"test candidates: {info['candidates_prefetched']:.0f} prefetched, {info['candidates_enriched']:.0f} "
        f"enriched (mean), the cited paper among them for {info['positive_in_prefetched']:.1%} / "
        f"{info['positive_in_enriched']:.1%}")

    runs: dict[str, dict[str, Ranking]] = {f"prefetch ({prefetch})": _ordered(test, test_prefetched)}
    if enrich:
        runs[f"prefetch ({prefetch}) + enrichment"] = _ordered(test, test_enriched)
    else:
        ablations = [a for a in ablations if a != "-enrichment"]  # nothing to take away

    # 5. rerankers
    taxonomy = load_taxonomy(store, sorted({c for p in corpus.values() for c in p.categories}
                                           | {c for q in queries for c in q.categories}))
    examples = [Example(c, tuple(e)) for c, e in zip(train, enriched[:n])]
    trained: dict[str, dict[str, Any]] = {}
    encoders: dict[str, PairEncoder] = {}
    caches: dict[str, PairCache] = {}
    tuned: dict[str, Reranker] = {}  # lm_mode "shared": the reranker whose fine-tuned LM the others use

    def run(name: str, config: RerankerConfig, enriched_lists: bool = True, model: Reranker | None = None) -> Reranker:
        t0 = time.perf_counter()
        if model is None:
            if config.lm in tuned:
                owner = tuned[config.lm]
                model = Reranker(replace(config, finetune=False), owner.encoder, corpus, taxonomy, owner.cache)
            else:
                if config.lm not in encoders:
                    encoders[config.lm] = PairEncoder(config.lm, config.max_length, config.device)
                    caches[config.lm] = PairCache(encoders[config.lm], config.batch_size)
                model = Reranker(config, encoders[config.lm], corpus, taxonomy, caches[config.lm])
            model.train(examples, log=lambda m: log(f"  {name}: {m}"))
            if lm_mode == "shared" and config.lm not in tuned:
                caches[f"{config.lm} (fine-tuned)"] = model.freeze()
                tuned[config.lm] = model
        every = max(1, len(test) // 5)

        def progress(done: int, total: int) -> None:
            if done % every == 0 and done < total:
                log(f"  {name}: ranked {done}/{total} test contexts")

        ranked = model.rank(test, test_enriched if enriched_lists else test_prefetched, progress=progress)
        runs[name] = dict(zip((c.id for c in test), ranked))
        trained[name] = {**model.describe(), "lm_mode": lm_mode, "enrichment": enrich and enriched_lists,
                         "seconds": round(time.perf_counter() - t0, 1)}
        log(f"{name}: {trained[name]['seconds']} s")
        return model

    main = f"SymTax ({_short(lms[0])}, vector, hyperbolic)"
    full = run(main, base)
    ablation_rows = {*runs, main}
    if "-enrichment" in ablations:
        run(ABLATIONS["-enrichment"], base, enriched_lists=False, model=full)
    if "-taxonomy" in ablations:
        run(ABLATIONS["-taxonomy"], replace(base, taxonomy="none"))
    for geometry in ("euclidean", "spherical"):
        if geometry in ablations:
            run(ABLATIONS[geometry], replace(base, geometry=geometry))
    ablation_rows |= {ABLATIONS[a] for a in ablations if not a.startswith("graph-")}
    fusion_rows = []
    gnns = [a.split("-")[1] for a in ablations if a.startswith("graph-")]
    for lm in lms:
        for fusion, gnn in [("vector", base.gnn), *(("graph", g) for g in gnns)]:
            row = f"{_short(lm)}_{fusion}" + (f" ({gnn.upper()})" if fusion == "graph" else "")
            if lm == lms[0] and fusion == "vector":
                runs[row], trained[row] = runs[main], trained[main]
            else:
                run(row, replace(base, lm=lm, taxonomy=fusion, gnn=gnn))
            fusion_rows.append(row)

    # 6. scores and tables
    qrels = {c.id: dict.fromkeys(c.cited, 1) for c in test}
    results = {name: evaluate(qrels, ranking, MEASURES) for name, ranking in runs.items()}
    title = (f"{len(test)} test contexts, prefetch {prefetch} top {depth}, "
             f"{f'enriched to {size}' if enrich else 'no enrichment'}, {_LM_SHOWN[lm_mode]}, "
             f"{max_steps} steps")
    ablation = Table(f"Local citation recommendation: ablations (SymTax Table 3) — {title}", list(MEASURES))
    lm_fusion = Table(f"LM × taxonomy fusion (SymTax Table 4) — {title}", list(MEASURES))
    for name, result in results.items():
        for table, rows in ((ablation, ablation_rows), (lm_fusion, fusion_rows)):
            if name in rows:
                for measure, value in result.mean.items():
                    table.set(name, measure, value)
    tables = [ablation] + ([lm_fusion] if len(fusion_rows) > 1 else [])
    timings["total"] = time.perf_counter() - started
    config = {"data": str(data), "prefetch": prefetch, "encoders": lms,
              "ablations": list(ablations), "enrich": enrich, "lm_mode": lm_mode, "textless": textless,
              "depth": depth, "size": size,
              "test_share": test_share, "whole_years": whole_years, "seed": seed,
              "reranker": asdict(base), "variants": trained, "data_info": info,
              "pairs_encoded": {lm: c.encoded for lm, c in caches.items()},
              "seconds": {k: round(v, 1) for k, v in timings.items()}}
    write_results(out, config, tables, {name: r.per_query for name, r in results.items()})
    return tables


def _short(lm: str) -> str:
    """An LM's name for table rows: a model folder by its own name."""
    return Path(lm.removeprefix("hf:")).name if lm.startswith("hf:") else lm


def _text(paper: dict[str, Any]) -> str:
    return " ".join(t.strip() for t in _title_abstract(paper) if t.strip())


def _title_abstract(paper: dict[str, Any]) -> tuple[str, str]:
    return (paper["title"] or "").strip(), (paper["abstract"] or "").strip()


def _answerable(contexts: Sequence[Context], corpus: dict[str, Candidate],
                textless: Textless) -> tuple[list[Context], dict[str, Any]]:
    """The contexts a reranker can answer, with their positives restricted accordingly; counts."""
    kept, dropped = [], 0
    cited_textless = 0
    for c in contexts:
        with_text = tuple(p for p in c.cited if corpus.get(p, Candidate("")).text)
        cited_textless += len(c.cited) - len(with_text)
        if textless == "keep":
            kept.append(c)
        elif with_text:
            kept.append(replace(c, cited=with_text))
        else:
            dropped += 1
    return kept, {"contexts_read": len(contexts), "answerable": len(kept), "dropped_cited_without_text": dropped,
                  "cited_without_text": cited_textless}


def _sample(contexts: list[Context], limit: int | None, rng: np.random.Generator) -> list[Context]:
    if limit is None or len(contexts) <= limit:
        return list(contexts)
    return [contexts[i] for i in sorted(rng.choice(len(contexts), size=limit, replace=False))]


def _ordered(contexts: Sequence[Context], lists: Sequence[Sequence[str]]) -> dict[str, Ranking]:
    """A candidate list as a ranking in its own order."""
    from ..retrieval.base import Hit

    return {c.id: [Hit(p, float(len(ids) - i)) for i, p in enumerate(ids)] for c, ids in zip(contexts, lists)}


def _coverage(test: Sequence[Context], prefetched, enriched, corpus) -> dict[str, float]:
    def found(lists) -> float:
        return float(np.mean([any(p in set(ids) for p in c.cited) for c, ids in zip(test, lists)])) if test else 0.0

    textless = [sum(1 for i in ids if not corpus.get(i, Candidate("")).text) for ids in enriched]
    return {"candidates_prefetched": float(np.mean([len(x) for x in prefetched])) if test else 0.0,
            "candidates_enriched": float(np.mean([len(x) for x in enriched])) if test else 0.0,
            "candidates_without_text": float(np.mean(textless)) if test else 0.0,
            "positive_in_prefetched": found(prefetched), "positive_in_enriched": found(enriched)}


def _empty(out: Path, info: dict[str, Any], reason: str) -> list[Table]:
    table = Table(f"Local citation recommendation: nothing to evaluate ({reason})", list(MEASURES))
    write_results(out, {"data_info": info, "reason": reason}, [table], {})
    return [table]
