"""TREC's text formats — topics, qrels and runs — read with errors that name file, line and
field, and written as trec_eval and every other tool reads them.

**Qrels** (``query iteration doc grade``) and **runs** (``query Q0 doc rank score tag``) are
read by ir_measures' readers, the library citegraph scores with; a line they refuse is an
:class:`~citegraph.errors.InputError` naming it.

**Topics** come in four shapes, told apart by the file:

* TREC topic files: classic SGML (``<top> <num> Number: 401 <title> … <desc>
  Description: … <narr> Narrative: … </top>``, tags left open) or the XML of later
  tracks (``<topic number="1"><query>…</query><question>…</question>…</topic>``, read by
  the standard library's XML parser); ``field`` picks the text: ``title`` (also
  ``<query>``), ``desc`` (``<description>``, ``<question>``), ``narr`` (``<narrative>``),
  or several joined with ``+``;
* TSV, ``qid<TAB>text`` a line (MS MARCO, BEIR's queries.tsv);
* JSONL, one object a line: the id in ``id``, ``qid``, ``_id`` or ``query_id``; the text
  in ``field`` when given, else ``text``, ``query`` or ``title``.

The SGML, TSV and JSONL topics are read here, not by ir_datasets' readers: those need the
fields of every topic declared before reading (its SGML reader stops on a topic without
``<narr>`` with a bare ``AssertionError``), take one key per field, name no line, and
``import ir_datasets`` creates its data folder in the home directory (and fails where the
home cannot be written) — docs/retrieval.md, "Any TREC-style collection".

A topic id given twice (real collections have one, with two texts) is read as Anserini reads
topics, into a map where the later text wins, and scored once, as trec_eval scores per id:
with a warning naming both lines; ``on_duplicate`` keeps the first instead, or makes it an
error.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from xml.etree import ElementTree

from ..errors import InputError, Location, Problem

FIELDS = {"title": ("title", "query"), "desc": ("desc", "description", "question"), "narr": ("narr", "narrative")}
_ID_KEYS = ("id", "qid", "_id", "query_id")
_TEXT_KEYS = ("text", "query", "title")
_TOP = re.compile(r"<top>(.*?)</top>", re.S | re.I)
_LABEL = re.compile(r"^\s*(?:number|description|narrative|title|topic)\s*:\s*", re.I)
_XML_POSITION = re.compile(r": line \d+, column \d+$")


@dataclass(frozen=True, slots=True)
class Topic:
    id: str
    text: str
    where: Location | None = None


#: What a topic file's repeated id does (``--on-duplicate``, spelled as ``citegraph ingest``'s):
#: the later text wins (Anserini reads topics into a map), the first does, or it is an error.
TopicDuplicatePolicy = Literal["first", "last", "error"]
TOPIC_DUPLICATE_POLICIES: tuple[TopicDuplicatePolicy, ...] = ("first", "last", "error")
TOPIC_ON_DUPLICATE_HELP = (
    "A topic id given more than once: keep the last text (as Anserini reads topics) or the "
    "first, with a warning naming both lines, or stop with an error."
)


def _text(path: Path) -> str:
    """A file's UTF-8 text; bytes that are not UTF-8 are an error naming their line."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raw = path.read_bytes()
        raise InputError(Problem(Location(path, raw.count(b"\n", 0, exc.start) + 1), None, "not UTF-8")) from None


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


def _sgml_topics(path: Path, content: str, field: str) -> list[Topic]:
    topics = []
    for match in _TOP.finditer(content):
        where = Location(path, _line(content, match.start()))
        fields = _sgml_fields(match.group(1))
        number = re.sub(r"^\s*number\s*:\s*", "", fields.get("num", ""), flags=re.I).strip()
        if not number:
            raise InputError(Problem(where, "num", "a <top> without a <num>"))
        topics.append(Topic(number, _pick(fields, field, where), where))
    return topics


def _local_name(tag: str) -> str:
    return tag.rpartition("}")[2].lower()  # '{namespace}topic' → 'topic'


