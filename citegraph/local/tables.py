"""The tables of a local-recommendation run (stage 6 of :mod:`.evaluate`): every run scored
(Recall@1/5/10/20/50, nDCG@10, MRR), and paired t-test and randomisation-test p-values.

Rows of the ablation table: the prefetcher alone, prefetch + enrichment (enriched order),
SymTax (LM, vector fusion, hyperbolic), − enrichment (the same model over the prefetched
candidates only: the Enricher is an inference stage), − taxonomy, hyperbolic → Euclidean,
hyperbolic → spherical (the positive curvature of SymTax's release). The LM × fusion table
crosses every LM of ``lms`` with vector and graph fusion (APPNP or GAT). With
``enrich=False`` the enrichment rows are left out and every model ranks prefetched lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..evaluation.metrics import compare, evaluate
from ..evaluation.report import Table
from ..retrieval.base import Ranking
from .config import LocalConfig
from .data import Context

MEASURES = ("R@1", "R@5", "R@10", "R@20", "R@50", "nDCG@10", "MRR")
_LM_SHOWN = {"finetune": "LM fine-tuned per variant", "shared": "LM fine-tuned once, shared", "frozen": "frozen LM"}


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
