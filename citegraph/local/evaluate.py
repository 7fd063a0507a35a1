"""The SymTax experiment as one benchmark: :class:`LocalRecommendation` composes the stages
(SymTax's Tables 3 and 4), each callable and testable alone:

1–4. :mod:`.stages` — the query set and the corpus, the time split and the held-out view,
     prefetch, enrichment;
5.   :mod:`.learned` — SymTax's variants and the bi-encoder, trained and ranking;
6.   :mod:`.tables` — every run scored into the tables, with paired p-values.

:class:`~.config.LocalConfig` holds every choice of a run.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CitegraphError
from ..evaluation.benchmark import Log, Results, Scores, quiet, run
from ..evaluation.report import Table
from ..retrieval.base import Retriever
from .config import LocalConfig
from .data import read_contexts, write_contexts
from .learned import Variants, biencoders, rerank
from .profile import Profiles, biencoder_row, paired_tests, prefetch_over_profiles, view_sentences
from .saved import model_card, save_model
from .stages import coverage, enrich, load_corpus, ordered, prefetch, query_set, split
from .symtax import Example
from .tables import MEASURES, tables
from .taxonomy import load_taxonomy

if TYPE_CHECKING:
    from ..graph import GraphStore


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
        info.update(coverage(test, prefetched[n:], enriched[n:], corpus.candidates), documents=len(corpus.documents))
        log(
            f"prefetch ({config.prefetch.spec}) {seconds['prefetch']:.1f} s, enrichment {seconds['enrich']:.1f} s; "
            f"test candidates: {info['candidates_prefetched']:.0f} prefetched, {info['candidates_enriched']:.0f} "
            f"enriched (mean), the cited paper among them for {info['positive_in_prefetched']:.1%} / "
            f"{info['positive_in_enriched']:.1%}"
        )

        first_stage = f"prefetch ({config.prefetch.spec})"
        baselines = {first_stage: ordered(test, prefetched[n:])}
        for spec in config.first_stages:
            t = time.perf_counter()
            baselines[f"prefetch ({spec})"] = ordered(
                test, prefetch(corpus, test, replace(config.prefetch, spec=spec), out / "index")
            )
            seconds[f"prefetch ({spec})"] = time.perf_counter() - t
        pairs: dict[str, str] = {}  # a row with profiles → the same without
        profiles = Profiles(view_sentences(queries.view), config.profile_sentences) if config.profile else None
        if profiles is not None:  # before the enrichment row: the bi-encoder's fusion takes the last row
            t, row = time.perf_counter(), f"{first_stage} over profiles"
            lists = prefetch_over_profiles(profiles, corpus, test, config.prefetch, out / "index-profiles")
            baselines[row], pairs[row] = ordered(test, lists), first_stage
            seconds["profiles"] = time.perf_counter() - t
            info["profile_sentences_shown"] = int(profiles.chosen().sum())
        if config.enrich:
            baselines[f"{first_stage} + enrichment"] = ordered(test, enriched[n:])
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
            if profiles is not None:
                without = list(found)[-2]  # the fine-tuned model's row, before its fusion with the first stage
                row = f"{without} + profile"
                runs[row], trained[row] = biencoder_row(tuned, profiles, train, prefetched[:n], test, enriched[n:])
                rows.append(row)
                pairs[row] = without
                log(f"{row}: weight {trained[row]['profile_weight']} (chosen on the newest training contexts)")
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
        if pairs:
            title = f"{len(test)} test contexts, at most {config.profile_sentences} citing sentences per profile"
            result_tables += paired_tests(test, runs, pairs, MEASURES, title)
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
            "profile": c.profile,
            "profile_sentences": c.profile_sentences,
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
