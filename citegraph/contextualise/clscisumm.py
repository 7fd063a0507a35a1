"""Reader for the CL-SciSumm citation-contextualisation data (Task 1A), every release 2016–2019.

A topic is a reference (cited) paper and the citances that cite it, in a folder holding
``Reference_XML/<paper>.xml`` (the paper split into ``<S sid="…">…</S>``). Its gold — one
or more gold sets, each one annotator's file — is either inside the topic or in a folder
of its own (``gold``):

* inside: ``<topic>/annotation/<paper>.ann.txt`` or ``….annv3.txt`` (training sets;
  2016 folders are named ``<paper>_TRAIN``, so the topic id is the XML file's name); when
  both versions are there only the newest, ``annv3``, is read;
* apart: any file under ``gold`` whose name is the paper id followed by ``_<annotator>``
  or ``.``: ``Task1/<paper>_<annotator>.csv`` (the 2018 test gold, one file per
  annotator), ``<paper>/annotation/<paper>_<annotator>.csv``, ``ref/Task1/<paper>.annv3.txt``
  (2017). A topic with gold files there reads only those (the 2018 test topics carry an
  ``annotation/<paper>.csv`` whose gold cells are empty); others read their own.

The layouts and their defects are read by :mod:`citegraph.contextualise.annotation`; every
repair is collected in a :class:`~citegraph.contextualise.annotation.Repairs`, including
those made here: ``unknown sentence`` (a gold id the paper lacks: dropped; the citance is
left out when none is left), ``older version`` (an ``.ann.txt`` beside its ``.annv3.txt``),
``duplicate gold`` (the same annotator's file twice: the one nearest the gold folder is
read), ``no gold`` (a topic without any gold citance: left out) and ``gold without topic``.

**Several annotators.** Each gold set keeps its own citances (ids ``<topic>:<number>@<annotator>``
when a topic has more than one): a system's ranking for a citation text is scored against
every annotator's gold and the scores pooled, as the official evaluation script
(``2018-evaluation-script/program/task1_eval.py`` in WING-NUS/scisumm-corpus) scores each
``Task1/<paper>_<annotator>.csv`` separately against the same submission and sums or
averages over all of those files.

The reference XML is read with a tolerant scanner rather than an XML parser: 10 of the 40
training papers are not well-formed XML (bytes of PDF extraction), and only the ``<S>``
elements matter. The files are UTF-8 except for stray Windows-1252 bytes in 9 of them
(``\x95`` bullets, ``\x93`` quotes, ``\xd7`` ×), which are decoded as Windows-1252. Entities are unescaped,
white space collapsed, and UTF-8 that was decoded as Windows-1252 once too often is
repaired ("Riloffâ€™s" → "Riloff’s", "GimeÂ´nez" → "Gime´nez"; 71 of the 753 citation
texts have it), so that such words are analysed into the terms the sentences use. Six
``<S sid="">`` elements (J96-3004) have no id; no annotation can point at them, so they
are left out. A reference paper's *text* is its sentences joined by one
newline in document order: :attr:`Sentence.start` / :attr:`Sentence.end` are character
offsets into it, which is what the character-offset metrics count.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..errors import CitegraphError, InputError, Location, Problem
from .annotation import CP1252_FALLBACK, GoldRow, Repairs, read_gold_rows

_S = re.compile(r"<S\b([^>]*)>(.*?)</S\s*>", re.S)
_SID = re.compile(r"""\bsid\s*=\s*["']([^"']*)["']""")
_TAG = re.compile(r"<[^>]*>")
# a UTF-8 lead byte then continuation bytes, each shown as its Windows-1252 (or Latin-1) character
_CONTINUATION = "\u0080-\u00bf€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ"
_MOJIBAKE = re.compile(f"[\u00c2-\u00f4][{_CONTINUATION}]{{1,3}}")
_GOLD_SUFFIXES = (".txt", ".csv")


@dataclass(frozen=True, slots=True)
class Sentence:
    sid: str
    text: str
    start: int  # character offsets of the sentence in its Reference.text
    end: int


@dataclass(frozen=True)
class Reference:
    """A reference (cited) paper as its sentences, in document order."""

    id: str
    sentences: tuple[Sentence, ...]
    path: Path | None = None

    @cached_property
    def text(self) -> str:
        return "\n".join(s.text for s in self.sentences)

    @cached_property
    def position(self) -> dict[str, int]:
        """Sentence id → index in :attr:`sentences`."""
        return {s.sid: i for i, s in enumerate(self.sentences)}


def make_reference(paper_id: str, texts: list[tuple[str, str]], path: Path | None = None) -> Reference:
    """A reference from (sid, text) pairs, with the character offsets of each sentence."""
    sentences, at = [], 0
    for sid, text in texts:
        sentences.append(Sentence(sid, text, at, at + len(text)))
        at += len(text) + 1
    return Reference(paper_id, tuple(sentences), path)


@dataclass(frozen=True, slots=True)
class Citance:
    """One annotated citation: the citing text and the reference sentences it refers to."""

    id: str  # <topic>:<citance number>, and @<annotator> when the topic has several gold sets
    topic: str
    citing_id: str
    text: str  # the citation text, tags removed
    gold: tuple[str, ...]  # gold sentence ids of the reference paper
    marker: str = ""
    facets: tuple[str, ...] = ()
    reference_text: str = ""  # the annotation's own copy of the gold text
    where: Location | None = None
    annotator: str = ""  # the gold set's annotator, from its file name ("" when the file names none)


@dataclass(frozen=True)
class Topic:
    id: str
    reference: Reference
    citances: tuple[Citance, ...] = field(default=())


def clean(text: str) -> str:
    """Tags removed, entities unescaped, white space collapsed, mojibake repaired."""
    return " ".join(_MOJIBAKE.sub(_unmangle, html.unescape(_TAG.sub(" ", text))).split())


def _unmangle(match: re.Match) -> str:
    """A UTF-8 sequence read as Windows-1252 (or Latin-1) characters, decoded again; kept if it is not one."""
    text = match.group(0)
    try:
        raw = b"".join(c.encode("cp1252") if c.encode("cp1252", errors="ignore") else c.encode("latin-1") for c in text)
        return raw.decode("utf-8")
    except UnicodeError:
        return text


# -- the reference paper -------------------------------------------------------------
def read_reference(path: Path) -> Reference:
    content = path.read_bytes().decode("utf-8", errors=CP1252_FALLBACK)
    texts: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for match in _S.finditer(content):
        line = content.count("\n", 0, match.start()) + 1
        sid = _SID.search(match.group(1))
        if sid is None:
            raise InputError(Problem(Location(path, line), "sid", "<S> element without a sid attribute"))
        sid = sid.group(1).strip()
        if not sid:
            continue  # no id: nothing can refer to it
        if sid in seen:
            raise InputError(
                Problem(Location(path, line), "sid", f"sentence id {sid} already used on line {seen[sid]}")
            )
        seen[sid] = line
        texts.append((sid, clean(match.group(2))))
    if not texts:
        raise InputError(Problem(Location(path, 1), None, 'no <S sid="…"> sentences'))
    return make_reference(path.stem, texts, path)


# -- gold sets ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GoldFile:
    """One gold set: an annotation file, the topic it is for and its annotator ("" if unnamed)."""

    path: Path
    topic: str
    annotator: str
    version: str  # "ann", "annv3", "csv", … (the name between annotator and suffix)


def _gold_file(path: Path, topic: str) -> GoldFile | None:
    """``<topic>[_<annotator>].<version…>.txt|csv`` → a GoldFile, None when the name is not of that form."""
    name = path.name
    if not name.startswith(topic) or path.suffix.lower() not in _GOLD_SUFFIXES or len(name) == len(topic):
        return None
    rest = name[len(topic) :]
    if rest[0] not in "_.":
        return None
    annotator, _, version = rest[1:].partition(".") if rest[0] == "_" else ("", "", rest[1:])
    version = version.rsplit(".", 1)[0] if "." in version else version
    if path.suffix.lower() == ".txt" and not version.startswith("ann"):
        return None  # a summary (….abstract.txt, ….human.txt) or another text, not an annotation
    return GoldFile(path, topic, annotator, version)


def _choose(files: list[GoldFile], repairs: Repairs) -> list[GoldFile]:
    """One file per annotator: the newest version (annv3 over ann), else the one nearest the gold folder."""
    by_annotator: dict[str, list[GoldFile]] = {}
    for f in files:
        by_annotator.setdefault(f.annotator, []).append(f)
    chosen = []
    for _annotator, group in sorted(by_annotator.items()):
        group.sort(key=lambda f: (f.version != "annv3", len(f.path.parts), str(f.path)))
        chosen.append(group[0])
        for other in group[1:]:
            older = other.version != group[0].version
            repairs.add(
                "older version" if older else "duplicate gold",
                Location(other.path, 1),
                None,
                f"{'an older version' if older else 'another copy'} of {group[0].path}; not read",
            )
    return chosen


def gold_files(topic: str, folder: Path, gold: Path | None, repairs: Repairs) -> list[GoldFile]:
    """The topic's gold sets: its files under ``gold`` when there are any, else those in its annotation/."""
    if gold is not None:
        found = [g for p in sorted(gold.rglob(f"{topic}*")) if p.is_file() and (g := _gold_file(p, topic))]
        if found:
            return _choose(found, repairs)
    inside = [g for p in sorted((folder / "annotation").glob("*")) if (g := _gold_file(p, topic))]
    return _choose(inside, repairs)


