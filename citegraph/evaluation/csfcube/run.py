"""CSFCube (Mysore et al. 2021): faceted query by example, scored as the authors score it.

A query is a paper with a facet (background, method or result); each query's annotated
candidates are reranked and graded 0–3 by the adjudicated judgements. This module puts
each query of the release (:mod:`.release`) to a ranker and scores the rankings with the
official protocol (:mod:`.measures`), so our numbers compare with the paper's Table 3.

**Systems.** A system is a retriever spec (:mod:`citegraph.retrieval.spec`) built over
every candidate of the release (under ``work``, by default ``<out>/indexes``), and how
the query is put to it; candidates are whole papers (title and every sentence):

* ``bm25`` (``bm25:bm25s`` …): the facet sentences against whole candidates, the paper's
  ``fabs_bm25``; so are fusions;
* an encoder (``minilm``, ``specter``, ``hf:<model>``): the whole query paper against
  whole candidates, as the paper's SPECTER baselines, which are not faceted; candidates
  are encoded once (cached under ``work/embeddings``);
* ``<encoder>:facet`` (the CLI's ``--facet-text``): the facet sentences, as one text,
  against the same vectors. (A multi-vector encoder, e.g. ``aspire-cs``, scores by the
  best pair of its contextual sentence vectors in both modes.)
* ``<encoder>:maxsim``: each facet sentence and each candidate sentence (the release's
  lines) encoded on its own, a candidate scored by its best pair (the paper's SentBERT
  baselines), with the encoder's similarity.

**Rankings.** Ties are broken by id (the script keeps the pool order on ties); what a
ranker leaves out is appended in id order (:func:`~.measures.complete`). An external TREC
run (``qid Q0 doc rank score tag``) is ranked by its scores, as trec_eval does; a qid is
``<pid>_<facet>``, or a bare pid when ``run_facet`` names the facet of every line (the run
is then scored on that facet only); hits outside a query's pool are dropped as for every
pooled ranker.

Each evaluation writes ``results.json`` (configuration, tables, every per-query value),
``results.csv``, ``results.md`` and ``runs/<system>.run`` (each system's rankings, TREC).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...errors import UsageError
from ...formats.trec import write_run
from ...retrieval.base import Document, Query, Ranking, Retriever
from ...retrieval.spec import Dense, Fusion, Spec, parse_spec
from ..harness import Log, Scores, quiet, run
from ..report import Table
from ..scorers import RunFile
from .measures import (
    MEASURES,
    OFFICIAL,
    SOURCE,
    TREC,
    TREC_MEASURES,
    UNRANKED,
    complete,
    fold_mean,
    official_values,
    trec_values,
)
from .release import ALL, FACETS, FOLDS, THRESHOLD, FacetQuery, Release, read_release

FACET_TEXT = ":facet"


@dataclass(frozen=True)
class System:
    """A ranker and how a CSFCube query is put to it."""

    name: str
    retriever: Retriever
    ask: Callable[[FacetQuery], Query]
    description: str
    facets: tuple[str, ...] = FACETS


def parse_system(name: str | Spec) -> tuple[Spec, bool]:
    """A system name's retriever spec, and whether it reads the facet sentences as one text (``:facet``)."""
    if isinstance(name, str) and name.strip().endswith(FACET_TEXT):
        spec = parse_spec(name.strip().removesuffix(FACET_TEXT))
        if not isinstance(spec, Dense) or spec.maxsim:
            raise UsageError(
                f"{name.strip()!r}: {FACET_TEXT} puts the facet sentences as one text to an "
                "encoder; bm25, :maxsim and fusions read the facet sentences already"
            )
        return spec, True
    return parse_spec(name), False


def system_name(spec: Spec, facet_text: bool) -> str:
    return str(spec) + (FACET_TEXT if facet_text else "")


def lines(query: Query) -> list[str]:
    """A query's sentences: the lines of a text, or of a paper's abstract (else its title)."""
    body = query if isinstance(query, str) else query.abstract or query.title
    return [line for line in body.split("\n") if line.strip()]


def build_systems(release: Release, specs: Sequence[tuple[Spec, bool]], work: Path) -> list[System]:
    """The rankers of ``specs`` (spec, facet text) over the release's candidates (see the module doc)."""
    from ...retrieval.bm25 import read_manifest

    docs = release.candidate_documents()
    built: dict[Spec, Retriever] = {}
    systems = []
    for spec, facet_text in specs:
        if spec not in built:
            built[spec] = spec.build(docs, work, sentences=lines)
        whole = isinstance(spec, Dense) and not spec.maxsim and not facet_text
        if isinstance(spec, Dense):
            description = (
                f"{spec.encoder}: best pair of facet sentence and candidate sentence, each encoded alone"
                if spec.maxsim
                else f"{spec.encoder}: facet sentences as one text vs whole candidates"
                if facet_text
                else f"{spec.encoder}: whole query paper vs whole candidates (not faceted)"
            )
        elif isinstance(spec, Fusion):
            description = f"{spec}: facet sentences vs whole candidates"
        else:
            description = f"BM25 ({read_manifest(work / spec.folder)['backend']}): facet sentences vs whole candidates"
        systems.append(
            System(
                system_name(spec, facet_text),
                built[spec],
                release.whole_paper if whole else release.facet_text,
                description,
            )
        )
    return systems


