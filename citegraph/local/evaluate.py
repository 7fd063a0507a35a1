"""The SymTax experiment as a typed configuration and one function per stage (SymTax's Tables 3 and 4).

:class:`LocalConfig` holds every choice of a run; :class:`LocalRecommendation` is the
benchmark the harness (:func:`citegraph.evaluation.benchmark.run`) scores, a short
composition of the stages, each callable and testable alone:

1. :func:`query_set` — the query set (``data``, or the graph's contexts exported to
   ``out/contexts.jsonl``); :func:`load_corpus` — the graph's papers as the reranker and
   the prefetcher read them;
2. :func:`split` — keeps the answerable contexts (``textless="skip"``: the cited paper must
   have a title or abstract, as text rerankers need; ``"keep"``: every cited paper,
   textless ones included, reachable only through enrichment and read as empty text),
   splits them by time (:func:`.data.time_split`), opens the held-out view hiding the
   citations of every test citing paper and everything newer than the cut, and samples
   ``max_train`` train and ``max_test`` test contexts;
3. :func:`prefetch` — the top ``depth`` (100) candidates of each context (:mod:`.prefetch`);
4. :func:`enrich` — each list enriched in the view to ``size`` (300), unless
   ``enrich=False``, which sends no enrichment query at all: training negatives and test
   candidates are then the prefetched lists;
5. :class:`Variants` — trains one reranker per variant (bounded by ``max_steps``; its LM
   fine-tuned, shared or frozen as ``lm_mode`` says) and ranks each test context's
   candidates with it;
   :func:`biencoders` — the bi-encoder (:mod:`.biencoder`) untrained, fine-tuned and fused
   with the first stage, when ``rerankers`` names it (its negatives need no enrichment, so
   only the test contexts are enriched when SymTax is not run);
6. :func:`tables` — every run scored (Recall@1/5/10/20/50, nDCG@10, MRR) into the tables,
   and paired t-test and randomisation-test p-values of every row against the prefetcher.

Rows of the ablation table: the prefetcher alone, prefetch + enrichment (enriched order),
SymTax (LM, vector fusion, hyperbolic), − enrichment (the same model over the prefetched
candidates only: the Enricher is an inference stage), − taxonomy, hyperbolic → Euclidean,
hyperbolic → spherical (the positive curvature of SymTax's release). The LM × fusion table
crosses every LM of ``lms`` with vector and graph fusion (APPNP or GAT). With
``enrich=False`` the enrichment rows are left out and every model ranks prefetched lists.

Cost (``lm_mode``, :mod:`.ablations`): a frozen or shared LM runs once over every (query,
candidate) pair that training samples or ranking needs, for all variants together; with
``finetune`` every variant fine-tunes and runs its own. On 2 CPU cores all-MiniLM-L6 reads
about 30 pairs of 128 tokens a second (fewer when the cores are shared), so a test context
with 300 candidates costs about 10 s per LM pass: bound ``max_test`` and ``max_steps``.

(Past 400 lines because each stage is kept beside the composition that orders them; the
models themselves live in :mod:`.rerank` and :mod:`.biencoder`.)
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..errors import CitegraphError
from ..evaluation.benchmark import Log, Results, Scores, quiet, run
from ..evaluation.metrics import compare, evaluate
from ..evaluation.report import Table
from ..retrieval.base import Document, Hit, Ranking, Retriever, rank
from ..retrieval.fusion import ReciprocalRankFusion
from . import prefetch as prefetching
from .ablations import ABLATIONS
from .biencoder import BiEncoder, Training
from .config import LocalConfig, PrefetchConfig, SplitConfig, Textless
from .data import Context, export_contexts, held_out_papers, read_contexts, time_split, write_contexts
from .enrich import HeldOutView, enrich_all
from .rerank import Candidate, Example, PairCache, PairEncoder, Reranker, RerankerConfig
from .saved import model_card, save_model
from .taxonomy import Fusion, Gnn, TaxonomyGraph, load_taxonomy

if TYPE_CHECKING:
    from ..graph import GraphStore

MEASURES = ("R@1", "R@5", "R@10", "R@20", "R@50", "nDCG@10", "MRR")
_LM_SHOWN = {"finetune": "LM fine-tuned per variant", "shared": "LM fine-tuned once, shared", "frozen": "frozen LM"}


# -- 1. the query set and the corpus ------------------------------------------------------------
@dataclass(frozen=True)
class Corpus:
    """The graph's papers as the stages read them."""

    papers: list[dict[str, Any]]  # local/papers rows
    candidates: dict[str, Candidate]  # what the reranker reads of each paper
    years: dict[str, int | None]  # papers with text: what the prefetcher may return
    documents: list[Document]  # papers with text, as the prefetcher indexes them


