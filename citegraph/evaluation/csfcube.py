"""CSFCube (Mysore et al. 2021): faceted query by example, scored as the authors score it.

A query is a paper with a facet (background, method or result); each query's annotated
candidates are reranked and graded 0–3 by the adjudicated judgements. This module reads
the official release, puts each query to a ranker, and scores the rankings with the
official protocol, so our numbers compare with the paper's Table 3.

**The release** (``https://github.com/iesl/CSFCube``): ``abstracts-csfcube-preds.jsonl``
(paper_id, title, abstract as a list of sentences, ``pred_labels`` one per sentence),
``queries-release.csv`` (pid, facet, year, title, paper type), ``test-pid2anns-csfcube-
<facet>.json`` (per query pid its candidates ``cands`` and the adjudicated grades
``relevance_adju``; the annotators' own grades are ignored) and ``evaluation_splits.json``
(per facet and for ``all``, the query ids ``<pid>_<facet>`` of ``fold{1,2}_{dev,test}``).
The pool a query reranks is its annotated ``cands``: Aspire's rankers read them
(``get_test_pool`` in allenai/aspire ``src/evaluation/utils/datasets.py``) and the official
script looks every ranked id up in them. ``test-pid2pool-csfcube.json`` records how the
pools were gathered ("to facilitate further analysis", says the README) and is not read.

**Queries.** A query's facet sentences are those whose ``pred_labels`` name the facet,
``objective_label`` counting as background: the paper merged the two before annotation
and Aspire's ``pp_gen_nearest.py`` maps one to the other the same way. Candidates are
whole papers (title and every sentence). Rankers, by name:

* ``bm25`` (``bm25:lucene``, ``bm25:bm25s`` to choose the backend): the facet sentences
  against whole candidates, the paper's ``fabs_bm25``; one index over every candidate of
  the release (a temporary folder unless ``work`` is given).
* an encoder name (``minilm``, ``specter``, ``hf:<model>``): the whole query paper against
  whole candidates, as the paper's SPECTER baselines, which are not faceted; candidates
  are encoded once (cached under ``work/embeddings``).
* ``<encoder>:facet``: the facet sentences, as one text, against the same vectors. (A
  multi-vector encoder, e.g. ``aspire-cs``, scores by the best pair of its contextual
  sentence vectors in both modes, as citegraph's dense retriever does.)
* ``<encoder>:maxsim``: each facet sentence and each candidate sentence encoded on its
  own, a candidate scored by its best pair (the paper's SentBERT baselines), with the
  encoder's similarity.

Sentences keep the release's segmentation: a paper's abstract is its sentences joined by
newlines (whitespace inside a sentence is collapsed), which BM25 and the encoders read as
spaces and :class:`SentenceMaxSim` splits again.

**Measures, as ``eval_scripts/ranking_eval.py``** of the release computes them with
``rank_metrics`` (bwhite's gist, the copy in allenai/aspire ``src/evaluation/
rank_metrics.py``), from the grades of the whole pool in ranked order (:func:`official`):

* relevant means grade ≥ 2 (``threshold_grade=2``) for R-Prec, P@20 and R@20;
* NDCG uses the grades as gains (linear, not 2^g − 1) with ``ndcg_at_k``'s default
  discount: ranks 1 and 2 count fully, rank r > 2 by 1/log2(r); the ideal ranking sorts
  the pool's grades. NDCG is over the whole pool, NDCG@20 over 20 ranks and NDCG%20 over
  ``int(0.2 × pool size)`` ranks (0 ranks, so 0, for pools under 5);
* R-Prec is ``r_precision``: the precision at the rank of the last relevant candidate,
  not the precision at rank R;
* P@20 divides by 20; the script raises for pools under 20, which the release has none of;
* R@20 is the relevant share of the top 20 among all relevant candidates (0 without any).

The same rankings are also scored with citegraph's :func:`~.metrics.evaluate`
(trec_eval's definitions: discount 1/log2(r + 1), ideal from the judgements,
``Rprec(rel=2)`` = precision at rank R, NDCG%20 cut at least 1), to compare with the
other benchmarks; the two are reported apart as ``official`` and ``trec_eval``.

**Averaging**, as ``aggregate_metrics_crossval(split_str="test")``: per facet, the mean
over ``fold1_test``'s queries and the mean over ``fold2_test``'s, then the mean of the
two (the folds differ in size, so this is not the mean over queries); ``all`` does the
same with the splits' ``all`` lists. Every listed query counts, as in the script:
metrics.evaluate skips queries without any positive grade, which count 0 (what the official
definitions give them). The dev splits serve tuning; nothing is tuned here.

**Rankings.** Ties are broken by id (the script keeps the pool order on ties). A ranker
that leaves candidates out (BM25 drops candidates sharing no term with the query) has
them appended in id order, so both conventions score one complete ranking of the pool; a
query without any ranking scores 0. An external TREC run (``qid Q0 doc rank score tag``)
is ranked by its scores, as trec_eval does; a qid is ``<pid>_<facet>``, or a bare pid when
``run_facet`` names the facet of every line (the run is then scored on that facet only);
hits outside a query's pool are dropped as for every pooled ranker.

Each evaluation writes ``results.json`` (configuration, tables, every per-query value),
``results.csv``, ``results.md`` and ``runs/<system>.run`` (each system's rankings, TREC).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import re
import statistics
import tempfile
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import CitegraphError, InputError, Location, Problem
from ..ingest.source import BadField, integer, json_objects, table, text
from ..retrieval.base import Document, Hit, Query, Ranking, Retriever, rank
from .metrics import evaluate
from .report import Table, write_results
from .scorers import RunFile, write_run

if TYPE_CHECKING:
    from ..retrieval.encoders import Encoder

FACETS = ("background", "method", "result")
ALL = "all"
FOLDS = ("fold1_test", "fold2_test")
THRESHOLD = 2  # grades ≥ 2 are relevant for R-Prec, P@20 and R@20
AT = 20
PERCENT = 20
MEASURES = ("R-Prec", "P@20", "R@20", "NDCG", "NDCG@20", "NDCG%20")
OFFICIAL, TREC = "official", "trec_eval"
#: metrics.evaluate's names for the same measures, with CSFCube's relevance threshold
TREC_MEASURES = {"R-Prec": f"Rprec(rel={THRESHOLD})", "P@20": f"P(rel={THRESHOLD})@{AT}",
                 "R@20": f"R(rel={THRESHOLD})@{AT}", "NDCG": "nDCG", "NDCG@20": f"nDCG@{AT}",
                 "NDCG%20": f"NDCG%{PERCENT}"}
PAPERS = "abstracts-csfcube-preds.jsonl"
QUERIES = "queries-release.csv"
SPLITS = "evaluation_splits.json"
QUERY_COLUMNS = ["pid", "facet", "year", "title", "paper type"]
BM25_BACKENDS = ("lucene", "bm25s")
ENCODER_MODES = ("facet", "maxsim")
SOURCE = ("iesl/CSFCube eval_scripts/ranking_eval.py (rank_metrics as in allenai/aspire "
          "src/evaluation/rank_metrics.py); folds per the release's datasheet.md")


def annotations_file(facet: str) -> str:
    return f"test-pid2anns-csfcube-{facet}.json"


# -- the release ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Paper:
    """A paper of the release: its sentences and their predicted facet labels."""

    id: str
    title: str
    sentences: tuple[str, ...]
    labels: tuple[str, ...]  # empty when the record has no pred_labels
    year: int | None
    where: Location

    def document(self) -> Document:
        """Title and every sentence, one sentence per line."""
        return Document(self.id, self.title, "\n".join(s for s in self.sentences if s))

    def facet_sentences(self, facet: str) -> tuple[str, ...]:
        """The sentences labelled with ``facet``; objective sentences are background."""
        wanted = {f"{facet}_label"} | ({"objective_label"} if facet == "background" else set())
        return tuple(s for s, label in zip(self.sentences, self.labels) if label in wanted and s)


@dataclass(frozen=True, slots=True)
class FacetQuery:
    """A row of queries-release.csv: a paper asked about one facet."""

    pid: str
    facet: str
    title: str
    year: int | None
    paper_type: str

    @property
    def qid(self) -> str:
        return f"{self.pid}_{self.facet}"


@dataclass(frozen=True, slots=True)
class Judged:
    """A query's annotated pool: candidates and their adjudicated grades, in file order."""

    candidates: tuple[str, ...]
    grades: tuple[int, ...]

    @property
    def qrels(self) -> dict[str, int]:
        return dict(zip(self.candidates, self.grades))

    @property
    def relevant(self) -> int:
        return sum(g >= THRESHOLD for g in self.grades)


