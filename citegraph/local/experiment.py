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

import hashlib
import json
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CitegraphError
from ..evaluation.harness import Log, Results, Scores, quiet, run
from ..evaluation.metrics import Evaluation, over_seeds
from ..evaluation.report import Table, write_results
from ..retrieval.base import Ranking, Retriever
from . import controls
from .ablations import TAXONOMY_ABLATIONS
from .biencoder import BiEncoder
from .config import LocalConfig
from .data import Context, read_contexts, write_contexts
from .learned import Variants, biencoders, rerank
from .profile import Profiles, biencoder_row, prefetch_over_profiles, view_sentences
from .saved import model_card, save_model
from .stages import Corpus, Lists, coverage, load_corpus, ordered, query_set, split
from .symtax import Example
from .tables import MEASURES, Rows, scored, tables
from .taxonomy_fusion import load_taxonomy

if TYPE_CHECKING:
    from ..graph import GraphStore


@dataclass
class SeedRun:
    """What one seed's run produced."""

    tested: int  # test contexts
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
        per_seed: dict[str, Any] = {}  # seed → its results.json (several seeds)
        for seed in seeds:
            seeded, work = config.with_seed(seed), out / f"seed-{seed}" if len(seeds) > 1 else out
            found = kept_seed(seeded, data, work) if len(seeds) > 1 and config.save.folder is None else None
            fresh = found is None
            if found is not None:
                log(f"-- seed {seed}: kept from an earlier run of the same configuration, {work / 'results.json'}")
            else:
                if len(seeds) > 1:
                    log(f"-- seed {seed} ({len(runs) + 1} of {len(seeds)})")
                found = self.run_seed(seeded, corpus, contexts, lists, work, log)
                if found is None:
                    reason = "no context cites a paper with text; try textless='keep'"
                    table = Table(f"Local citation recommendation: nothing to evaluate ({reason})", list(MEASURES))
                    return Scores([table], {"reason": reason}, {})
            runs[seed] = found
            if len(seeds) > 1:
                per_seed[str(seed)] = seed_record(seeded, data, found, work if fresh else None)
                log(f"seed {seed}:\n{Table(**per_seed[str(seed)]['tables'][0]).markdown()}")
        first = runs[seeds[0]]
        summary = {n: over_seeds(seeds, [runs[s].results[n] for s in seeds]) for n in first.results}
        result_tables = tables(config, first.tested, summary, first.rows)
        described = describe(config, data, first)
        described["seconds"]["total"] = round(time.perf_counter() - started, 1)
        if per_seed:
            described["per_seed"] = per_seed
        if config.save.folder is not None and first.tuned is not None:
            card = model_card(
                first.tuned,
                graph=graph_counts(self.store, first.info),
                split={  # with what rebuilds the split (citegraph cite tune: the contexts not trained on)
                    **first.info,
                    "candidates": config.candidates,
                    "test_share": config.split.test_share,
                    "whole_years": config.split.whole_years,
                    "textless": config.split.textless,
                },
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
        profiles = Profiles(view_sentences(queries.view), config.profile_sentences) if config.profile else None
        baselines = self.baselines(config, corpus, queries.cited_with_abstract, test, prefetched[n:])
        first_stage_name = f"prefetch ({config.prefetch.spec})"
        if profiles is not None:
            with_sentences = [p for p, sentences in profiles.of().items() if sentences]
            baselines[f"{first_stage_name}, profile-first"] = ordered(
                test, controls.first(prefetched[n:], frozenset(with_sentences))
            )
        runs: dict[str, dict[str, Ranking]] = dict(baselines)
        for spec in config.first_stages:
            t = time.perf_counter()
            runs[f"prefetch ({spec})"] = ordered(test, lists.prefetch(test, spec))
            seconds[f"prefetch ({spec})"] = time.perf_counter() - t
        first_stage = runs[first_stage_name]
        pairs: dict[str, str] = {}  # a row with profiles → the same row without
        if profiles is not None:
            t, row = time.perf_counter(), f"{first_stage_name} over profiles"
            over_profiles = prefetch_over_profiles(profiles, corpus, test, config.prefetch, out / "index-profiles")
            runs[row], pairs[row] = ordered(test, over_profiles), first_stage_name
            seconds["profiles"] = time.perf_counter() - t
            info["profile_sentences_shown"] = int(profiles.chosen().sum())
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
            without = list(found)[-2]  # the fine-tuned model's row, before its fusion with the first stage
            if config.candidates != "abstracts":  # there every candidate has one: the same ranking
                row = f"{without}, abstract-first"  # the controls' prior on top of the model: does it add to it?
                by_model = [[hit.id for hit in runs[without][c.id]] for c in test]
                runs[row] = ordered(test, controls.first(by_model, corpus.abstracts))
                learned.append(row)
            if profiles is not None:
                row = f"{without} + profile"
                runs[row], trained[row] = biencoder_row(tuned, profiles, train, prefetched[:n], test, enriched[n:])
                learned.append(row)
                pairs[row] = without
                log(f"{row}: weight {trained[row]['profile_weight']} (chosen on the newest training contexts)")
        if symtax:
            categories = {c for p in corpus.candidates.values() for c in p.categories}
            categories |= {c for q in [*train, *test] for c in q.categories}
            info["categories"] = len(categories)
            taxonomy = load_taxonomy(self.store, sorted(categories))
            examples = [Example(c, tuple(e)) for c, e in zip(train, enriched[:n])]
            chosen = config if categories else without_taxonomy_ablations(config, log)
            variants = Variants(chosen, corpus, taxonomy, examples, log)
            t = time.perf_counter()
            ablation_rows, fusion_rows = rerank(variants, test, prefetched[n:], enriched[n:])
            seconds["SymTax"] = time.perf_counter() - t
            runs.update(variants.runs)
            learned.extend(ablation_rows)
            trained.update(variants.trained)
            info["pairs_encoded"] = variants.pairs_encoded
        layout = Rows(
            [*first_stages, *learned],
            fusion_rows,
            list(baselines),
            list(dict.fromkeys([*learned, *fusion_rows])),
            pairs,
        )
        return SeedRun(len(test), scored(test, runs), layout, info, trained, seconds, tuned)

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
            f"{name}, abstract-first": ordered(test, controls.first(prefetched, corpus.abstracts)),
            f"{name}, same-kind text ({controls.kind_name(with_abstract)})": ordered(
                test, controls.same_kind(prefetched, corpus.abstracts, with_abstract)
            ),
        }