def load_corpus(store: GraphStore) -> Corpus:
    papers = store.run("local/papers")
    texts = {p["id"]: ((p["title"] or "").strip(), (p["abstract"] or "").strip()) for p in papers}
    candidates = {
        p["id"]: Candidate(" ".join(t for t in texts[p["id"]] if t), tuple(sorted(p["categories"] or ())))
        for p in papers
    }
    with_text = [p for p in papers if candidates[p["id"]].text]
    return Corpus(
        papers,
        candidates,
        {p["id"]: p["year"] for p in with_text},
        [Document(p["id"], *texts[p["id"]]) for p in with_text],
    )


def query_set(store: GraphStore, data: Path | None, out: Path, log: Log = quiet) -> Path:
    """``data``, or the graph's contexts exported to ``out/contexts.jsonl``."""
    if data is not None:
        return Path(data)
    path = Path(out) / "contexts.jsonl"
    export = export_contexts(store, path)
    log(f"exported {export['contexts']} contexts of {export['citing_papers']} citing papers to {path}")
    return path


# -- 2. the split ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Queries:
    train: list[Context]
    test: list[Context]
    view: HeldOutView | None  # the graph without the held-out citations (None: nothing answerable)
    info: dict[str, Any]


def split(
    store: GraphStore, corpus: Corpus, contexts: Sequence[Context], config: SplitConfig, seed: int, log: Log = quiet
) -> Queries:
    """Answerable contexts, split by time, sampled; the held-out view (see the module docstring)."""
    kept, info = _answerable(contexts, corpus.candidates, config.textless)
    log(f"{len(kept)} of {len(contexts)} contexts answerable ({config.textless} textless cited papers)")
    if not kept:
        return Queries([], [], None, info)
    parts = time_split(kept, config.test_share, whole_years=config.whole_years)
    hidden = held_out_papers(parts, ((p["id"], p["year"], p["arxiv_id"]) for p in corpus.papers))
    # one generator per side, so that the test sample does not depend on how much was trained on
    train_rng, test_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    train, test = _sample(parts.train, config.max_train, train_rng), _sample(parts.test, config.max_test, test_rng)
    info.update(parts.info, hidden_citing_papers=len(hidden), train_used=len(train), test_used=len(test))
    log(
        f"split: {parts.info}; using {len(train)} train and {len(test)} test contexts; "
        f"the view hides the citations of {len(hidden)} papers"
    )
    return Queries(train, test, HeldOutView.hiding(store, hidden), info)


# -- 3–4. prefetch and enrichment -------------------------------------------------------------------
def prefetch(corpus: Corpus, contexts: Sequence[Context], config: PrefetchConfig, work: Path) -> list[list[str]]:
    """The top ``depth`` candidates of each context from a prefetcher indexed under ``work``."""
    retriever: Retriever = prefetching.build_prefetcher(config.spec, corpus.documents, work)
    return prefetching.prefetch(retriever, contexts, corpus.years, config.depth)


def enrich(
    view: HeldOutView, contexts: Sequence[Context], prefetched: Sequence[Sequence[str]], config: LocalConfig
) -> list[list[str]]:
    """Each prefetched list enriched in the held-out view (or kept, with ``enrich=False``)."""
    return [
        e.ids
        for e in enrich_all(
            view,
            contexts,
            prefetched,
            size=config.size,
            enabled=config.enrich,
            with_text=config.split.textless == "skip",
        )
    ]