@dataclass(frozen=True)
class Release:
    """Everything evaluation needs from a CSFCube folder, checked for consistency."""

    directory: Path
    papers: dict[str, Paper]
    queries: dict[str, FacetQuery]  # qid → query, the annotated ones
    pools: dict[str, Judged]  # qid → annotated pool
    splits: dict[str, dict[str, tuple[str, ...]]]  # facet or "all" → split → qids

    def facet_text(self, query: FacetQuery) -> str:
        """The query's facet sentences, one per line."""
        return "\n".join(self.papers[query.pid].facet_sentences(query.facet))

    def whole_paper(self, query: FacetQuery) -> Document:
        return self.papers[query.pid].document()

    def candidate_documents(self) -> list[Document]:
        """Every paper that is a candidate of some query, by id."""
        ids = sorted({c for pool in self.pools.values() for c in pool.candidates})
        return [self.papers[i].document() for i in ids]

    def facet_queries(self, facets: Sequence[str]) -> list[FacetQuery]:
        return [q for q in self.queries.values() if q.facet in facets]


def read_release(directory: str | Path) -> Release:
    """Read and cross-check a CSFCube release folder; bad input raises an :class:`InputError`."""
    directory = Path(directory)
    papers = _read_papers(_need(directory / PAPERS))
    listed = _read_queries(_need(directory / QUERIES), papers)
    queries: dict[str, FacetQuery] = {}
    pools: dict[str, Judged] = {}
    for facet in FACETS:
        for pid, judged in _read_annotations(_need(directory / annotations_file(facet)), facet, listed, papers).items():
            queries[f"{pid}_{facet}"] = listed[(pid, facet)]
            pools[f"{pid}_{facet}"] = judged
    splits = _read_splits(_need(directory / SPLITS), queries)
    return Release(directory, papers, queries, pools, splits)


