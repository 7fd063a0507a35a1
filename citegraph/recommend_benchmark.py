"""The recommender on held-out citations, registered as the benchmark ``recommend``.

Papers of the graph each lose one reference (:func:`.recommend_held_out.held_out_citations`, the
same seeded draw as ``citegraph recommend-train``, whose papers are skipped); the
recommender, with the given text retrievers, ranks its candidates under each weighting —
text alone, the default fusion, and learned weights when given — and the held-out
reference is the one relevant paper. Light to import: the recommender is loaded when scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .evaluation.benchmark import Log, Option, Registered, RetrieverOption, Scores, quiet, register
from .evaluation.report import Table
from .retrieval.base import Retriever

if TYPE_CHECKING:
    from .graph import GraphStore


@dataclass(frozen=True)
class HeldOutCitations:
    store: GraphStore
    papers: int = 300  # held-out citations to test on
    seed: int = 0
    skip: int = 300  # papers of the draw used for training
    weights: Path | None = None  # learned weights (citegraph recommend-train)
    name: str = "recommend"

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log = quiet) -> Scores:
        from .recommend import DEFAULT_WEIGHTS, Recommender, load_weights
        from .recommend_held_out import evaluate_held_out, held_out_citations

        variants = {"text only": {"text": 1.0}, "fusion (default weights)": DEFAULT_WEIGHTS}
        if self.weights:
            variants["learned"] = load_weights(self.weights)
        names = [r.name for r in retrievers]
        recommender = Recommender(self.store, retrievers)
        try:
            examples = held_out_citations(self.store, self.papers, self.seed, skip=self.skip)
            results = evaluate_held_out(recommender, examples, variants)
        finally:
            recommender.close()
        measures = list(next(iter(results.values())).mean)
        table = Table(f"held-out citations ({self.papers} papers, text: {', '.join(names) or 'none'})", measures)
        for name, result in results.items():
            for measure, value in result.mean.items():
                table.set(name, measure, value)
        config = {"papers": self.papers, "seed": self.seed, "skip": self.skip, "retrievers": names,
                  "variants": variants}
        return Scores([table], config, {n: r.per_query for n, r in results.items()})


def build(store: GraphStore, papers: int, seed: int, skip: int, weights: Path | None) -> HeldOutCitations:
    return HeldOutCitations(store, papers, seed, skip, weights)


RECOMMEND = register(Registered(
    "recommend", "The recommender on held-out citations: text alone, plain fusion, learned weights.", build, (
        Option("papers", "--papers", "Held-out citations to test on.", int, 300),
        Option("seed", "--seed", "Same seed as recommend-train: its papers are skipped.", int, 0),
        Option("skip", "--skip", "Papers of the draw used for training (skipped).", int, 300),
        Option("weights", "--model", "Learned weights (citegraph recommend-train).", Path, path="file"),
    ), RetrieverOption("indexes", help="Text retrievers with built indexes (citegraph index …); '' for graph only.",
                       run_files=False), graph=True))