# -- 5. the rerankers -------------------------------------------------------------------------------
class Variants:
    """Trains reranker variants on the same examples, sharing LMs as ``lm_mode`` says, and
    ranks the test contexts with each; ``runs`` and ``trained`` collect what they did."""

    def __init__(
        self,
        config: LocalConfig,
        corpus: Corpus,
        taxonomy: TaxonomyGraph,
        examples: Sequence[Example],
        log: Log = quiet,
    ):
        self.config, self.corpus, self.taxonomy, self.examples, self.log = config, corpus, taxonomy, examples, log
        self.encoders: dict[str, PairEncoder] = {}
        self.caches: dict[str, PairCache] = {}
        self.tuned: dict[str, Reranker] = {}  # lm_mode "shared": the reranker whose fine-tuned LM the others use
        self.runs: dict[str, dict[str, Ranking]] = {}
        self.trained: dict[str, dict[str, Any]] = {}

    def train(self, name: str, config: RerankerConfig) -> Reranker:
        """A reranker trained on the examples; its LM shared when another variant tuned it."""
        if config.lm in self.tuned:
            owner = self.tuned[config.lm]
            model = Reranker(
                replace(config, finetune=False), owner.encoder, self.corpus.candidates, self.taxonomy, owner.cache
            )
        else:
            if config.lm not in self.encoders:
                self.encoders[config.lm] = PairEncoder(config.lm, config.max_length, config.device)
                self.caches[config.lm] = PairCache(self.encoders[config.lm], config.batch_size)
            model = Reranker(
                config, self.encoders[config.lm], self.corpus.candidates, self.taxonomy, self.caches[config.lm]
            )
        model.train(self.examples, log=lambda m: self.log(f"  {name}: {m}"))
        if self.config.lm_mode == "shared" and config.lm not in self.tuned:
            self.caches[f"{config.lm} (fine-tuned)"] = model.freeze()
            self.tuned[config.lm] = model
        return model

    def add(
        self,
        name: str,
        config: RerankerConfig,
        test: Sequence[Context],
        candidates: Sequence[Sequence[str]],
        model: Reranker | None = None,
        enriched: bool = True,
    ) -> Reranker:
        """The variant ``name``: ``model`` (or one trained with ``config``) ranking ``candidates``."""
        started = time.perf_counter()
        if model is None:
            model = self.train(name, config)
        every = max(1, len(test) // 5)

        def progress(done: int, total: int) -> None:
            if done % every == 0 and done < total:
                self.log(f"  {name}: ranked {done}/{total} test contexts")

        self.runs[name] = dict(zip((c.id for c in test), model.rank(test, candidates, progress=progress)))
        self.trained[name] = {
            **model.describe(),
            "lm_mode": self.config.lm_mode,
            "enrichment": self.config.enrich and enriched,
            "seconds": round(time.perf_counter() - started, 1),
        }
        self.log(f"{name}: {self.trained[name]['seconds']} s")
        return model

    def alias(self, name: str, of: str) -> None:
        self.runs[name], self.trained[name] = self.runs[of], self.trained[of]

    @property
    def pairs_encoded(self) -> dict[str, int]:
        return {lm: cache.encoded for lm, cache in self.caches.items()}


def rerank(
    variants: Variants, test: Sequence[Context], prefetched: Sequence[Sequence[str]], enriched: Sequence[Sequence[str]]
) -> tuple[list[str], list[str]]:
    """SymTax, its ablations and the LM × fusion grid; the rows of the two tables."""
    config, base = variants.config, variants.config.base
    main = f"SymTax ({_short(config.lms[0])}, vector, hyperbolic)"
    full = variants.add(main, base, test, enriched)
    if "-enrichment" in config.ablations:
        variants.add(ABLATIONS["-enrichment"], base, test, prefetched, model=full, enriched=False)
    if "-taxonomy" in config.ablations:
        variants.add(ABLATIONS["-taxonomy"], replace(base, taxonomy="none"), test, enriched)
    for geometry in ("euclidean", "spherical"):
        if geometry in config.ablations:
            variants.add(ABLATIONS[geometry], replace(base, geometry=geometry), test, enriched)
    ablation_rows = [main, *(ABLATIONS[a] for a in config.ablations if not a.startswith("graph-"))]
    fusion_rows = []
    gnns = [cast(Gnn, a.split("-")[1]) for a in config.ablations if a.startswith("graph-")]  # known ablations
    for lm in config.lms:
        fusions: list[tuple[Fusion, Gnn]] = [("vector", base.gnn), *(("graph", g) for g in gnns)]
        for fusion, gnn in fusions:
            row = f"{_short(lm)}_{fusion}" + (f" ({gnn.upper()})" if fusion == "graph" else "")
            if lm == config.lms[0] and fusion == "vector":
                variants.alias(row, main)
            else:
                variants.add(row, replace(base, lm=lm, taxonomy=fusion, gnn=gnn), test, enriched)
            fusion_rows.append(row)
    return ablation_rows, fusion_rows


def biencoders(
    config: LocalConfig,
    corpus: Corpus,
    train: Sequence[Context],
    prefetched: Sequence[Sequence[str]],
    test: Sequence[Context],
    candidates: Sequence[Sequence[str]],
    first_stage: dict[str, Ranking],
    log: Log = quiet,
) -> tuple[dict[str, dict[str, Ranking]], dict[str, Any], BiEncoder]:
    """The bi-encoder (:mod:`.biencoder`) untrained and fine-tuned, ranking ``candidates``, and
    the fine-tuned one fused (RRF) with the ``first_stage`` ranking of the same lists; the
    fine-tuned model too."""
    settings = config.biencoder
    lm = _short(settings.lm)
    encoder = PairEncoder(settings.lm, settings.max_length, settings.device)
    runs: dict[str, dict[str, Ranking]] = {}
    described: dict[str, Any] = {}
    ids = [c.id for c in test]

    def ranked(name: str, model: BiEncoder) -> None:
        started = time.perf_counter()
        runs[name] = dict(zip(ids, model.rank(test, candidates)))
        described[name] = {**model.describe(), "rank_seconds": round(time.perf_counter() - started, 1)}
        log(f"{name}: trained {described[name]['train_seconds']} s, ranked {described[name]['rank_seconds']} s")

    for name, steps in (
        (f"{lm} bi-encoder, untrained", 0),
        (f"{lm} bi-encoder, fine-tuned ({settings.max_steps} steps)", settings.max_steps),
    ):
        model = BiEncoder(
            replace(settings, max_steps=steps, checkpoints=settings.checkpoints if steps else ()),
            encoder,
            corpus.candidates,
        )
        model.train(
            [Training(c, tuple(p)) for c, p in zip(train, prefetched)],
            log=lambda m: log(f"  {name}: {m}"),  # noqa: B023  (called in this iteration)
            at_checkpoint=lambda step: ranked(f"{lm} bi-encoder, fine-tuned ({step} of {steps} steps)", model),  # noqa: B023
        )
        ranked(name, model)
    fused, rrf = f"{name} + first stage (RRF)", ReciprocalRankFusion(())
    runs[fused] = {q: rank(rrf.fuse([runs[name][q], first_stage[q]]), len(runs[name][q])) for q in ids}
    return runs, described, model


# -- 6. the tables ------------------------------------------------------------------------------------
def tables(
    config: LocalConfig,
    test: Sequence[Context],
    runs: dict[str, dict[str, Ranking]],
    ablation_rows: Sequence[str],
    fusion_rows: Sequence[str],
) -> tuple[list[Table], dict[str, Any]]:
    """The ablation table (and the LM × fusion table when it has more than one row), per-query values."""
    qrels = {c.id: dict.fromkeys(c.cited, 1) for c in test}
    results = {name: evaluate(qrels, ranking, MEASURES) for name, ranking in runs.items()}
    trained = [
        *(
            (f"SymTax: {_LM_SHOWN[config.lm_mode or 'finetune']}, {config.max_steps} steps",)
            if "symtax" in config.rerankers
            else ()
        ),
        *(
            (f"bi-encoder: {config.biencoder.max_steps} steps of {config.biencoder.batch_queries}",)
            if "biencoder" in config.rerankers
            else ()
        ),
    ]
    title = ", ".join(
        [
            f"{len(test)} test contexts, prefetch {config.prefetch.spec} top {config.prefetch.depth}",
            f"enriched to {config.size}" if config.enrich else "no enrichment",
            *trained,
        ]
    )
    heading = "ablations (SymTax Table 3)" if "symtax" in config.rerankers else "first stages and bi-encoder"
    ablation = Table(f"Local citation recommendation: {heading} — {title}", list(MEASURES))
    lm_fusion = Table(f"LM × taxonomy fusion (SymTax Table 4) — {title}", list(MEASURES))
    for name, result in results.items():
        for table, rows in ((ablation, ablation_rows), (lm_fusion, fusion_rows)):
            if name in rows:
                for measure, value in result.mean.items():
                    table.set(name, measure, value)
    significance = _significance(results, [*ablation_rows, *fusion_rows], title)
    return (
        [ablation] + ([lm_fusion] if len(fusion_rows) > 1 else []) + significance,
        {n: r.per_query for n, r in results.items()},
    )


def _significance(results, rows: Sequence[str], title: str) -> list[Table]:
    """Paired t-test and randomisation test p of every row against the first (the prefetcher)."""
    names = list(dict.fromkeys(n for n in rows if n in results))
    if len(names) < 2:
        return []
    tests = {
        kind: Table(f"Paired {kind} p against {names[0]} — {title}", list(MEASURES), scale=1.0)
        for kind in ("t-test", "randomisation test")
    }
    for name in names[1:]:
        for measure in MEASURES:
            c = compare(results[name], results[names[0]], measure, permutations=2000)
            tests["t-test"].set(name, measure, c.t_test_p)
            tests["randomisation test"].set(name, measure, c.randomisation_p)
    return list(tests.values())


# -- the composition ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class LocalRecommendation:
    """Local citation recommendation on the graph behind ``store`` as a benchmark."""

    store: GraphStore
    config: LocalConfig = field(default_factory=LocalConfig)
    name: str = "local"

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log = quiet) -> Scores:
        if retrievers:
            raise CitegraphError("local recommendation prefetches with its own prefetcher (PrefetchConfig)")
        config, started, seconds = self.config, time.perf_counter(), {}
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        if "symtax" in config.rerankers:
            log(f"reranker LM mode: {config.lm_mode}, at most {config.max_steps} training steps per reranker")
        corpus = load_corpus(self.store)
        data = query_set(self.store, config.data, out, log)
        queries = split(self.store, corpus, read_contexts(data), config.split, config.seed, log)
        if queries.view is None:
            reason = "no context cites a paper with text; try textless='keep'"
            table = Table(f"Local citation recommendation: nothing to evaluate ({reason})", list(MEASURES))
            return Scores([table], {"data_info": queries.info, "reason": reason}, {})
        train, test, info = queries.train, queries.test, queries.info
        write_contexts(test, out / "test_contexts.jsonl")

        t = time.perf_counter()
        prefetched = prefetch(corpus, [*train, *test], config.prefetch, out / "index")
        seconds["prefetch"], t = time.perf_counter() - t, time.perf_counter()
        n = len(train)
        symtax = "symtax" in config.rerankers  # its training negatives come from the enriched lists
        enriched = enrich(
            queries.view, [*train, *test] if symtax else test, prefetched if symtax else prefetched[n:], config
        )
        enriched = enriched if symtax else [[] for _ in train] + enriched
        seconds["enrich"] = time.perf_counter() - t
        info.update(_coverage(test, prefetched[n:], enriched[n:], corpus.candidates), documents=len(corpus.documents))
        log(
            f"prefetch ({config.prefetch.spec}) {seconds['prefetch']:.1f} s, enrichment {seconds['enrich']:.1f} s; "
            f"test candidates: {info['candidates_prefetched']:.0f} prefetched, {info['candidates_enriched']:.0f} "
            f"enriched (mean), the cited paper among them for {info['positive_in_prefetched']:.1%} / "
            f"{info['positive_in_enriched']:.1%}"
        )

        first_stage = f"prefetch ({config.prefetch.spec})"
        baselines = {first_stage: _ordered(test, prefetched[n:])}
        for spec in config.first_stages:
            t = time.perf_counter()
            baselines[f"prefetch ({spec})"] = _ordered(
                test, prefetch(corpus, test, replace(config.prefetch, spec=spec), out / "index")
            )
            seconds[f"prefetch ({spec})"] = time.perf_counter() - t
        if config.enrich:
            baselines[f"{first_stage} + enrichment"] = _ordered(test, enriched[n:])
        runs, rows = dict(baselines), list(baselines)
        fusion_rows: list[str] = []
        trained: dict[str, Any] = {}
        if "biencoder" in config.rerankers:
            t = time.perf_counter()
            found, trained, tuned = biencoders(
                config, corpus, train, prefetched[:n], test, enriched[n:], runs[rows[-1]], log
            )
            runs.update(found)
            rows.extend(found)
            seconds["bi-encoder"] = time.perf_counter() - t
        if symtax:
            taxonomy = load_taxonomy(
                self.store,
                sorted(
                    {c for p in corpus.candidates.values() for c in p.categories}
                    | {c for q in [*train, *test] for c in q.categories}
                ),
            )
            variants = Variants(
                config, corpus, taxonomy, [Example(c, tuple(e)) for c, e in zip(train, enriched[:n])], log
            )
            t = time.perf_counter()
            ablation_rows, fusion_rows = rerank(variants, test, prefetched[n:], enriched[n:])
            seconds["SymTax"] = time.perf_counter() - t
            runs.update(variants.runs)
            rows.extend(ablation_rows)
            trained.update(variants.trained)
            info["pairs_encoded"] = variants.pairs_encoded
        result_tables, per_query = tables(config, test, runs, rows, fusion_rows)
        seconds["total"] = time.perf_counter() - started
        if config.save.folder is not None:
            card = model_card(
                tuned,
                graph=graph_counts(self.store, info),
                split=info,
                prefetch=config.prefetch.spec,
                wall_seconds=seconds["total"],
                test=result_tables[0],
                licence=config.save.licence,
            )
            log(f"bi-encoder saved to {save_model(tuned, config.save.folder, card, result_tables[0])}")
        return Scores(result_tables, self.describe(data, trained, info, seconds), per_query)

    def describe(self, data: Path, trained: dict[str, Any], info: dict[str, Any], seconds: dict[str, float]) -> dict:
        """The configuration as results.json records it."""
        c = self.config
        return {
            "data": str(data),
            "prefetch": c.prefetch.spec,
            "first_stages": list(c.first_stages),
            "rerankers": list(c.rerankers),
            "biencoder": asdict(c.biencoder),
            "encoders": list(c.lms),
            "ablations": list(c.ablations),
            "enrich": c.enrich,
            "lm_mode": c.lm_mode,
            "textless": c.split.textless,
            "depth": c.prefetch.depth,
            "size": c.size,
            "test_share": c.split.test_share,
            "whole_years": c.split.whole_years,
            "seed": c.seed,
            "reranker": asdict(c.base),
            "variants": trained,
            "data_info": info,
            "pairs_encoded": info.pop("pairs_encoded", {}),
            "seconds": {k: round(v, 1) for k, v in seconds.items()},
            "load_average": [round(x, 2) for x in os.getloadavg()],
        }


