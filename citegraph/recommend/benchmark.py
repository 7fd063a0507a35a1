"""The recommender on held-out citations, registered as the benchmark ``recommend``.

Papers of the graph each lose one reference (:func:`.held_out.held_out_citations`: the
papers after ``skip`` of the same seeded permutation whose first papers ``citegraph
recommend-train`` learned on, so disjoint from them; a test set that shares a paper with
the ones a weights file lists, or weights learned with another seed, is refused unless
``--allow-overlap``); the recommender, with the given text retrievers, ranks its candidates
under each weighting — text alone, the default fusion, and learned weights when given — and
the held-out reference is the one relevant paper. Light to import: the recommender is loaded
when scored.

With several seeds (``--seeds 0,1,2``) each seed draws its own permutation and is tested with
the weights learned with it (``--model``: the folder ``recommend-train --seeds`` writes, one
file per seed); the rows are printed as mean ± sd of the seeds' means, and the paired tests
(randomisation and t-test) compare two rows on each paper's mean over the seeds that drew it
(:func:`citegraph.evaluation.metrics.over_seeds`): every learned row against each row that
learns nothing (text alone, the default fusion). Each seed's own tables follow.

With weights learned with the contexts signal (``--contexts-model``, from ``recommend-train``
on a graph whose edges carry citing sentences), the other rows are computed by the
recommender without that signal (neither its candidates nor its feature), so that
"learned" and "learned + contexts" are the same recommender with and without it, on the
same papers: the paired tests compare the two as well, on all papers and on those whose held-out reference is cited in sentences the seed's view shows
(the only ones the signal can find; its own sentences are hidden, see
:mod:`citegraph.recommend.signals.contexts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..evaluation.entry import Registered, RetrieverOption
from ..evaluation.harness import Log, Scores, quiet
from ..evaluation.report import Table
from ..options import Option
from ..retrieval.base import Retriever

if TYPE_CHECKING:
    from ..evaluation.metrics import Evaluation, OverSeeds
    from ..graph import GraphStore
    from .held_out import HeldOut
    from .recommender import Recommender
    from .weights import Weights


LEARNED = "learned"
WITH_CONTEXTS = "learned + contexts"
NOT_LEARNED = ("text only", "fusion (default weights)")


@dataclass(frozen=True)
class HeldOutCitations:
    store: GraphStore
    papers: int = 300  # held-out citations to test on, per seed
    seeds: tuple[int, ...] = (0,)  # each its own permutation: training papers first, then the test papers
    skip: int = 300  # papers of the draw used for training
    weights: Path | None = None  # learned weights, or a folder of one file per seed (recommend-train --seeds)
    contexts_weights: Path | None = None  # learned with the contexts signal (recommend-train --contexts)
    allow_overlap: bool = False  # test even on papers the weights were learned on
    name: str = "recommend"

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log = quiet) -> Scores:
        from .recommender import Recommender

        draws = [self._draw(seed, log) for seed in self.seeds]  # every overlap refused before any ranking
        recommender = Recommender(self.store, retrievers, contexts=not self.contexts_weights)
        with_contexts = Recommender(self.store, retrievers) if self.contexts_weights else None
        try:
            runs = [_run(draw, recommender, with_contexts) for draw in draws]
        finally:
            recommender.close()
            if with_contexts:
                with_contexts.close()
        names = [r.name for r in retrievers]
        config = {
            "papers": self.papers,
            "seeds": list(self.seeds),
            "skip": self.skip,
            "retrievers": names,
            "runs": {
                str(run.seed): {"variants": run.variants, "cited_in_contexts": run.cited if with_contexts else None}
                for run in runs
            },
        }
        tables = _tables(runs, f"{self.papers} papers, text: {', '.join(names) or 'none'}", bool(with_contexts))
        per_query = {f"seed {run.seed}": {n: e.per_query for n, e in run.results.items()} for run in runs}
        return Scores(tables, config, per_query)

    def _draw(self, seed: int, log: Log) -> _Draw:
        """``seed``'s test papers and the weights learned with the same seed, checked disjoint."""
        from .held_out import check_disjoint, held_out_citations
        from .weights import Weights, weights_for_seed

        examples = held_out_citations(self.store, self.papers, seed, skip=self.skip)
        learned = {}
        for row, path in ((LEARNED, self.weights), (WITH_CONTEXTS, self.contexts_weights)):
            if path is None:
                continue
            weights_file = weights_for_seed(path, seed)
            if not self.allow_overlap and not check_disjoint(weights_file, examples, seed):
                log(f"{weights_file} does not record its training papers: overlap with the test set not checked")
            learned[row] = Weights.load(weights_file)
        return _Draw(seed, examples, learned)