def _need(path: Path) -> Path:
    if not path.is_file():
        raise CitegraphError(f"{path} is missing (a CSFCube release folder holds {PAPERS}, {QUERIES}, "
                             f"{', '.join(annotations_file(f) for f in FACETS)} and {SPLITS})")
    return path


def _fail(path: Path, line: int, field_name: str | None, reason: str) -> InputError:
    return InputError(Problem(Location(path, line), field_name, reason))


def _read_papers(path: Path) -> dict[str, Paper]:
    papers: dict[str, Paper] = {}
    for where, value in json_objects(path):
        if isinstance(value, Problem):
            raise InputError(value)
        try:
            paper = _paper(value, where)
            if paper.id in papers:
                raise BadField("paper_id", f"{paper.id} was already read at line {papers[paper.id].where.line}")
        except BadField as bad:
            raise InputError(Problem(where, bad.field, bad.reason)) from None
        papers[paper.id] = paper
    return papers


def _paper(row: Mapping[str, Any], where: Location) -> Paper:
    sentences = _string_list(row, "abstract", required=True)
    if not sentences:
        raise BadField("abstract", "has no sentences")
    labels = _string_list(row, "pred_labels", required=False)
    if labels and len(labels) != len(sentences):
        raise BadField("pred_labels", f"has {len(labels)} labels for {len(sentences)} sentences")
    return Paper(text(row, "paper_id", required=True), text(row, "title") or "",
                 tuple(" ".join(s.split()) for s in sentences), labels, integer(row, "year"), where)