def evaluate_local(
    store: GraphStore, out: str | Path, config: LocalConfig = LocalConfig(), log: Log = quiet
) -> Results:
    """Run the experiment and write its results to ``out`` (the harness's files)."""
    return run(LocalRecommendation(store, config), [], out, log=log)


def graph_counts(store: GraphStore, info: dict[str, Any]) -> dict[str, Any]:
    """What a model card records of the graph a model was trained on: nodes by label,
    relationships by type, the contexts read."""
    return {
        "nodes": {r["label"]: r["count"] for r in store.run("stats/labels")},
        "relationships": {r["type"]: r["count"] for r in store.run("stats/relationships")},
        "contexts": info.get("contexts_read"),
    }


def _short(lm: str) -> str:
    """An LM's name for table rows: a model folder by its own name."""
    return Path(lm.removeprefix("hf:")).name if lm.startswith("hf:") else lm


def _answerable(
    contexts: Sequence[Context], candidates: dict[str, Candidate], textless: Textless
) -> tuple[list[Context], dict[str, Any]]:
    """The contexts a reranker can answer, with their positives restricted accordingly; counts."""
    kept, dropped = [], 0
    cited_textless = 0
    for c in contexts:
        with_text = tuple(p for p in c.cited if candidates.get(p, Candidate("")).text)
        cited_textless += len(c.cited) - len(with_text)
        if textless == "keep":
            kept.append(c)
        elif with_text:
            kept.append(replace(c, cited=with_text))
        else:
            dropped += 1
    return kept, {
        "contexts_read": len(contexts),
        "answerable": len(kept),
        "dropped_cited_without_text": dropped,
        "cited_without_text": cited_textless,
    }