def run_system(release: Release, path: Path, facet: str | None = None) -> System:
    """An external TREC run as a system; qids ``<pid>_<facet>``, or pids of ``facet``."""
    if facet is not None and facet not in FACETS:
        raise UsageError(f"run facet must be one of {', '.join(FACETS)}, not {facet!r}")
    run = RunFile(Path(path))
    facets = FACETS if facet is None else (facet,)
    expected = {q.qid if facet is None else q.pid for q in release.facet_queries(facets)}
    unknown = sorted(set(run.rankings) - expected)
    if unknown:
        form = f"pids of {facet} queries" if facet else "'<pid>_<facet>' of annotated queries (or give the facet)"
        raise UsageError(f"{path}: {len(unknown)} query id(s) are not {form}, e.g. {', '.join(unknown[:3])}")
    ask = (lambda q: Document(q.qid, "")) if facet is None else (lambda q: Document(q.pid, ""))
    return System(run.name, run, ask, f"TREC run {path}" + (f" ({facet} queries by pid)" if facet else ""), facets)


@dataclass(frozen=True)
class Scored:
    """A system's rankings and per-query values (convention → measure → qid → value)."""

    system: System
    rankings: dict[str, Ranking]
    per_query: dict[str, dict[str, dict[str, float]]]
    unranked: dict[str, int]  # qid → pool candidates the ranking left out


def score_system(release: Release, system: System, unranked: str = "official") -> Scored:
    """Rank each query's pool with ``system`` and score it both ways (``unranked``: see
    :func:`~.measures.complete`)."""
    queries = release.facet_queries(system.facets)
    pools = [release.pools[q.qid].candidates for q in queries]
    found = system.retriever.search(
        [system.ask(q) for q in queries], max(map(len, pools)), [frozenset(p) for p in pools]
    )
    rankings = {q.qid: ranking for q, ranking in zip(queries, found)}
    orders = {q.qid: complete(r, pool, unranked) for q, r, pool in zip(queries, found, pools)}
    unranked = {q.qid: len(pool) - len(r) for q, r, pool in zip(queries, found, pools) if len(r) < len(pool)}
    return Scored(
        system, rankings, {OFFICIAL: official_values(release, orders), TREC: trec_values(release, orders)}, unranked
    )


def summarise(release: Release, scored: Scored) -> dict[str, dict[str, dict[str, float]]]:
    """convention → facet (and ``all`` when every facet was ranked) → measure → fold mean."""
    facets = [*scored.system.facets, *([ALL] if scored.system.facets == FACETS else [])]
    return {
        convention: {facet: {m: fold_mean(values[m], release.splits[facet]) for m in MEASURES} for facet in facets}
        for convention, values in scored.per_query.items()
    }