def _string_list(row: Mapping[str, Any], name: str, required: bool) -> tuple[str, ...]:
    """A list of strings kept whole and in place (sentences and labels must stay aligned)."""
    value = row.get(name)
    if value is None:
        if required:
            raise BadField(name, "is missing")
        return ()
    if not isinstance(value, list):
        raise BadField(name, f"expected a list of strings, got {type(value).__name__}")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise BadField(f"{name}[{i}]", f"expected a string, got {'null' if item is None else type(item).__name__}")
    return tuple(value)


def _read_queries(path: Path, papers: Mapping[str, Paper]) -> dict[tuple[str, str], FacetQuery]:
    queries: dict[tuple[str, str], FacetQuery] = {}
    for where, row in table(path, QUERY_COLUMNS, {"delimiter": ",", "strict": True}):
        if isinstance(row, Problem):
            raise InputError(row)
        try:
            query = _query(row, papers)
            if (query.pid, query.facet) in queries:
                raise BadField("pid", f"{query.qid} is listed twice")
        except BadField as bad:
            raise InputError(Problem(where, bad.field, bad.reason)) from None
        queries[(query.pid, query.facet)] = query
    return queries


def _query(row: Mapping[str, str], papers: Mapping[str, Paper]) -> FacetQuery:
    pid, facet = text(row, "pid", required=True), text(row, "facet", required=True)
    if facet not in FACETS:
        raise BadField("facet", f"expected one of {', '.join(FACETS)}, got {facet!r}")
    if pid not in papers:
        raise BadField("pid", f"paper {pid} is not in {PAPERS}")
    return FacetQuery(pid, facet, text(row, "title") or "", integer(row, "year"), text(row, "paper type") or "")


