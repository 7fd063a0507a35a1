"""The SymTax experiment as one benchmark: :class:`LocalRecommendation` composes the stages
(SymTax's Tables 3 and 4), each callable and testable alone:

1–4. :mod:`.stages` — the query set and the corpus, the time split and the held-out view,
     prefetch, enrichment; :mod:`.controls` — the prefetcher's list re-ordered without
     learning (abstract-first, same-kind text), the bar a learned model must clear;
5.   :mod:`.learned` — SymTax's variants and the bi-encoder, trained and ranking;
6.   :mod:`.tables` — every run scored into the tables, with paired p-values.

:class:`~.config.LocalConfig` holds every choice of a run. With several ``seeds`` stages
2–5 run once per seed (the seed draws the train and test samples, the training order,
the negatives and the initialisation; the time split, the corpus, the indexes and each
context's candidate lists are shared), and the tables give each row's mean ± sd over the
seeds; results.json keeps each seed's own tables under ``config.per_seed``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CitegraphError
from ..evaluation.benchmark import Log, Results, Scores, quiet, run
from ..evaluation.metrics import Evaluation, over_seeds
from ..evaluation.report import Table
from ..retrieval.base import Ranking, Retriever
from . import controls
from .biencoder import BiEncoder
from .config import LocalConfig
from .data import Context, read_contexts, write_contexts
from .learned import Variants, biencoders, rerank
from .saved import model_card, save_model
from .stages import Corpus, Lists, coverage, load_corpus, ordered, query_set, split
from .symtax import Example
from .tables import MEASURES, Rows, scored, tables
from .taxonomy import load_taxonomy

if TYPE_CHECKING:
    from ..graph import GraphStore


@dataclass
class SeedRun:
    """What one seed's run produced."""

    test: list[Context]
    results: dict[str, Evaluation]
    rows: Rows
    info: dict[str, Any]
    trained: dict[str, Any]
    seconds: dict[str, float]
    tuned: BiEncoder | None = None  # the fine-tuned bi-encoder, when one was trained