def _xml_topics(path: Path, content: str, field: str) -> list[Topic]:
    """Later tracks' ``<topic number="…">`` elements, parsed by ElementTree's pull parser fed a
    line at a time, so that each topic knows the line it starts on."""
    parser: ElementTree.XMLPullParser[ElementTree.Element] = ElementTree.XMLPullParser(("start", "end"))
    topics: list[Topic] = []
    starts: list[int] = []
    number = 0
    try:
        for number, line in enumerate(content.splitlines(keepends=True), 1):
            parser.feed(line)
            for event in parser.read_events():
                element = event[-1]  # (kind, element): only element events were asked for
                if not isinstance(element, ElementTree.Element) or _local_name(element.tag) != "topic":
                    continue
                if event[0] == "start":
                    starts.append(number)
                    continue
                where = Location(path, starts.pop())
                qid = next((v.strip() for k, v in element.attrib.items() if _local_name(k) == "number"), "")
                if not qid:
                    raise InputError(Problem(where, "number", "a <topic> without a number attribute"))
                fields = {_local_name(child.tag): " ".join("".join(child.itertext()).split()) for child in element}
                topics.append(Topic(qid, _pick(fields, field, where), where))
        parser.close()
    except ElementTree.ParseError as exc:
        line = exc.position[0] if exc.position else number
        reason = _XML_POSITION.sub("", str(exc))
        raise InputError(Problem(Location(path, line), None, f"not well-formed XML ({reason})")) from None
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


def read_topics(
    path: Path,
    field: str | None = None,
    on_duplicate: TopicDuplicatePolicy = "last",
    warn: Callable[[str], None] = lambda message: None,
) -> list[Topic]:
    """The topics of a TREC topic file, a TSV or a JSONL file (see the module docstring), one per
    id in the order ids first appear; ``warn`` is told of each repeated id."""
    path = Path(path)
    content = _text(path)
    if ".jsonl" in path.suffixes or content.lstrip().startswith("{"):
        topics = _jsonl_topics(path, content, field)
    elif content.lstrip().startswith("<"):
        read = _sgml_topics if _TOP.search(content) else _xml_topics
        topics = read(path, content, field or "title")
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


# -- qrels and runs, through ir_measures' readers -----------------------------------------
class _CountedLines:
    """A file's text handed to an ir_measures reader, which takes an open file (anything with
    ``read``) line by line and refuses a bad line with a bare ValueError: the line it was
    reading when it refused, and its number."""

    def __init__(self, text: str):
        self._lines = iter(text.splitlines(keepends=True))
        self.number = 0
        self.current = ""

    def read(self) -> str:
        return "".join(self._lines)

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        self.current = next(self._lines)
        self.number += 1
        return self.current


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """TREC qrels (``query iteration doc grade``) as query → doc → grade (a pair judged twice:
    the later grade)."""
    import ir_measures

    path = Path(path)
    qrels: dict[str, dict[str, int]] = {}
    lines = _CountedLines(_text(path))
    try:
        for qrel in ir_measures.read_trec_qrels(lines):
            qrels.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
    except ValueError:
        got = lines.current.strip()
        raise InputError(
            Problem(Location(path, lines.number), None, f"expected 'query 0 doc grade' (a whole grade), got {got!r}")
        ) from None
    return qrels


def write_qrels(
    path: Path, relevant: Mapping[str, Iterable[str]], grades: Mapping[str, Mapping[str, int]] | None = None
) -> None:
    """TREC qrels (``query 0 doc grade``); grade 1 for ``relevant``, or as ``grades`` give."""
    with open(path, "w", encoding="utf-8") as f:
        for query, docs in relevant.items():
            for doc in docs:
                grade = grades[query][doc] if grades else 1
                f.write(f"{query} 0 {doc} {grade}\n")


def read_run(path: Path) -> dict[str, list[tuple[str, float]]]:
    """A TREC run (``query Q0 doc rank score tag``) as query → (doc, score) in the file's order
    (the rank column is not read: the scores rank a run, as trec_eval's do)."""
    import ir_measures

    path = Path(path)
    run: dict[str, list[tuple[str, float]]] = {}
    lines = _CountedLines(_text(path))
    try:
        for scored in ir_measures.read_trec_run(lines):
            run.setdefault(scored.query_id, []).append((scored.doc_id, scored.score))
    except ValueError:
        got = lines.current.strip()
        raise InputError(
            Problem(
                Location(path, lines.number),
                None,
                f"expected 'query Q0 doc rank score tag' (6 columns, a numeric score), got {got!r}",
            )
        ) from None
    return run


def write_run(path: Path, rankings: Mapping[str, Sequence[tuple[str, float]]], tag: str) -> None:
    """A TREC run file of ``rankings`` (query id → (doc, score), best first)."""
    with open(path, "w", encoding="utf-8") as f:
        for query, hits in rankings.items():
            for position, (doc, score) in enumerate(hits, start=1):
                f.write(f"{query} Q0 {doc} {position} {score!r} {tag}\n")  # repr: reads back exactly