def _citances(
    rows: Sequence[GoldRow], reference: Reference, topic: str, annotator: str, several: bool, repairs: Repairs
) -> list[Citance]:
    out = []
    for row in rows:
        known = [sid for sid in row.offsets if sid in reference.position]
        if len(known) < len(row.offsets):
            missing = [sid for sid in row.offsets if sid not in reference.position]
            repairs.add(
                "unknown sentence",
                row.where,
                "Reference Offset",
                f"sentence id(s) {', '.join(missing)} are not in {reference.path or reference.id}; "
                + ("dropped" if known else "citance left out"),
            )
            if not known:
                continue
        citation = clean(row.text)
        if not citation:
            repairs.add(
                "citation text", row.where, "Citation Text", "holds no text once tags are removed; citance left out"
            )
            continue
        suffix = f"@{annotator or '-'}" if several else ""
        out.append(
            Citance(
                f"{topic}:{row.number}{suffix}",
                topic,
                row.citing_article,
                citation,
                tuple(known),
                row.marker,
                row.facets,
                clean(row.reference_text),
                row.where,
                annotator,
            )
        )
    return out


# -- folders -------------------------------------------------------------------------
def read_topic(folder: Path, gold: Path | None = None, repairs: Repairs | None = None) -> Topic:
    """One topic folder, its gold from ``gold`` (a folder of gold files) or from its annotation/."""
    folder = Path(folder)
    repairs = repairs if repairs is not None else Repairs()
    xmls = sorted((folder / "Reference_XML").glob("*.xml"))
    if len(xmls) != 1:
        raise CitegraphError(f"{folder}: expected one Reference_XML/*.xml, found {len(xmls)}")
    reference = read_reference(xmls[0])
    files = gold_files(reference.id, folder, gold, repairs)
    if not files:
        where = f"{folder}/annotation/" + (f" or {gold}" if gold else "")
        raise CitegraphError(
            f"{where}: no gold file for {reference.id} (<paper>.ann.txt, <paper>.annv3.txt, <paper>_<annotator>.csv)"
        )
    citances = tuple(
        c
        for f in files
        for c in _citances(
            read_gold_rows(f.path, reference.id, repairs), reference, reference.id, f.annotator, len(files) > 1, repairs
        )
    )
    return Topic(reference.id, reference, citances)


