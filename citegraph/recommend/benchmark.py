"""The recommender on held-out citations, registered as the benchmark ``recommend``.

Papers of the graph each lose one reference (:func:`.held_out.held_out_citations`: the
papers after ``skip`` of the same seeded permutation whose first papers ``citegraph
recommend-train`` learned on, so disjoint from them; a test set that shares a paper with
the ones a weights file lists is refused unless ``--allow-overlap``); the
recommender, with the given text retrievers, ranks its candidates under each weighting —
text alone, the default fusion, and learned weights when given — and the held-out
reference is the one relevant paper. Light to import: the recommender is loaded when scored.

With weights learned with the contexts signal (``--contexts-model``, from ``recommend-train``
on a graph whose edges carry citing sentences), the other rows are computed by the
recommender without that signal (neither its candidates nor its feature), so that
"learned" and "learned + contexts" are the same recommender with and without it, on the
same papers: paired tests (randomisation and t-test, per paper) compare the two, on all
papers and on those whose held-out reference is cited in sentences the seed's view shows
(the only ones the signal can find; its own sentences are hidden, see
:mod:`citegraph.recommend.contexts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..evaluation.benchmark import Log, Scores, quiet
from ..evaluation.registered import Registered, RetrieverOption
from ..evaluation.report import Table
from ..options import Option
from ..retrieval.base import Retriever

if TYPE_CHECKING:
    from ..graph import GraphStore


@dataclass(frozen=True)
class HeldOutCitations:
    store: GraphStore
    papers: int = 300  # held-out citations to test on
    seed: int = 0
    skip: int = 300  # papers of the draw used for training
    weights: Path | None = None  # learned weights (citegraph recommend-train)
    contexts_weights: Path | None = None  # learned with the contexts signal (recommend-train --contexts)
    allow_overlap: bool = False  # test even on papers the weights were learned on
    name: str = "recommend"

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log = quiet) -> Scores:
        from .held_out import check_disjoint, evaluate_held_out, held_out_citations
        from .recommender import Recommender
        from .weights import Weights

        variants = {"text only": Weights({"text": 1.0}), "fusion (default weights)": Weights()}
        if self.weights:
            variants["learned"] = Weights.load(self.weights)
        contexts_variant = {WITH_CONTEXTS: Weights.load(self.contexts_weights)} if self.contexts_weights else {}
        names = [r.name for r in retrievers]
        recommender = Recommender(self.store, retrievers, contexts=not contexts_variant)
        with_contexts = Recommender(self.store, retrievers) if contexts_variant else None
        try:
            examples = held_out_citations(self.store, self.papers, self.seed, skip=self.skip)
            for weights_file in filter(None, (self.weights, self.contexts_weights)):
                if not self.allow_overlap and not check_disjoint(weights_file, examples):
                    log(f"{weights_file} does not record its training papers: overlap with the test set not checked")
            results = evaluate_held_out(recommender, examples, variants)
            if with_contexts:
                results |= evaluate_held_out(with_contexts, examples, contexts_variant)
                sentences = with_contexts.citing_sentences()
                cited = [
                    e.seed.id
                    for e in examples
                    if sentences and sentences.cited_in_view(e.held_out, e.seed.id, e.seed.view.as_of)
                ]
        finally:
            recommender.close()
            if with_contexts:
                with_contexts.close()
        measures = list(next(iter(results.values())).mean)
        table = Table(f"held-out citations ({self.papers} papers, text: {', '.join(names) or 'none'})", measures)
        for name, result in results.items():
            for measure, value in result.mean.items():
                table.set(name, measure, value)
        tables = [table]
        if with_contexts:
            baseline = "learned" if self.weights else "fusion (default weights)"
            tables += _contexts_tables(results, baseline, cited, measures)
        config = {
            "papers": self.papers,
            "seed": self.seed,
            "skip": self.skip,
            "retrievers": names,
            "variants": {name: dict(w.values) for name, w in (variants | contexts_variant).items()},
        }
        return Scores(tables, config, {n: r.per_query for n, r in results.items()})


WITH_CONTEXTS = "learned + contexts"


def _contexts_tables(results: dict, baseline: str, cited: list[str], measures: list[str]) -> list[Table]:
    """The rows on the papers whose held-out reference is cited in contexts the view shows,
    and the paired tests of "learned + contexts" against ``baseline`` (the recommender
    without the signal) on all papers and on those."""
    from ..evaluation.metrics import Evaluation, compare

    subset = Table(
        f"held-out reference cited in contexts ({len(cited)} of {len(results[baseline].queries)} papers)", measures
    )
    for name in (baseline, WITH_CONTEXTS):
        for measure, value in Evaluation(results[name].per_query, cited).mean.items():
            subset.set(name, measure, value)
    tests = Table(
        f"paired tests p: {WITH_CONTEXTS} against {baseline} (per paper)",
        measures,
        scale=1.0,
        name="recommend_contexts_p",
        digits=4,
    )
    for papers, queries in (("all papers", results[baseline].queries), ("cited in contexts", cited)):
        for measure in measures:
            c = compare(
                Evaluation(results[WITH_CONTEXTS].per_query, queries),
                Evaluation(results[baseline].per_query, queries),
                measure,
                permutations=2000,
            )
            tests.set(f"{papers}: randomisation", measure, c.randomisation_p)
            tests.set(f"{papers}: t-test", measure, c.t_test_p)
    return [subset, tests]


def build(
    store: GraphStore,
    papers: int,
    seed: int,
    skip: int,
    weights: Path | None,
    contexts_weights: Path | None,
    allow_overlap: bool,
) -> HeldOutCitations:
    return HeldOutCitations(store, papers, seed, skip, weights, contexts_weights, allow_overlap)


RECOMMEND = Registered(
    "recommend",
    "The recommender on held-out citations: text alone, plain fusion, learned weights.",
    build,
    (
        Option("papers", "--papers", "Held-out citations to test on.", int, 300),
        Option("seed", "--seed", "Same seed as recommend-train: its papers are skipped.", int, 0),
        Option("skip", "--skip", "Papers of the draw used for training (skipped).", int, 300),
        Option("weights", "--model", "Learned weights (citegraph recommend-train).", Path, path="file"),
        Option(
            "contexts_weights",
            "--contexts-model",
            "Weights learned with the contexts signal (recommend-train --contexts): the other rows are then "
            "computed without it, and paired tests compare.",
            Path,
            path="file",
        ),
        Option(
            "allow_overlap",
            "--allow-overlap",
            "Test even on papers the weights were learned on (refused otherwise: the weights file lists them).",
            bool,
            False,
        ),
    ),
    RetrieverOption(
        "indexes", help="Text retrievers with built indexes (citegraph index …); '' for graph only.", run_files=False
    ),
    graph=True,
)
