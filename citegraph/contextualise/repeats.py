"""Table 1 over several seeds and corpus sizes: mean ± sd, a learning curve, a pooled paired test.

Each (corpus share, seed) is one run of :func:`~.evaluation.evaluate_clscisumm` in
``OUT/share-<s>/seed-<n>``: the seed shuffles the topics into folds, draws the corpus
share and seeds Word2Vec, so the spread over seeds is the spread of everything random
in a run. A run whose folder already holds the results of the same setting is read
back, not redone (:func:`_finished`). Printed:

1. Table 1 at the largest share, every measure as mean ± sd over the seeds (each seed's
   value is a mean over the 753 citances);
2. the learning curve: c-F of each model per corpus share, mean ± sd over seeds;
3. the pooled test at the largest share: each citance's c-F averaged over the seeds, each
   model against the best baseline (paired t-test and randomisation test over citances).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import CitegraphError
from ..evaluation.harness import Log, Scores, quiet
from ..evaluation.report import Table
from ..retrieval.base import Retriever
from .evaluation import COLUMNS, evaluate_clscisumm, significance
from .models import get


def _share_label(share: float) -> str:
    return f"{share * 100:g} %"


def _finished(
    run_dir: Path, data_dir: Path, labels: Sequence[str], folds: int, seed: int, share: float, options: dict
) -> tuple[list[Table], dict] | None:
    """The tables and per-citance values of an earlier run of the same setting in ``run_dir``
    (same data, folds, seed, corpus and share; every asked model in it), else None: an
    interrupted series resumes, and a learning curve reuses the seeds' full-corpus runs."""
    try:
        results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    config, vectors = results["config"], results["config"].get("vectors", {})
    corpus = [str(c).rstrip("/").rsplit("/", 1)[-1] for c in options.get("corpus") or ()]  # named alike
    same = (
        Path(config["data"]).resolve() == Path(data_dir).resolve()
        and config["folds"] == folds
        and config["seed"] == seed
        and vectors.get("corpus_share", 1.0) == share
        and all(c in vectors.get("trained_on", "") for c in corpus)
        and not options.get("vectors")
        and set(labels) <= set(results["per_query"])
    )
    if not same:
        return None
    tables = [Table(**t) for t in results["tables"]]
    for table in tables:
        table.rows = {label: table.rows[label] for label in labels}
    return tables, {label: results["per_query"][label] for label in labels}


def repeat(
    data_dir: Path,
    out: Path,
    models: Sequence[str],
    folds: int,
    seeds: Sequence[int],
    shares: Sequence[float],
    log: Callable[[str], None] = lambda message: None,
    **options,
) -> Scores:
    """Run every (share, seed); ``options`` are passed on to ``evaluate_clscisumm``."""
    out = Path(out)
    shares = sorted(set(shares))
    labels = [get(m).label for m in models]
    means: dict[float, dict[str, dict[str, list[float]]]] = {}  # share → model → column → per seed
    last_per_query: list[dict] = []
    for share in shares:
        for seed in seeds:
            run_dir = out / f"share-{share:g}" / f"seed-{seed}"
            done = _finished(run_dir, data_dir, labels, folds, seed, share, options)
            log(f"corpus share {_share_label(share)}, seed {seed}" + (f": reusing {run_dir}" if done else ""))
            tables, per_query = done or evaluate_clscisumm(
                data_dir, run_dir, models, folds, seed, log=log, corpus_share=share, **options
            )
            for label, cells in tables[0].rows.items():
                for column, (mean, _) in cells.items():
                    means.setdefault(share, {}).setdefault(label, {}).setdefault(column, []).append(mean)
            if share == shares[-1]:
                last_per_query.append(per_query)

    seeds_text = f"seeds {', '.join(map(str, seeds))}"
    top = Table(
        f"Citation contextualisation, CL-SciSumm, corpus share {_share_label(shares[-1])}: mean ± sd over {seeds_text}",
        COLUMNS,
        name="contextualise_seeds",
    )
    for label in labels:
        for column in COLUMNS:
            values = means[shares[-1]][label][column]
            top.set(label, column, float(np.mean(values)), float(np.std(values, ddof=1)) if len(values) > 1 else None)
    curve = Table(
        f"Learning curve: c-F by share of the corpus documents, mean ± sd over {seeds_text}",
        [_share_label(s) for s in shares],
        name="contextualise_curve",
    )
    for label in labels:
        for share in shares:
            values = means[share][label]["c-F"]
            curve.set(
                label,
                _share_label(share),
                float(np.mean(values)),
                float(np.std(values, ddof=1)) if len(values) > 1 else None,
            )

    pooled = {
        label: {
            "c-F": {
                cid: float(np.mean([run[label]["c-F"][cid] for run in last_per_query]))
                for cid in last_per_query[0][label]["c-F"]
            }
        }
        for label in labels
    }
    versus = significance(pooled, labels)
    test = Table(
        f"c-F per citance averaged over the seeds, against {versus.get('baseline', '—')} "
        "(Δ in points; paired t-test and randomisation p)",
        ["Δ c-F", "t-test p", "randomisation p"],
        scale=1.0,
        name="contextualise_pooled_test",
    )
    for label in labels:
        found = versus.get(label)
        if isinstance(found, dict):
            test.set(label, "Δ c-F", 100 * (found["mean"] - found["baseline"]))
            test.set(label, "t-test p", found["t_test_p"])
            test.set(label, "randomisation p", found["randomisation_p"])
    return Scores(
        [top, curve, test],
        {
            "data": str(data_dir),
            "seeds": list(seeds),
            "shares": shares,
            "folds": folds,
            "runs": {f"{s:g}": means[s] for s in shares},
            "pooled_significance": versus,
        },
        pooled,
    )


@dataclass(frozen=True)
class Repeats:
    """CL-SciSumm over several seeds and corpus shares as a benchmark (one run per pair)."""

    data_dir: Path
    models: tuple[str, ...]
    folds: int
    seeds: tuple[int, ...]
    shares: tuple[float, ...]
    options: dict = field(default_factory=dict)  # passed on to evaluate_clscisumm
    name: str = "contextualise"

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log = quiet) -> Scores:
        if retrievers:
            raise CitegraphError("CL-SciSumm contextualisation ranks sentences with its own models, not retrievers")
        return repeat(self.data_dir, out, self.models, self.folds, self.seeds, self.shares, log, **self.options)