def _sample(contexts: list[Context], limit: int | None, rng: np.random.Generator) -> list[Context]:
    if limit is None or len(contexts) <= limit:
        return list(contexts)
    return [contexts[i] for i in sorted(rng.choice(len(contexts), size=limit, replace=False))]


def _ordered(contexts: Sequence[Context], lists: Sequence[Sequence[str]]) -> dict[str, Ranking]:
    """A candidate list as a ranking in its own order."""
    return {c.id: [Hit(p, float(len(ids) - i)) for i, p in enumerate(ids)] for c, ids in zip(contexts, lists)}


def _coverage(test: Sequence[Context], prefetched, enriched, candidates) -> dict[str, float]:
    def found(lists) -> float:
        return float(np.mean([any(p in set(ids) for p in c.cited) for c, ids in zip(test, lists)])) if test else 0.0

    textless = [sum(1 for i in ids if not candidates.get(i, Candidate("")).text) for ids in enriched]
    return {
        "candidates_prefetched": float(np.mean([len(x) for x in prefetched])) if test else 0.0,
        "candidates_enriched": float(np.mean([len(x) for x in enriched])) if test else 0.0,
        "candidates_without_text": float(np.mean(textless)) if test else 0.0,
        "positive_in_prefetched": found(prefetched),
        "positive_in_enriched": found(enriched),
    }