def _load_json(path: Path) -> tuple[Any, str]:
    """A whole JSON file and its text (to find the line of a key for error messages)."""
    content = path.read_text(encoding="utf-8")
    try:
        value = json.loads(content)
    except json.JSONDecodeError as exc:
        raise _fail(path, exc.lineno, None, f"malformed JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(value, dict):
        raise _fail(path, 1, None, f"expected a JSON object, got {type(value).__name__}")
    return value, content


def _line(content: str, needle: str, start: int = 0) -> int:
    """The 1-based line of the first ``"needle"`` at or after ``start`` (1 when absent)."""
    found = content.find(json.dumps(needle), start)
    return content.count("\n", 0, found) + 1 if found >= 0 else 1


def _read_annotations(path: Path, facet: str, queries: Mapping[tuple[str, str], FacetQuery],
                      papers: Mapping[str, Paper]) -> dict[str, Judged]:
    value, content = _load_json(path)
    judged: dict[str, Judged] = {}
    for pid, entry in value.items():
        try:
            judged[pid] = _judged(pid, entry, facet, queries, papers)
        except BadField as bad:
            raise _fail(path, _line(content, pid), bad.field, bad.reason) from None
    return judged


def _judged(pid: str, entry: Any, facet: str, queries: Mapping[tuple[str, str], FacetQuery],
            papers: Mapping[str, Paper]) -> Judged:
    if (pid, facet) not in queries:
        raise BadField(pid, f"query {pid}_{facet} is not in {QUERIES}")
    if not isinstance(entry, dict):
        raise BadField(pid, f"expected an object with cands and relevance_adju, got {type(entry).__name__}")
    candidates = _string_list(entry, "cands", required=True)
    grades = entry.get("relevance_adju")
    if not isinstance(grades, list) or len(grades) != len(candidates):
        raise BadField(f"{pid}.relevance_adju", f"expected a list of {len(candidates)} grades, one per candidate")
    for i, (candidate, grade) in enumerate(zip(candidates, grades)):
        if isinstance(grade, bool) or not isinstance(grade, int) or not 0 <= grade <= 3:
            raise BadField(f"{pid}.relevance_adju[{i}]", f"expected a grade 0-3, got {grade!r}")
        if candidate not in papers:
            raise BadField(f"{pid}.cands[{i}]", f"paper {candidate} is not in {PAPERS}")
    if len(set(candidates)) != len(candidates):
        raise BadField(f"{pid}.cands", "lists a candidate twice")
    paper = papers[pid]
    if not paper.facet_sentences(facet):
        raise InputError(Problem(paper.where, "pred_labels", f"no sentence is labelled {facet}, "
                                                             f"but {pid}_{facet} is a query"))
    return Judged(candidates, tuple(grades))


def _read_splits(path: Path, queries: Mapping[str, FacetQuery]) -> dict[str, dict[str, tuple[str, ...]]]:
    value, content = _load_json(path)
    splits: dict[str, dict[str, tuple[str, ...]]] = {}
    for facet in (*FACETS, ALL):
        entry = value.get(facet)
        start = max(content.find(json.dumps(facet)), 0)
        if not isinstance(entry, dict):
            raise _fail(path, _line(content, facet), facet, "is missing" if entry is None else "expected an object")
        splits[facet] = {}
        for split, qids in entry.items():
            where = f"{facet}.{split}"
            if not isinstance(qids, list) or not all(isinstance(q, str) for q in qids):
                raise _fail(path, _line(content, split, start), where, "expected a list of query ids")
            for qid in qids:
                if qid not in queries or (facet != ALL and queries[qid].facet != facet):
                    raise _fail(path, _line(content, qid, start), where,
                                f"{qid} is not an annotated {'' if facet == ALL else facet + ' '}query")
            splits[facet][split] = tuple(qids)
        for fold in FOLDS:
            if not splits[facet].get(fold):
                raise _fail(path, _line(content, facet), f"{facet}.{fold}", "is missing or empty")
    return splits


# -- rankers ---------------------------------------------------------------------------
def _lines(query: Query) -> list[str]:
    """A query's sentences: the lines of a text, or of a paper's abstract (else its title)."""
    body = query if isinstance(query, str) else query.abstract or query.title
    return [line for line in body.split("\n") if line.strip()]


class SentenceMaxSim:
    """Sentence-level maximum similarity: every sentence encoded on its own.

    A candidate's score is its best sentence pair with the query under the encoder's
    similarity (:func:`~citegraph.retrieval.encoders.maxsim`), as the CSFCube paper scores
    SentBERT. Candidate sentences are encoded once, when the scorer is built.
    """

    def __init__(self, encoder: Encoder, docs: Sequence[Document]):
        self.encoder = encoder
        self.name = f"{encoder.name}:maxsim"
        self._vectors = dict(zip((d.id for d in docs), self._encode([_lines(d) for d in docs])))

    def _encode(self, groups: list[list[str]]) -> list[np.ndarray]:
        """One matrix of sentence vectors per group of sentences, in one encoding call.

        A title-only document is encoded as its one sentence, alone; a sentence without
        any token gets no vector.
        """
        flat = [Document(str(i), s) for i, s in enumerate(s for group in groups for s in group)]
        rows = self.encoder.encode_sentences(flat)
        bounds = np.cumsum([0, *map(len, groups)])
        empty = np.zeros((0, self.encoder.dim), dtype=np.float32)
        return [np.concatenate(rows[a:b]) if b > a else empty for a, b in itertools.pairwise(bounds)]

    def search(self, queries: Sequence[Query], k: int,
               pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        from ..retrieval.encoders import maxsim

        rankings = []
        for i, query in enumerate(self._encode([_lines(q) for q in queries])):
            ids = [c for c in (pools[i] if pools is not None else self._vectors) if c in self._vectors]
            scores = maxsim(query, [self._vectors[c] for c in ids], self.encoder.spec.similarity)
            rankings.append(rank(dict(zip(ids, scores.tolist())), k))
        return rankings


@dataclass(frozen=True)
class System:
    """A ranker and how a CSFCube query is put to it."""

    name: str
    retriever: Retriever
    ask: Callable[[FacetQuery], Query]
    description: str
    facets: tuple[str, ...] = FACETS


def _parse(spec: str) -> tuple[str, str]:
    """``(base name, mode)`` of a model name such as ``bm25:bm25s`` or ``hf:dir:maxsim``."""
    head, _, tail = spec.rpartition(":")
    if (head == "bm25" and tail in BM25_BACKENDS) or (head not in ("", "bm25") and tail in ENCODER_MODES):
        return head, tail
    if spec.startswith("bm25:"):
        raise CitegraphError(f"unknown BM25 variant {spec!r}: use bm25, bm25:lucene or bm25:bm25s")
    return spec, ""


def build_systems(release: Release, models: Sequence[str], work: Path) -> list[System]:
    """The rankers named by ``models`` over the release's candidates (see the module doc)."""
    from ..retrieval import index_dir
    from ..retrieval.bm25 import build_bm25, read_manifest
    from ..retrieval.dense import build_dense
    from ..retrieval.encoders import get_encoder

    docs = release.candidate_documents()
    encoders: dict[str, Encoder] = {}
    dense: dict[str, Retriever] = {}
    systems = []
    for spec in models:
        base, mode = _parse(spec)
        if base == "bm25":
            folder = work / spec.replace(":", "-")  # bm25 and bm25:bm25s may be compared in one run
            retriever = build_bm25(docs, folder, backend=mode or None)
            backend = read_manifest(folder)["backend"]
            systems.append(System(spec, retriever, release.facet_text,
                                  f"BM25 ({backend}): facet sentences vs whole candidates"))
            continue
        if base not in encoders:
            encoders[base] = get_encoder(base)
        encoder = encoders[base]
        if mode == "maxsim":
            systems.append(System(spec, SentenceMaxSim(encoder, docs), release.facet_text,
                                  f"{base}: best pair of facet sentence and candidate sentence, each encoded alone"))
            continue
        if base not in dense:
            dense[base] = build_dense(docs, encoder, index_dir(work, base), work / "embeddings")
        if mode == "facet":
            systems.append(System(spec, dense[base], release.facet_text,
                                  f"{base}: facet sentences as one text vs whole candidates"))
        else:
            systems.append(System(spec, dense[base], release.whole_paper,
                                  f"{base}: whole query paper vs whole candidates (not faceted)"))
    return systems


def run_system(release: Release, path: Path, facet: str | None = None) -> System:
    """An external TREC run as a system; qids ``<pid>_<facet>``, or pids of ``facet``."""
    if facet is not None and facet not in FACETS:
        raise CitegraphError(f"run facet must be one of {', '.join(FACETS)}, not {facet!r}")
    run = RunFile(Path(path))
    facets = FACETS if facet is None else (facet,)
    expected = {q.qid if facet is None else q.pid for q in release.facet_queries(facets)}
    unknown = sorted(set(run.rankings) - expected)
    if unknown:
        form = f"pids of {facet} queries" if facet else "'<pid>_<facet>' of annotated queries (or give the facet)"
        raise CitegraphError(f"{path}: {len(unknown)} query id(s) are not {form}, e.g. {', '.join(unknown[:3])}")
    ask = (lambda q: Document(q.qid, "")) if facet is None else (lambda q: Document(q.pid, ""))
    return System(run.name, run, ask, f"TREC run {path}" + (f" ({facet} queries by pid)" if facet else ""), facets)


# -- scoring ---------------------------------------------------------------------------
def _dcg(gains: Sequence[int], k: int) -> float:
    """rank_metrics.dcg_at_k(method=0): ranks 1 and 2 undiscounted, rank r by 1/log2(r)."""
    return sum(g / math.log2(max(r, 2)) for r, g in enumerate(gains[:k], start=1))


def _ndcg(grades: Sequence[int], k: int) -> float:
    ideal = _dcg(sorted(grades, reverse=True), k)
    return _dcg(grades, k) / ideal if ideal else 0.0


def official(grades: Sequence[int]) -> dict[str, float]:
    """The official measures of one query from the grades of its whole pool in ranked order."""
    relevant = [g >= THRESHOLD for g in grades]
    total = sum(relevant)
    last = max((r for r, rel in enumerate(relevant, start=1) if rel), default=0)
    return {"R-Prec": total / last if total else 0.0,
            "P@20": sum(relevant[:AT]) / AT,
            "R@20": sum(relevant[:AT]) / total if total else 0.0,
            "NDCG": _ndcg(grades, len(grades)),
            "NDCG@20": _ndcg(grades, AT),
            "NDCG%20": _ndcg(grades, int(PERCENT / 100 * len(grades)))}


def complete(ranking: Ranking, pool: Sequence[str]) -> list[str]:
    """The ranked ids, then the pool's candidates the ranking left out, in id order."""
    ranked = [hit.id for hit in ranking]
    if not ranked:
        return []  # no answer at all scores 0, as metrics.evaluate scores it
    seen = set(ranked)
    return ranked + sorted(c for c in pool if c not in seen)


@dataclass(frozen=True)
class Scored:
    """A system's rankings and per-query values (convention → measure → qid → value)."""

    system: System
    rankings: dict[str, Ranking]
    per_query: dict[str, dict[str, dict[str, float]]]
    unranked: dict[str, int]  # qid → pool candidates the ranking left out


def score_system(release: Release, system: System) -> Scored:
    """Rank each query's pool with ``system`` and score it both ways."""
    queries = release.facet_queries(system.facets)
    pools = [release.pools[q.qid].candidates for q in queries]
    found = system.retriever.search([system.ask(q) for q in queries], max(map(len, pools)),
                                    [frozenset(p) for p in pools])
    rankings = {q.qid: ranking for q, ranking in zip(queries, found)}
    orders = {q.qid: complete(r, pool) for q, r, pool in zip(queries, found, pools)}
    unranked = {q.qid: len(pool) - len(r) for q, r, pool in zip(queries, found, pools) if len(r) < len(pool)}
    return Scored(system, rankings, {OFFICIAL: _official(release, orders), TREC: _trec(release, orders)}, unranked)


def _official(release: Release, orders: Mapping[str, list[str]]) -> dict[str, dict[str, float]]:
    values = {q: official([release.pools[q].qrels[c] for c in order]) for q, order in orders.items()}
    return {m: {q: v[m] for q, v in values.items()} for m in MEASURES}


def _trec(release: Release, orders: Mapping[str, list[str]]) -> dict[str, dict[str, float]]:
    """metrics.evaluate on the same complete rankings; queries it skips (no positive grade) are 0."""
    run = {q: [Hit(c, float(len(order) - i)) for i, c in enumerate(order)] for q, order in orders.items()}
    qrels = {q: release.pools[q].qrels for q in orders}
    sizes = {q: len(release.pools[q].candidates) for q in orders}
    result = evaluate(qrels, run, list(TREC_MEASURES.values()), depth=max(sizes.values()), pool_sizes=sizes)
    return {m: {q: result.per_query[name].get(q, 0.0) for q in orders} for m, name in TREC_MEASURES.items()}


def fold_mean(values: Mapping[str, float], folds: Mapping[str, Sequence[str]]) -> float:
    """The mean over each test fold's queries, then over the folds (the official aggregation)."""
    return statistics.mean(statistics.mean(values.get(q, 0.0) for q in folds[fold]) for fold in FOLDS)


def summarise(release: Release, scored: Scored) -> dict[str, dict[str, dict[str, float]]]:
    """convention → facet (and ``all`` when every facet was ranked) → measure → fold mean."""
    facets = [*scored.system.facets, *([ALL] if scored.system.facets == FACETS else [])]
    return {convention: {facet: {m: fold_mean(values[m], release.splits[facet]) for m in MEASURES}
                         for facet in facets}
            for convention, values in scored.per_query.items()}


# -- the evaluation ----------------------------------------------------------------------
def run_csfcube(data_dir: Path, models: list[str], out: Path, *, run_file: Path | None = None,
                run_facet: str | None = None, work: Path | None = None) -> dict:
    """Evaluate ``models`` (and a TREC ``run_file``) on the release in ``data_dir``.

    Writes ``results.json``, ``results.csv``, ``results.md`` and ``runs/`` to ``out``;
    indexes and embedding caches go to ``work`` (a temporary folder when None). Returns
    the configuration, the summaries (system → convention → facet → measure), the
    per-query values and the tables.
    """
    release = read_release(data_dir)
    if not models and run_file is None:
        raise CitegraphError("nothing to evaluate: name models, a run file, or both")
    if run_facet is not None and run_file is None:
        raise CitegraphError("a run facet needs a run file")
    run = [] if run_file is None else [run_system(release, run_file, run_facet)]  # checked before any encoding
    _check_names([*models, *(s.name for s in run)])
    with contextlib.ExitStack() as stack:
        folder = Path(work) if work else Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="csfcube-")))
        systems = [*build_systems(release, models, folder), *run]
        scored = [score_system(release, s) for s in systems]
    summaries = {s.system.name: summarise(release, s) for s in scored}
    tables = _tables(summaries)
    per_query = {s.system.name: {**s.per_query, "unranked": s.unranked} for s in scored}
    config = _config(release, models, run_file, run_facet, systems)
    out = Path(out)
    write_results(out, config, tables, per_query)
    _write_runs(out / "runs", scored)
    return {"config": config, "summary": summaries, "per_query": per_query, "tables": tables}