def without_taxonomy_ablations(config: LocalConfig, log: Log) -> LocalConfig:
    """``config`` without the ablations that vary SymTax's taxonomy term, said in the log: no
    paper of the run has an arXiv category (ACL papers, a grown graph), so the term is the one
    learned *unknown* vector for every paper and those rows would measure noise."""
    dropped = [a for a in config.ablations if a in TAXONOMY_ABLATIONS]
    log(
        "no paper has an arXiv category: SymTax's taxonomy term is the same for every paper, so its "
        f"taxonomy ablations ({', '.join(dropped) or 'none asked'}) are not run"
    )
    return replace(config, ablations=tuple(a for a in config.ablations if a not in TAXONOMY_ABLATIONS))


def settings(c: LocalConfig, data: Path) -> dict[str, Any]:
    """The configuration as results.json records it (what makes two runs of a seed the same)."""
    return {
        "data": str(data),
        "data_sha256": hashlib.sha256(Path(data).read_bytes()).hexdigest(),
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
        "max_train": c.split.max_train,
        "max_test": c.split.max_test,
        "depth": c.prefetch.depth,
        "size": c.size,
        "profile": c.profile,
        "profile_sentences": c.profile_sentences,
        "test_share": c.split.test_share,
        "whole_years": c.split.whole_years,
        "seed": c.run_seeds[0],
        "seeds": list(c.run_seeds),
        "reranker": asdict(c.base),
    }


def describe(config: LocalConfig, data: Path, seed_run: SeedRun) -> dict[str, Any]:
    """The configuration and what one seed's run measured besides the tables."""
    info = dict(seed_run.info)
    return {
        **settings(config, data),
        "rows": asdict(seed_run.rows),
        "variants": seed_run.trained,
        "pairs_encoded": info.pop("pairs_encoded", {}),
        "data_info": info,
        "seconds": {k: round(v, 1) for k, v in seed_run.seconds.items()},
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def seed_record(config: LocalConfig, data: Path, seed_run: SeedRun, work: Path | None) -> dict[str, Any]:
    """One seed's tables and run; written to ``work`` (the harness's files, :func:`kept_seed`
    reads them back) unless None, as soon as the seed is done, so that an interrupted run
    keeps it."""
    results = {n: over_seeds(config.run_seeds, [e]) for n, e in seed_run.results.items()}
    seed_tables = tables(config, seed_run.tested, results, seed_run.rows)
    described = describe(config, data, seed_run)
    if work is not None:
        write_results(work, described, seed_tables, {n: e.per_query for n, e in seed_run.results.items()})
    return {"tables": [asdict(t) for t in seed_tables], **described}


def kept_seed(config: LocalConfig, data: Path, work: Path) -> SeedRun | None:
    """The seed's run as :func:`seed_record` wrote it, when it was run with the same settings."""
    path = work / "results.json"
    if not path.is_file():
        return None
    saved = json.loads(path.read_text(encoding="utf-8"))
    wanted = json.loads(json.dumps(settings(config, data)))  # as JSON reads it back: tuples are lists
    if {k: saved["config"].get(k) for k in wanted} != wanted:
        return None
    described = saved["config"]
    return SeedRun(
        described["data_info"]["test_used"],
        {n: Evaluation(values, list(next(iter(values.values()), {}))) for n, values in saved["per_query"].items()},
        Rows(**described["rows"]),
        described["data_info"],
        described["variants"],
        described["seconds"],
    )


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
