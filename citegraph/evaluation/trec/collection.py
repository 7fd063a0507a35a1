"""TREC-style test collections: topics in, runs out, and a scored table of any collection.

**Topics** come in three shapes, told apart by the file:

* TREC topic files: classic SGML (``<top> <num> Number: 401 <title> … <desc>
  Description: … <narr> Narrative: … </top>``, tags left open) or the XML of later
  tracks (``<topic number="1"><query>…</query><question>…</question>…</topic>``);
  ``field`` picks the text: ``title`` (also ``<query>``), ``desc`` (``<description>``,
  ``<question>``), ``narr`` (``<narrative>``), or several joined with ``+``;
* TSV, ``qid<TAB>text`` a line (MS MARCO, BEIR's queries.tsv);
* JSONL, one object a line: the id in ``id``, ``qid``, ``_id`` or ``query_id``; the text
  in ``field`` when given, else ``text``, ``query`` or ``title``.

Bad input is a :class:`~citegraph.errors.InputError` naming file, line and field. A topic id
given twice (real collections have one, with two texts) is read as Anserini reads topics,
into a map where the later text wins, and scored once, as trec_eval scores per id: with a
warning naming both lines; ``on_duplicate`` keeps the first instead, or makes it an error.

**Ids** are compared case-insensitively where their scheme says so: a DOI (``10.…``)
in the qrels matches the same DOI in a run whatever the letters' case (publishers write
``10.1023/A:…``, others ``10.1023/a:…``); :func:`comparable` is applied to both sides
before scoring, and runs keep the spelling of the graph.
"""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ...errors import CitegraphError, InputError, Location, Problem
from ...retrieval.base import Document, Hit, Ranking, Retriever
from ..harness import Log, Scores, quiet
from ..metrics import DEPTH, Evaluation, compare, evaluate
from ..report import Table
from ..scorers import write_run

FIELDS = {"title": ("title", "query"), "desc": ("desc", "description", "question"), "narr": ("narr", "narrative")}
_ID_KEYS = ("id", "qid", "_id", "query_id")
_TEXT_KEYS = ("text", "query", "title")
_TOP = re.compile(r"<top>(.*?)</top>", re.S | re.I)
_TOPIC = re.compile(r"<topic\b([^>]*)>(.*?)</topic>", re.S | re.I)
_NUMBER = re.compile(r"""\bnumber\s*=\s*["']?([^"'\s>]+)""", re.I)
_LABEL = re.compile(r"^\s*(?:number|description|narrative|title|topic)\s*:\s*", re.I)


@dataclass(frozen=True, slots=True)
class Topic:
    id: str
    text: str
    where: Location | None = None