def _check_names(names: Sequence[str]) -> None:
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise CitegraphError(f"two systems are named {', '.join(twice)}; rename the run file or drop the model")


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


def _config(release: Release, models: Sequence[str], run_file: Path | None, run_facet: str | None,
            systems: Sequence[System]) -> dict:
    return {
        "benchmark": "CSFCube", "data": str(release.directory), "models": list(models),
        "run_file": None if run_file is None else str(run_file), "run_facet": run_facet,
        "systems": {s.name: s.description for s in systems},
        "protocol": {"source": SOURCE, "split": f"test: mean over {' and '.join(FOLDS)} of the per-fold means",
                     "relevance": f"relevance_adju, grades 0-3; relevant means grade >= {THRESHOLD}",
                     "conventions": {OFFICIAL: "rank_metrics: linear gains, ranks 1-2 undiscounted then 1/log2(r), "
                                               "ideal from the pool; R-Prec = precision at the last relevant rank",
                                     TREC: "citegraph.evaluation.metrics.evaluate: "
                                           + ", ".join(TREC_MEASURES.values())},
                     "unranked": "candidates a ranking leaves out follow it in id order; see per_query.*.unranked"},
        "queries": {q.qid: {"facet": q.facet, "title": q.title, "year": q.year, "paper_type": q.paper_type,
                            "pool": len(release.pools[q.qid].candidates), "relevant": release.pools[q.qid].relevant}
                    for q in release.queries.values()},
    }


def _write_runs(folder: Path, scored: Sequence[Scored]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for s in scored:
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", s.system.name).strip("_")
        write_run(folder / f"{name}.run", s.rankings, name)
