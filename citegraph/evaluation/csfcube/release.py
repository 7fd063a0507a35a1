"""The CSFCube release (Mysore et al. 2021, ``https://github.com/iesl/CSFCube``), read and cross-checked.

``abstracts-csfcube-preds.jsonl`` (paper_id, title, abstract as a list of sentences,
``pred_labels`` one per sentence), ``queries-release.csv`` (pid, facet, year, title, paper
type), ``test-pid2anns-csfcube-<facet>.json`` (per query pid its candidates ``cands`` and
the adjudicated grades ``relevance_adju``; the annotators' own grades are ignored) and
``evaluation_splits.json`` (per facet and for ``all``, the query ids ``<pid>_<facet>`` of
``fold{1,2}_{dev,test}``). The pool a query reranks is its annotated ``cands``: Aspire's
rankers read them (``get_test_pool`` in allenai/aspire ``src/evaluation/utils/datasets.py``)
and the official script looks every ranked id up in them. ``test-pid2pool-csfcube.json``
records how the pools were gathered ("to facilitate further analysis", says the README)
and is not read.

A query's facet sentences are those whose ``pred_labels`` name the facet,
``objective_label`` counting as background: the paper merged the two before annotation
and Aspire's ``pp_gen_nearest.py`` maps one to the other the same way. Sentences keep the
release's segmentation: a paper's abstract is its sentences joined by newlines (whitespace
inside a sentence is collapsed). Bad input raises an :class:`InputError` naming file,
line and field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import CitegraphError, InputError, Location, Problem
from ...ingest.source import BadField, integer, json_error, json_objects, table, text
from ...retrieval.base import Document

FACETS = ("background", "method", "result")
ALL = "all"
FOLDS = ("fold1_test", "fold2_test")
THRESHOLD = 2  # grades ≥ 2 are relevant (R-Prec, P@20, R@20, and a pool's count of relevant)
PAPERS = "abstracts-csfcube-preds.jsonl"
QUERIES = "queries-release.csv"
SPLITS = "evaluation_splits.json"
QUERY_COLUMNS = ["pid", "facet", "year", "title", "paper type"]


def annotations_file(facet: str) -> str:
    return f"test-pid2anns-csfcube-{facet}.json"


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
        raise CitegraphError(
            f"{path} is missing (a CSFCube release folder holds {PAPERS}, {QUERIES}, "
            f"{', '.join(annotations_file(f) for f in FACETS)} and {SPLITS})"
        )
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
    return Paper(
        text(row, "paper_id", required=True),
        text(row, "title") or "",
        tuple(" ".join(s.split()) for s in sentences),
        labels,
        _year(row),
        where,
    )


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
    return FacetQuery(pid, facet, text(row, "title") or "", _year(row), text(row, "paper type") or "")


def _year(row: Mapping[str, Any]) -> int | None:
    """The year, kept for the record only (scoring never reads it): the release writes some
    as the string "None", so whatever is not a year is read as none rather than refused."""
    try:
        return integer(row, "year")
    except BadField:
        return None


def _load_json(path: Path) -> tuple[Any, str]:
    """A whole JSON file and its text (to find the line of a key for error messages)."""
    content = path.read_text(encoding="utf-8")
    try:
        value = json.loads(content)
    except json.JSONDecodeError as exc:
        raise _fail(path, exc.lineno, None, f"malformed JSON: {json_error(exc)}") from None
    if not isinstance(value, dict):
        raise _fail(path, 1, None, f"expected a JSON object, got {type(value).__name__}")
    return value, content


def _line(content: str, needle: str, start: int = 0) -> int:
    """The 1-based line of the first ``"needle"`` at or after ``start`` (1 when absent)."""
    found = content.find(json.dumps(needle), start)
    return content.count("\n", 0, found) + 1 if found >= 0 else 1


def _read_annotations(
    path: Path, facet: str, queries: Mapping[tuple[str, str], FacetQuery], papers: Mapping[str, Paper]
) -> dict[str, Judged]:
    value, content = _load_json(path)
    judged: dict[str, Judged] = {}
    for pid, entry in value.items():
        try:
            judged[pid] = _judged(pid, entry, facet, queries, papers)
        except BadField as bad:
            raise _fail(path, _line(content, pid), bad.field, bad.reason) from None
    return judged


def _judged(
    pid: str, entry: Any, facet: str, queries: Mapping[tuple[str, str], FacetQuery], papers: Mapping[str, Paper]
) -> Judged:
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
        raise InputError(
            Problem(paper.where, "pred_labels", f"no sentence is labelled {facet}, but {pid}_{facet} is a query")
        )
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
                    raise _fail(
                        path,
                        _line(content, qid, start),
                        where,
                        f"{qid} is not an annotated {'' if facet == ALL else facet + ' '}query",
                    )
            splits[facet][split] = tuple(qids)
        for fold in FOLDS:
            if not splits[facet].get(fold):
                raise _fail(path, _line(content, facet), f"{facet}.{fold}", "is missing or empty")
    return splits