def _clean(text: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", text)).split())


def _line(content: str, offset: int) -> int:
    return content.count("\n", 0, offset) + 1


def _sgml_fields(body: str) -> dict[str, str]:
    """``<tag> text`` sections of a classic TREC topic (tags need not be closed)."""
    parts = re.split(r"<\s*(/?)\s*([a-z]+)\s*>", body, flags=re.I)
    fields: dict[str, str] = {}
    for i in range(1, len(parts) - 2, 3):
        closing, tag, text = parts[i], parts[i + 1].lower(), parts[i + 2]
        if not closing:
            fields.setdefault(tag, _clean(_LABEL.sub("", text)))
    return fields


def _xml_fields(body: str) -> dict[str, str]:
    return {tag.lower(): _clean(text) for tag, text in re.findall(r"<([a-z]+)\b[^>]*>(.*?)</\1\s*>", body, re.S | re.I)}


def _pick(fields: Mapping[str, str], field: str, where: Location) -> str:
    texts = []
    for part in field.split("+"):
        names = FIELDS.get(part.strip(), (part.strip(),))
        found = next((fields[n] for n in names if fields.get(n)), None)
        if found is None:
            raise InputError(
                Problem(
                    where,
                    part.strip(),
                    f"the topic has no {' or '.join(f'<{n}>' for n in names)} "
                    f"text (it has: {', '.join(sorted(k for k, v in fields.items() if v)) or 'none'})",
                )
            )
        texts.append(found)
    return " ".join(texts)


def _trec_topics(path: Path, content: str, field: str) -> list[Topic]:
    topics = []
    for match in _TOP.finditer(content):
        where = Location(path, _line(content, match.start()))
        fields = _sgml_fields(match.group(1))
        number = re.sub(r"^\s*number\s*:\s*", "", fields.get("num", ""), flags=re.I).strip()
        if not number:
            raise InputError(Problem(where, "num", "a <top> without a <num>"))
        topics.append(Topic(number, _pick(fields, field, where), where))
    for match in _TOPIC.finditer(content):
        where = Location(path, _line(content, match.start()))
        number = _NUMBER.search(match.group(1))
        if number is None:
            raise InputError(Problem(where, "number", "a <topic> without a number attribute"))
        topics.append(Topic(number.group(1), _pick(_xml_fields(match.group(2)), field, where), where))
    return topics


def _tsv_topics(path: Path, content: str) -> list[Topic]:
    topics = []
    for number, line in enumerate(content.splitlines(), 1):
        if not line.strip():
            continue
        qid, tab, text = line.partition("\t")
        where = Location(path, number)
        if not tab or not qid.strip() or not text.strip():
            raise InputError(Problem(where, None, "expected 'qid<TAB>text'"))
        topics.append(Topic(qid.strip(), " ".join(text.split()), where))
    return topics


def _jsonl_topics(path: Path, content: str, field: str | None) -> list[Topic]:
    topics = []
    for number, line in enumerate(content.splitlines(), 1):
        if not line.strip():
            continue
        where = Location(path, number)
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(Problem(where, None, f"not JSON ({exc.msg})")) from None
        if not isinstance(obj, dict):
            raise InputError(Problem(where, None, "expected a JSON object"))
        qid = next((obj[k] for k in _ID_KEYS if k in obj), None)
        if not isinstance(qid, (str, int)) or not str(qid).strip():
            raise InputError(Problem(where, "id", f"no query id (one of {', '.join(_ID_KEYS)})"))
        keys = (field,) if field else _TEXT_KEYS
        text = next((obj[k] for k in keys if isinstance(obj.get(k), str) and obj[k].strip()), None)
        if text is None:
            raise InputError(Problem(where, keys[0], f"no query text (one of {', '.join(keys)})"))
        topics.append(Topic(str(qid).strip(), " ".join(text.split()), where))
    return topics


#: What a topic file's repeated id does (``--on-duplicate``, spelled as ``citegraph ingest``'s):
#: the later text wins (Anserini reads topics into a map), the first does, or it is an error.
TopicDuplicatePolicy = Literal["first", "last", "error"]
TOPIC_DUPLICATE_POLICIES: tuple[TopicDuplicatePolicy, ...] = ("first", "last", "error")
TOPIC_ON_DUPLICATE_HELP = (
    "A topic id given more than once: keep the last text (as Anserini reads topics) or the "
    "first, with a warning naming both lines, or stop with an error."
)


def read_topics(
    path: Path,
    field: str | None = None,
    on_duplicate: TopicDuplicatePolicy = "last",
    warn: Callable[[str], None] = lambda message: None,
) -> list[Topic]:
    """The topics of a TREC topic file, a TSV or a JSONL file (see the module docstring), one per
    id in the order ids first appear; ``warn`` is told of each repeated id."""
    path = Path(path)
    try:
        content = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            Problem(Location(path, _line(path.read_bytes().decode("latin-1"), exc.start)), None, "not UTF-8")
        ) from None
    if ".jsonl" in path.suffixes or content.lstrip().startswith("{"):
        topics = _jsonl_topics(path, content, field)
    elif content.lstrip().startswith("<"):
        topics = _trec_topics(path, content, field or "title")
    else:
        topics = _tsv_topics(path, content)
    if not topics:
        raise InputError(
            Problem(
                Location(path, 1), None, "no topics found (TREC <top>/<topic>, qid<TAB>text, or JSONL with id and text)"
            )
        )
    kept: dict[str, Topic] = {}
    for topic in topics:
        earlier = kept.get(topic.id)
        if earlier is None:
            kept[topic.id] = topic
            continue
        where, first_line = topic.where or Location(path, 1), earlier.where.line if earlier.where else 1
        if on_duplicate == "error":
            raise InputError(Problem(where, "id", f"topic {topic.id} already given at line {first_line}"))
        warn(
            str(
                Problem(
                    where,
                    "id",
                    f"topic {topic.id} also given at line {first_line}"
                    f"{' with another text' if topic.text != earlier.text else ''}; "
                    f"the {on_duplicate} text is kept (--on-duplicate {on_duplicate})",
                )
            )
        )
        if on_duplicate == "last":
            kept[topic.id] = topic  # in the place the id first took (a dict keeps its keys' order)
    return list(kept.values())


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