@dataclass(frozen=True)
class _Draw:
    seed: int
    examples: list[HeldOut]
    learned: dict[str, Weights]  # row → the weights learned with this seed


@dataclass(frozen=True)
class _Run:
    """One seed's rows, per paper, and the papers whose held-out reference the contexts show."""

    seed: int
    results: dict[str, Evaluation]
    cited: list[str]
    variants: dict[str, dict[str, float]]


def _run(draw: _Draw, recommender: Recommender, with_contexts: Recommender | None) -> _Run:
    """Every row on one seed's papers: the rows without the contexts signal by ``recommender``,
    "learned + contexts" by ``with_contexts``."""
    from .held_out import evaluate_held_out
    from .weights import Weights

    variants = {"text only": Weights({"text": 1.0}), "fusion (default weights)": Weights()}
    variants |= {row: w for row, w in draw.learned.items() if row == LEARNED}
    results = evaluate_held_out(recommender, draw.examples, variants)
    cited = []
    if with_contexts:
        results |= evaluate_held_out(with_contexts, draw.examples, {WITH_CONTEXTS: draw.learned[WITH_CONTEXTS]})
        sentences = with_contexts.citing_sentences()
        cited = [
            e.seed.id
            for e in draw.examples
            if sentences and sentences.cited_in_view(e.held_out, e.seed.id, e.seed.view.as_of)
        ]
    shown = {row: dict(w.values) for row, w in (variants | draw.learned).items()}
    return _Run(draw.seed, results, cited, shown)


def _on(evaluation: Evaluation, queries: Sequence[str]) -> Evaluation:
    """``evaluation`` restricted to ``queries`` (its means and what :func:`over_seeds` pools)."""
    from ..evaluation.metrics import Evaluation

    return Evaluation(evaluation.per_query, list(queries))


def _tables(runs: Sequence[_Run], about: str, contexts: bool, tests: bool = True) -> list[Table]:
    """The rows as mean ± sd over the seeds (on all papers; with the contexts signal, also on
    the papers whose held-out reference is cited in contexts the view shows), then with ``tests``
    the paired tests on each paper's mean over the seeds that drew it and, with several seeds,
    each seed's rows."""
    from ..evaluation.metrics import over_seeds

    seeds = [run.seed for run in runs]
    several = len(seeds) > 1
    over = f"mean ± sd over seeds {', '.join(map(str, seeds))}" if several else f"seed {seeds[0]}"
    rows = list(runs[0].results)
    everywhere = {row: over_seeds(seeds, [run.results[row] for run in runs]) for row in rows}
    measures = list(everywhere[rows[0]].mean)

    def table(title: str, summaries: dict[str, OverSeeds]) -> Table:
        made = Table(title, measures)
        for row, summary in summaries.items():
            for measure in measures:
                made.set(row, measure, summary.mean[measure], summary.sd[measure] if several else None)
        return made

    tables = [table(f"held-out citations ({about}; {over})", everywhere)]
    pairs = [(learned, other) for learned in (LEARNED, WITH_CONTEXTS) if learned in rows for other in NOT_LEARNED]
    tested = {"all papers": everywhere}
    if contexts:
        baseline = LEARNED if LEARNED in rows else "fusion (default weights)"
        pairs.append((WITH_CONTEXTS, baseline))
        cited = {
            row: over_seeds(seeds, [_on(run.results[row], run.cited) for run in runs])
            for row in (baseline, WITH_CONTEXTS)
        }
        drawn = sum(len(run.results[baseline].queries) for run in runs)
        found = sum(len(run.cited) for run in runs)
        tables.append(table(f"held-out reference cited in contexts ({found} of {drawn} papers; {over})", cited))
        tested["cited in contexts"] = cited
    if tests:
        per_paper = f"each paper's mean over seeds {', '.join(map(str, seeds))}" if several else over
        tables.append(_tests(tested, pairs, measures, per_paper))
        for run in runs if several else ():
            tables += _tables([run], about, contexts, tests=False)
    return tables