# -- the evaluation ----------------------------------------------------------------------
@dataclass(frozen=True)
class CSFCube:
    """The release in ``data_dir`` as a benchmark: ``models`` (system names, see the module
    docstring), a TREC ``run_file``, and any retrievers handed to the harness (whole query
    paper against whole candidates). Indexes and embedding caches go to ``work`` (default
    ``<out>/indexes``); the rankings to ``<out>/runs``. ``details["summary"]``: system →
    convention → facet → measure."""

    data_dir: Path
    models: tuple[str | Spec, ...] = ("bm25",)
    run_file: Path | None = None
    run_facet: str | None = None
    work: Path | None = None
    unranked: str = "official"
    name: str = "csfcube"

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log = quiet) -> Scores:
        release = read_release(self.data_dir)
        models, run_file, run_facet = list(self.models), self.run_file, self.run_facet
        if not models and run_file is None and not retrievers:
            raise UsageError("nothing to evaluate: name models, a run file, or both")
        if run_facet is not None and run_file is None:
            raise UsageError("a run facet needs a run file")
        named = {system_name(spec, facet_text): (spec, facet_text) for spec, facet_text in map(parse_system, models)}
        given = [
            System(r.name, r, release.whole_paper, f"{r.name}: whole query paper vs whole candidates")
            for r in retrievers
        ]
        run = [] if run_file is None else [run_system(release, run_file, run_facet)]  # checked before any encoding
        _check_names([*(system_name(*parse_system(m)) for m in models), *(s.name for s in [*given, *run])])
        folder = Path(self.work or Path(out) / "indexes")
        systems = [*build_systems(release, list(named.values()), folder), *given, *run]
        if self.unranked not in UNRANKED:
            raise UsageError(f"unranked pool members are scored {' or '.join(UNRANKED)}, not {self.unranked!r}")
        scored = [score_system(release, s, self.unranked) for s in systems]
        for s in scored:
            if s.unranked:
                shown = ", ".join(f"{q} ({n})" for q, n in sorted(s.unranked.items())[:5])
                more = f" and {len(s.unranked) - 5} more" if len(s.unranked) > 5 else ""
                how = (
                    (
                        "scored over the ranked ones only, as the official script does (--unranked append: "
                        "appended in id order)"
                    )
                    if self.unranked == "official"
                    else "appended in id order"
                )
                log(
                    f"warning: {s.system.name} leaves pool members unranked for {len(s.unranked)} queries: "
                    f"{shown}{more}; {how}"
                )
        summaries = {s.system.name: summarise(release, s) for s in scored}
        per_query = {s.system.name: {**s.per_query, "unranked": s.unranked} for s in scored}
        _write_runs(Path(out) / "runs", scored)
        return Scores(
            _tables(summaries),
            _config(release, list(named), run_file, run_facet, systems, self.unranked),
            per_query,
            {"summary": summaries},
        )


def run_csfcube(
    data_dir: Path,
    models: Sequence[str | Spec],
    out: Path,
    *,
    run_file: Path | None = None,
    run_facet: str | None = None,
    work: Path | None = None,
    unranked: str = "official",
    log: Log = quiet,
) -> dict:
    """:class:`CSFCube` through the harness: the configuration, the summaries (system →
    convention → facet → measure), the per-query values and the tables."""
    results = run(CSFCube(Path(data_dir), tuple(models), run_file, run_facet, work, unranked), [], out, log=log)
    return {
        "config": results.config,
        "summary": results.details["summary"],
        "per_query": results.per_query,
        "tables": results.tables,
    }


def _check_names(names: Sequence[str]) -> None:
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"two systems are named {', '.join(twice)}; rename the run file or drop the model")


def _tables(summaries: Mapping[str, Mapping[str, Mapping[str, Mapping[str, float]]]]) -> list[Table]:
    titles = {OFFICIAL: "official measures (ranking_eval.py)", TREC: f"trec_eval measures (grade ≥ {THRESHOLD})"}
    tables = []
    for convention, title in titles.items():
        for facet in (*FACETS, ALL):
            t = Table(f"CSFCube {facet}, {title}, mean of the two test folds", list(MEASURES))
            for system, summary in summaries.items():
                for measure, value in summary[convention].get(facet, {}).items():
                    t.set(system, measure, value)
            if t.rows:
                tables.append(t)
    return tables


def _config(
    release: Release,
    models: Sequence[str],
    run_file: Path | None,
    run_facet: str | None,
    systems: Sequence[System],
    unranked: str,
) -> dict:
    return {
        "benchmark": "CSFCube",
        "data": str(release.directory),
        "models": list(models),
        "run_file": None if run_file is None else str(run_file),
        "run_facet": run_facet,
        "systems": {s.name: s.description for s in systems},
        "protocol": {
            "source": SOURCE,
            "split": f"test: mean over {' and '.join(FOLDS)} of the per-fold means",
            "relevance": f"relevance_adju, grades 0-3; relevant means grade >= {THRESHOLD}",
            "conventions": {
                OFFICIAL: "rank_metrics: linear gains, ranks 1-2 undiscounted then 1/log2(r), "
                "ideal from the pool; R-Prec = precision at the last relevant rank",
                TREC: "citegraph.evaluation.metrics.evaluate: " + ", ".join(TREC_MEASURES.values()),
            },
            "unranked": (
                "pool members a ranking leaves out are not scored (the official script)"
                if unranked == "official"
                else "pool members a ranking leaves out follow it in id order (citegraph's policy)"
            )
            + "; see per_query.*.unranked",
        },
        "queries": {
            q.qid: {
                "facet": q.facet,
                "title": q.title,
                "year": q.year,
                "paper_type": q.paper_type,
                "pool": len(release.pools[q.qid].candidates),
                "relevant": release.pools[q.qid].relevant,
            }
            for q in release.queries.values()
        },
    }


def _write_runs(folder: Path, scored: Sequence[Scored]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for s in scored:
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", s.system.name).strip("_")
        write_run(folder / f"{name}.run", s.rankings, name)