def topic_folders(data_dir: Path) -> list[Path]:
    """Every folder under ``data_dir`` holding a Reference_XML/ folder, by path."""
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise CitegraphError(f"{data_dir}: no such folder")
    folders = sorted({p.parent for p in data_dir.rglob("Reference_XML") if p.is_dir()})
    if not folders:
        raise CitegraphError(f"{data_dir}: no CL-SciSumm topic (a folder with Reference_XML/ and annotation/)")
    return folders


def read_topics(data_dir: Path, gold: Path | None = None, repairs: Repairs | None = None) -> list[Topic]:
    """Every topic under ``data_dir`` that has gold citances; one without is left out, as a repair."""
    repairs = repairs if repairs is not None else Repairs()
    topics = []
    for folder in topic_folders(data_dir):
        topic = read_topic(folder, gold, repairs)
        if topic.citances:
            topics.append(topic)
        else:
            repairs.add("no gold", Location(folder, 0), None, f"topic {topic.id} has no gold citance; left out")
    if not topics:
        raise CitegraphError(
            f"{data_dir}: no topic has gold citances"
            + ("" if gold else " (a test release? give its gold folder with --gold)")
        )
    return topics


def report_unread_gold(gold: Path, topic_ids: set[str], repairs: Repairs) -> None:
    """Gold files under ``gold`` for none of the topics read: a repair each (they are not read)."""
    for path in sorted(p for p in Path(gold).rglob("*") if p.is_file() and p.suffix.lower() in _GOLD_SUFFIXES):
        paper = re.split(r"[_.]", path.name, maxsplit=1)[0]
        if paper not in topic_ids and _gold_file(path, paper):
            repairs.add("gold without topic", Location(path, 1), None, "no topic folder for this file; not read")