def _tests(tested: dict[str, dict[str, OverSeeds]], pairs: list, measures: list[str], per_paper: str) -> Table:
    """Paired tests p (randomisation and t-test, per paper) of each pair of rows on all papers,
    and of the contexts signal's pair on the papers cited in contexts."""
    from ..evaluation.metrics import compare

    tests = Table(f"paired tests p, per paper ({per_paper})", measures, scale=1.0, name="recommend_p", digits=4)
    for papers, summaries in tested.items():
        for a, b in pairs if papers == "all papers" else pairs[-1:]:
            for measure in measures:
                c = compare(summaries[a].pooled, summaries[b].pooled, measure)
                tests.set(f"{a} vs {b}, {papers}: randomisation", measure, c.randomisation_p)
                tests.set(f"{a} vs {b}, {papers}: t-test", measure, c.t_test_p)
    return tests


def build(
    store: GraphStore,
    papers: int,
    seed: int,
    seeds: Sequence[str],
    skip: int,
    weights: Path | None,
    contexts_weights: Path | None,
    allow_overlap: bool,
) -> HeldOutCitations:
    return HeldOutCitations(store, papers, parse_seeds(seeds, seed), skip, weights, contexts_weights, allow_overlap)


def check(*, seeds: Sequence[str], seed: int, **_: object) -> tuple[int, ...]:
    """The options checked before the graph opens (:attr:`Registered.check`)."""
    return parse_seeds(seeds, seed)


def parse_seeds(seeds: Sequence[str], seed: int) -> tuple[int, ...]:
    """``--seeds`` as integers (``--seed`` when none), each once."""
    try:
        chosen = tuple(int(s) for s in seeds) or (seed,)
    except ValueError:
        raise UsageError(f"--seeds: expected comma-separated integers, got {','.join(seeds)!r}") from None
    if len(set(chosen)) != len(chosen):
        raise UsageError(f"--seeds: each seed once, got {','.join(map(str, chosen))}")
    return chosen


RECOMMEND = Registered(
    "recommend",
    "The recommender on held-out citations: text alone, plain fusion, learned weights.",
    build,
    (
        Option("papers", "--papers", "Held-out citations to test on.", int, 300),
        Option("seed", "--seed", "Same seed as recommend-train: its papers are skipped.", int, 0),
        Option(
            "seeds",
            "--seeds",
            "Several seeds (e.g. 0,1,2; instead of --seed), each with the weights learned with it (--model: "
            "the folder of recommend-train --seeds): the rows as mean ± sd over them, paired tests on each "
            "paper's mean over the seeds.",
            list,
            [],
        ),
        Option("skip", "--skip", "Papers of the draw used for training (skipped).", int, 300),
        Option(
            "weights",
            "--model",
            "Learned weights (citegraph recommend-train): a file, or the folder of recommend-train --seeds.",
            Path,
            path="any",
        ),
        Option(
            "contexts_weights",
            "--contexts-model",
            "Weights learned with the contexts signal (recommend-train --contexts): the other rows are then "
            "computed without it, and paired tests compare. A file or a folder, as --model.",
            Path,
            path="any",
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
    check=check,
)