@dataclass(frozen=True)
class LocalRecommendation:
    """Local citation recommendation on the graph behind ``store`` as a benchmark."""

    store: GraphStore
    config: LocalConfig = field(default_factory=LocalConfig)
    name: str = "local"

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log = quiet) -> Scores:
        if retrievers:
            raise CitegraphError("local recommendation prefetches with its own prefetcher (PrefetchConfig)")
        config, started = self.config, time.perf_counter()
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        if "symtax" in config.rerankers:
            log(f"reranker LM mode: {config.lm_mode}, at most {config.max_steps} training steps per reranker")
        corpus = load_corpus(self.store, config.candidates)
        data = query_set(self.store, config.data, out, log)
        contexts = read_contexts(data)
        lists = Lists(corpus, config, out / "index")
        seeds = config.run_seeds
        runs: dict[int, SeedRun] = {}
        for seed in seeds:
            if len(seeds) > 1:
                log(f"-- seed {seed} ({len(runs) + 1} of {len(seeds)})")
            work = out / f"seed-{seed}" if len(seeds) > 1 else out
            found = self.run_seed(config.with_seed(seed), corpus, contexts, lists, work, log)
            if found is None:
                reason = "no context cites a paper with text; try textless='keep'"
                table = Table(f"Local citation recommendation: nothing to evaluate ({reason})", list(MEASURES))
                return Scores([table], {"reason": reason}, {})
            runs[seed] = found
        first = runs[seeds[0]]
        summary = {n: over_seeds(seeds, [runs[s].results[n] for s in seeds]) for n in first.results}
        result_tables = tables(config, len(first.test), summary, first.rows)
        described = self.describe(data, first)
        described["seconds"]["total"] = round(time.perf_counter() - started, 1)
        if len(seeds) > 1:
            described["per_seed"] = {
                str(s): {
                    "tables": [
                        asdict(t)
                        for t in tables(
                            config.with_seed(s),
                            len(r.test),
                            {n: over_seeds((s,), [e]) for n, e in r.results.items()},
                            r.rows,
                        )
                    ],
                    **self.describe(data, r, seed=s),
                }
                for s, r in runs.items()
            }
        if config.save.folder is not None and first.tuned is not None:
            card = model_card(
                first.tuned,
                graph=graph_counts(self.store, first.info),
                split=first.info,
                prefetch=config.prefetch.spec,
                wall_seconds=described["seconds"]["total"],
                test=result_tables[0],
                licence=config.save.licence,
            )
            log(
                f"bi-encoder (seed {seeds[0]}) saved to {save_model(first.tuned, config.save.folder, card, result_tables[0])}"
            )
        return Scores(result_tables, described, {n: r.pooled.per_query for n, r in summary.items()})

    def run_seed(
        self, config: LocalConfig, corpus: Corpus, contexts: Sequence[Context], lists: Lists, out: Path, log: Log
    ) -> SeedRun | None:
        """Stages 2–5 with ``config.seed``; None when no context is answerable."""
        seconds: dict[str, float] = {}
        queries = split(self.store, corpus, contexts, config.split, config.seed, log)
        if queries.view is None:
            return None
        train, test, info = queries.train, queries.test, queries.info
        out.mkdir(parents=True, exist_ok=True)
        write_contexts(test, out / "test_contexts.jsonl")

        t = time.perf_counter()
        prefetched = lists.prefetch([*train, *test])
        seconds["prefetch"], t = time.perf_counter() - t, time.perf_counter()
        n = len(train)
        symtax = "symtax" in config.rerankers  # its training negatives come from the enriched lists
        enriched = lists.enrich(queries.view, [*train, *test] if symtax else test)
        enriched = enriched if symtax else [[] for _ in train] + enriched
        seconds["enrich"] = time.perf_counter() - t
        info.update(coverage(test, prefetched[n:], enriched[n:], corpus), documents=len(corpus.documents))
        log(
            f"prefetch ({config.prefetch.spec}) {seconds['prefetch']:.1f} s, enrichment {seconds['enrich']:.1f} s; "
            f"test candidates: {info['candidates_prefetched']:.0f} prefetched, {info['candidates_enriched']:.0f} "
            f"enriched (mean), the cited paper among them for {info['positive_in_prefetched']:.1%} / "
            f"{info['positive_in_enriched']:.1%}"
        )

        info["same_kind"] = controls.kind_name(queries.cited_with_abstract)
        baselines = self.baselines(config, corpus, queries.cited_with_abstract, test, prefetched[n:])
        runs: dict[str, dict[str, Ranking]] = dict(baselines)
        for spec in config.first_stages:
            t = time.perf_counter()
            runs[f"prefetch ({spec})"] = ordered(test, lists.prefetch(test, spec))
            seconds[f"prefetch ({spec})"] = time.perf_counter() - t
        first_stage = runs[f"prefetch ({config.prefetch.spec})"]
        if config.enrich:
            first_stage = runs[f"prefetch ({config.prefetch.spec}) + enrichment"] = ordered(test, enriched[n:])
        first_stages = list(runs)  # the rows no model learned
        learned: list[str] = []
        fusion_rows: list[str] = []
        trained: dict[str, Any] = {}
        tuned = None
        if "biencoder" in config.rerankers:
            t = time.perf_counter()
            found, trained, tuned = biencoders(
                config, corpus, train, prefetched[:n], test, enriched[n:], first_stage, log
            )
            runs.update(found)
            learned.extend(found)
            seconds["bi-encoder"] = time.perf_counter() - t
        if symtax:
            categories = {c for p in corpus.candidates.values() for c in p.categories}
            taxonomy = load_taxonomy(
                self.store, sorted(categories | {c for q in [*train, *test] for c in q.categories})
            )
            examples = [Example(c, tuple(e)) for c, e in zip(train, enriched[:n])]
            variants = Variants(config, corpus, taxonomy, examples, log)
            t = time.perf_counter()
            ablation_rows, fusion_rows = rerank(variants, test, prefetched[n:], enriched[n:])
            seconds["SymTax"] = time.perf_counter() - t
            runs.update(variants.runs)
            learned.extend(ablation_rows)
            trained.update(variants.trained)
            info["pairs_encoded"] = variants.pairs_encoded
        layout = Rows(
            [*first_stages, *learned], fusion_rows, list(baselines), list(dict.fromkeys([*learned, *fusion_rows]))
        )
        return SeedRun(test, scored(test, runs), layout, info, trained, seconds, tuned)

    @staticmethod
    def baselines(
        config: LocalConfig,
        corpus: Corpus,
        with_abstract: bool,
        test: Sequence[Context],
        prefetched: Sequence[Sequence[str]],
    ) -> dict[str, dict[str, Ranking]]:
        """The prefetcher's ranking and its no-learning controls (:mod:`.controls`; ``with_abstract``:
        the kind of text the training side's cited papers mostly have)."""
        name = f"prefetch ({config.prefetch.spec})"
        return {
            name: ordered(test, prefetched),
            f"{name}, abstract-first": ordered(test, controls.abstract_first(prefetched, corpus.abstracts)),
            f"{name}, same-kind text ({controls.kind_name(with_abstract)})": ordered(
                test, controls.same_kind(prefetched, corpus.abstracts, with_abstract)
            ),
        }

    def describe(self, data: Path, seed_run: SeedRun, seed: int | None = None) -> dict[str, Any]:
        """The configuration (and one seed's run) as results.json records it."""
        c, info = self.config, dict(seed_run.info)
        return {
            "data": str(data),
            "candidates": c.candidates,
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
            "seed": c.run_seeds[0] if seed is None else seed,
            "seeds": list(c.run_seeds),
            "reranker": asdict(c.base),
            "variants": seed_run.trained,
            "pairs_encoded": info.pop("pairs_encoded", {}),
            "data_info": info,
            "seconds": {k: round(v, 1) for k, v in seed_run.seconds.items()},
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
