"""The tables of a local-recommendation run (stage 6 of :mod:`.experiment`): every run scored
(Recall@1/5/10/20/50, nDCG@10, MRR), and paired t-test and randomisation-test p-values.

Rows of the ablation table: the prefetcher alone, its no-learning controls (:mod:`.controls`),
prefetch + enrichment (enriched order), SymTax (LM, vector fusion, hyperbolic), − enrichment
(the same model over the prefetched candidates only: the Enricher is an inference stage),
− taxonomy, hyperbolic → Euclidean, hyperbolic → spherical (the positive curvature of
SymTax's release). The LM × fusion table crosses every LM of ``lms`` with vector and graph
fusion (APPNP or GAT). With ``enrich=False`` the enrichment rows are left out and every
model ranks prefetched lists.

Every row is tested against the prefetcher; the learned rows and the rows with public
profiles also against the **strongest baseline**: per measure, the best of the prefetcher
and its controls (named in the table's title), so that a gain is not the controls' prior. Over several
seeds a cell is the mean ± sd of the seeds' means, and the tests compare each query's
value averaged over the seeds that drew it (:func:`~citegraph.evaluation.metrics.over_seeds`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..evaluation.metrics import Evaluation, OverSeeds, compare, evaluate
from ..evaluation.report import Table
from ..retrieval.base import Ranking
from .config import LocalConfig
from .data import Context

MEASURES = ("R@1", "R@5", "R@10", "R@20", "R@50", "nDCG@10", "MRR")
_LM_SHOWN = {"finetune": "LM fine-tuned per variant", "shared": "LM fine-tuned once, shared", "frozen": "frozen LM"}
_TESTS = ("t-test", "randomisation test")
_CANDIDATES_SHOWN = {"uniform": "candidates: titles only", "abstracts": "candidates: the papers with an abstract"}


@dataclass(frozen=True)
class Rows:
    """Which runs fill which table, and what they are tested against."""

    ablation: Sequence[str]  # the main table, in order
    fusion: Sequence[str] = ()  # the LM × fusion table (shown when it has more than one row)
    baselines: Sequence[str] = ()  # the prefetcher, then its controls
    learned: Sequence[str] = ()  # tested against the strongest baseline too
    paired: Mapping[str, str] = field(default_factory=dict)  # a row with public profiles → the same row without


def scored(test: Sequence[Context], runs: Mapping[str, Mapping[str, Ranking]]) -> dict[str, Evaluation]:
    """Every run evaluated on the test contexts (each context's cited papers are relevant)."""
    qrels = {c.id: dict.fromkeys(c.cited, 1) for c in test}
    return {name: evaluate(qrels, dict(ranking), MEASURES) for name, ranking in runs.items()}


def tables(config: LocalConfig, tested: int, results: Mapping[str, OverSeeds], rows: Rows) -> list[Table]:
    """The ablation table (and the LM × fusion table when it has more than one row) and the
    p-value tables; ``tested``: test contexts per seed."""
    title = _title(config, tested, next(iter(results.values())).seeds if results else ())
    heading = "ablations (SymTax Table 3)" if "symtax" in config.rerankers else "first stages and bi-encoder"
    ablation = Table(f"Local citation recommendation: {heading} — {title}", list(MEASURES))
    lm_fusion = Table(f"LM × taxonomy fusion (SymTax Table 4) — {title}", list(MEASURES))
    for name, result in results.items():
        for table, names in ((ablation, rows.ablation), (lm_fusion, rows.fusion)):
            if name in names:
                for measure in MEASURES:
                    table.set(
                        name, measure, result.mean[measure], result.sd[measure] if len(result.seeds) > 1 else None
                    )
    shown = [n for n in dict.fromkeys([*rows.ablation, *rows.fusion]) if n in results]
    significance = (
        _significance(results, shown[1:], lambda _name, _measure: shown[0], shown[0], title) if len(shown) > 1 else []
    )
    baselines = [n for n in rows.baselines if n in results]
    learned = [n for n in dict.fromkeys([*rows.learned, *rows.paired]) if n in results]  # profiles add text: tested too
    if len(baselines) > 1 and learned:
        strongest = {m: max(baselines, key=lambda n: results[n].mean[m]) for m in MEASURES}  # ties: the first
        named = "; ".join(
            f"{b}: {', '.join(m for m in MEASURES if strongest[m] == b)}" for b in dict.fromkeys(strongest.values())
        )
        significance += _significance(
            results, learned, lambda _name, m: strongest[m], f"the strongest baseline per measure ({named})", title
        )
    paired = [n for n in rows.paired if n in results and rows.paired[n] in results]
    if paired:
        significance += _significance(
            results, paired, lambda name, _measure: rows.paired[name], "the same row without profiles", title
        )
    return [ablation] + ([lm_fusion] if len(rows.fusion) > 1 else []) + significance


def _title(config: LocalConfig, tested: int, seeds: Sequence[int]) -> str:
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
    return ", ".join(
        [
            f"{tested} test contexts",
            *((f"{len(seeds)} seeds ({', '.join(map(str, seeds))}): mean ± sd",) if len(seeds) > 1 else ()),
            *((_CANDIDATES_SHOWN[config.candidates],) if config.candidates in _CANDIDATES_SHOWN else ()),
            *((f"profiles: at most {config.profile_sentences} citing sentences",) if config.profile else ()),
            f"prefetch {config.prefetch.spec} top {config.prefetch.depth}",
            f"enriched to {config.size}" if config.enrich else "no enrichment",
            *trained,
        ]
    )


def _significance(
    results: Mapping[str, OverSeeds], names: Sequence[str], against, shown: str, title: str
) -> list[Table]:
    """Paired t-test and randomisation test p of each of ``names`` against ``against(name, measure)``,
    on each query's value (its mean over the seeds)."""
    tests = {kind: Table(f"Paired {kind} p against {shown} — {title}", list(MEASURES), scale=1.0) for kind in _TESTS}
    for name in names:
        for measure in MEASURES:
            c = compare(results[name].pooled, results[against(name, measure)].pooled, measure, permutations=2000)
            tests["t-test"].set(name, measure, c.t_test_p)
            tests["randomisation test"].set(name, measure, c.randomisation_p)
    return list(tests.values())
