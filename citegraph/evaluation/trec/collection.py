"""TREC-style test collections: topics in, runs out, and a scored table of any collection.

The topics, qrels and runs are read (and the runs written) by :mod:`citegraph.formats.trec`.

**Ids** are compared case-insensitively where their scheme says so: a DOI (``10.…``)
in the qrels matches the same DOI in a run whatever the letters' case (publishers write
``10.1023/A:…``, others ``10.1023/a:…``); :func:`comparable` is applied to both sides
before scoring, and runs keep the spelling of the graph.
"""

from __future__ import annotations

import re
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...errors import CitegraphError
from ...formats.trec import Topic, write_run
from ...retrieval.base import Document, Hit, Ranking, Retriever
from ..harness import Log, Scores, quiet
from ..metrics import DEPTH, Evaluation, compare, evaluate
from ..report import Table


# -- ids across qrels and runs ---------------------------------------------------------
def comparable(doc_id: str) -> str:
    """The form an id is compared in: DOIs (``10.…/…``) case-folded, other ids as they are."""
    return doc_id.casefold() if doc_id.startswith("10.") and "/" in doc_id else doc_id


def comparable_qrels(qrels: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    return {q: {comparable(d): g for d, g in judged.items()} for q, judged in qrels.items()}


def comparable_run(run: Mapping[str, Ranking]) -> dict[str, Ranking]:
    return {q: [Hit(comparable(h.id), h.score) for h in hits] for q, hits in run.items()}


def unjudged_topics(topics: Sequence[Topic], qrels: Mapping[str, Mapping[str, int]]) -> list[str]:
    """Topics without any relevant judgement (not scored, as trec_eval)."""
    return [t.id for t in topics if not any(g > 0 for g in qrels.get(t.id, {}).values())]


# -- scoring -------------------------------------------------------------------------------
def measures_at(k: int) -> list[str]:
    return [f"R@{k}", f"nDCG@{k}", "MAP", "MRR"]


@dataclass
class RunScores:
    """Each system's evaluation, the table of means, and paired tests against the first system."""

    table: Table
    evaluations: dict[str, Evaluation]
    significance: dict[str, dict[str, dict[str, float]]]  # system → measure → {t_test_p, randomisation_p}
    unjudged: list[str]

    def tables(self) -> list[Table]:
        """The table of means and, when there is more than one system, the randomisation tests' p."""
        if not self.significance:
            return [self.table]
        tests = Table(
            f"randomisation test p against {next(iter(self.evaluations))} (paired, per topic)",
            self.table.columns,
            scale=1.0,
            name="trec_significance",
        )
        for name, by_measure in self.significance.items():
            for measure, p in by_measure.items():
                tests.set(name, measure, p["randomisation_p"])
        return [self.table, tests]


def score_runs(
    topics: Sequence[Topic],
    qrels: Mapping[str, Mapping[str, int]],
    runs: Mapping[str, Mapping[str, Ranking]],
    k: int,
    depth: int | None = None,
    title: str = "",
) -> RunScores:
    """R@k, nDCG@k, MAP and MRR of every run (system → topic id → ranking) over the judged
    topics, ids compared with :func:`comparable`; the first system is the baseline of the
    paired t-test and randomisation test of every other one."""
    unjudged = unjudged_topics(topics, qrels)
    judged = {t.id for t in topics} - set(unjudged)
    if not judged:
        raise CitegraphError("no topic has a relevant document in the qrels (do the topic ids match the qrels'?)")
    wanted = comparable_qrels({q: qrels[q] for q in judged})
    measures = measures_at(k)
    evaluations = {
        name: evaluate(wanted, comparable_run(run), measures, depth or max(k, DEPTH)) for name, run in runs.items()
    }
    table = Table(title or f"{len(judged)} judged topics", measures, name="trec")
    for name, found in evaluations.items():
        for measure, value in found.mean.items():
            table.set(name, measure, value)
    names = list(evaluations)
    significance: dict[str, dict[str, dict[str, float]]] = {}
    for name in names[1:]:
        significance[name] = {}
        for measure in measures:
            c = compare(evaluations[name], evaluations[names[0]], measure, permutations=2000)
            significance[name][measure] = {"t_test_p": c.t_test_p, "randomisation_p": c.randomisation_p}
    return RunScores(table, evaluations, significance, unjudged)


def rank_topics(
    retriever: Retriever, topics: Sequence[Topic], k: int, pools: Sequence[Collection[str]] | None = None
) -> dict[str, Ranking]:
    """Every topic ranked by ``retriever`` in one call (a topic is a query paper: its text as
    the title, its id for run files, which answer by id)."""
    rankings = retriever.search([Document(t.id, t.text) for t in topics], k, pools)
    return {t.id: ranking for t, ranking in zip(topics, rankings)}


@dataclass
class TRECCollection:
    """Any TREC-style collection as a benchmark (``citegraph evaluate trec``): its topics
    ranked by every retriever, the runs scored (:func:`score_runs`) and kept as TREC run
    files (``OUT/runs/``) beside what the harness writes.

    ``rerank_depth``: the first retriever's top N of each topic is the pool every other one
    re-ranks (the caller opens those as re-rankers: a dense one encodes only the candidates);
    else each ranks the whole index to ``depth``."""

    topics: Sequence[Topic]
    qrels: Mapping[str, Mapping[str, int]]
    k: int = 10
    depth: int = 100
    rerank_depth: int | None = None
    warnings: tuple[str, ...] = ()  # what reading the topics repaired (a repeated id), logged with the scores
    name: str = "trec"

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log = quiet) -> Scores:
        """``details["scores"]``: the :class:`RunScores`."""
        for warning in self.warnings:
            log(warning)
        runs: dict[str, dict[str, Ranking]] = {}
        pools = None
        for position, retriever in enumerate(retrievers):
            started = time.perf_counter()
            name = retriever.name if retriever.name not in runs else f"{retriever.name} ({position + 1})"
            runs[name] = rank_topics(retriever, self.topics, self.rerank_depth or self.depth, pools)
            log(f"{name}: {len(self.topics)} topics ranked in {time.perf_counter() - started:.1f} s")
            if self.rerank_depth and pools is None:
                pools = [{h.id for h in runs[name][t.id]} for t in self.topics]
        how = (
            f"the top {self.rerank_depth} of {next(iter(runs))} re-ranked"
            if self.rerank_depth
            else f"depth {self.depth}"
        )
        scores = score_runs(
            self.topics, self.qrels, runs, self.k, title=f"TREC collection: {len(self.topics)} topics ({how})"
        )
        (Path(out) / "runs").mkdir(parents=True, exist_ok=True)
        for name, run in runs.items():
            write_run(Path(out) / "runs" / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', name).strip('_')}.trec", run, name)
        if scores.unjudged:
            log(
                f"{len(scores.unjudged)} topic(s) without a relevant judgement, not scored: "
                f"{', '.join(scores.unjudged[:10])}"
            )
        config = {
            "topics": len(self.topics),
            "judged": len(self.topics) - len(scores.unjudged),
            "unjudged": scores.unjudged,
            "k": self.k,
            "depth": self.depth,
            "rerank_depth": self.rerank_depth,
            "retrievers": list(runs),
            "significance": scores.significance,
            "topic_warnings": list(self.warnings),
        }
        return Scores(
            scores.tables(), config, {n: e.per_query for n, e in scores.evaluations.items()}, {"scores": scores}
        )
