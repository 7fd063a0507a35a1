"""Reader for the CL-SciSumm citation-contextualisation data (Task 1A).

A data folder holds one folder per topic (a reference paper and the citances that cite
it)::

    <topic>/Reference_XML/<topic>.xml      the reference paper, split into <S sid="…">…</S>
    <topic>/annotation/<topic>.ann.txt     one citance a line (…annv3.txt in later releases)

An annotation line is ``Key: value`` fields separated by `` | ``: ``Citance Number``,
``Reference Article``, ``Citing Article``, ``Citation Marker Offset``, ``Citation
Marker``, ``Citation Offset``, ``Citation Text`` (the citing sentences, as ``<S>``
elements), ``Reference Offset`` (the gold sentence ids of the reference paper, like
``['1','94']``), ``Reference Text``, ``Discourse Facet`` and, in most files,
``Annotator``.

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

Bad input is an :class:`~citegraph.errors.InputError` naming the file, line and field: a
missing or non-numeric ``Reference Offset``, a gold sentence id the reference paper does
not have, a citance number used twice, an empty citation text.
"""

from __future__ import annotations

import codecs
import html
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..errors import CitegraphError, InputError, Location, Problem
from ..ingest.source import lines

KEYS = ("Citance Number", "Reference Article", "Citing Article", "Citation Marker Offset", "Citation Marker",
        "Citation Offset", "Citation Text", "Reference Offset", "Reference Text", "Discourse Facet", "Annotator")
_KEY = re.compile(r"(?:^|\|)\s*(" + "|".join(re.escape(k) for k in KEYS) + r")\s*:")
_S = re.compile(r"<S\b([^>]*)>(.*?)</S\s*>", re.S)
_SID = re.compile(r"""\bsid\s*=\s*["']([^"']*)["']""")
_TAG = re.compile(r"<[^>]*>")
# a UTF-8 lead byte then continuation bytes, each shown as its Windows-1252 (or Latin-1) character
_CONTINUATION = "\u0080-\u00bf€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ"
_MOJIBAKE = re.compile(f"[\u00c2-\u00f4][{_CONTINUATION}]{{1,3}}")
_OFFSETS = re.compile(r"\[\s*(?:'?\s*\d+\s*'?\s*(?:,\s*'?\s*\d+\s*'?\s*)*)?\]")


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

    id: str  # <topic>:<citance number>
    topic: str
    citing_id: str
    text: str  # the citation text, tags removed
    gold: tuple[str, ...]  # gold sentence ids of the reference paper
    marker: str = ""
    facets: tuple[str, ...] = ()
    reference_text: str = ""  # the annotation's own copy of the gold text
    where: Location | None = None


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
        raw = b"".join(c.encode("cp1252") if c.encode("cp1252", errors="ignore") else c.encode("latin-1")
                       for c in text)
        return raw.decode("utf-8")
    except UnicodeError:
        return text


# -- the reference paper -------------------------------------------------------------
def _cp1252(exc: UnicodeError) -> tuple[str, int]:
    """Decode a byte that is not UTF-8 as Windows-1252 (Latin-1 where that has no character)."""
    byte = exc.object[exc.start:exc.start + 1]
    try:
        return byte.decode("cp1252"), exc.start + 1
    except UnicodeDecodeError:
        return byte.decode("latin-1"), exc.start + 1


_CP1252 = "citegraph-cp1252"
codecs.register_error(_CP1252, _cp1252)


def read_reference(path: Path) -> Reference:
    content = path.read_bytes().decode("utf-8", errors=_CP1252)
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
            raise InputError(Problem(Location(path, line), "sid",
                                     f"sentence id {sid} already used on line {seen[sid]}"))
        seen[sid] = line
        texts.append((sid, clean(match.group(2))))
    if not texts:
        raise InputError(Problem(Location(path, 1), None, "no <S sid=\"…\"> sentences"))
    return make_reference(path.stem, texts, path)


# -- the annotation ------------------------------------------------------------------
def _fields(text: str) -> dict[str, str]:
    """``Key: value | Key: value |`` → {key: value}; a repeated key keeps its first value."""
    found = list(_KEY.finditer(text))
    values: dict[str, str] = {}
    for match, following in zip(found, [*found[1:], None]):
        value = text[match.end(): following.start() if following else len(text)]
        values.setdefault(match.group(1), value.strip().rstrip("|").strip())
    return values


def _offsets(value: str, where: Location, key: str) -> tuple[str, ...]:
    if not _OFFSETS.fullmatch(value):
        raise InputError(Problem(where, key, f"expected a list of sentence ids like ['12','13'], got {value[:60]!r}"))
    return tuple(dict.fromkeys(re.findall(r"\d+", value)))


def read_annotation(path: Path, reference: Reference, topic: str) -> tuple[Citance, ...]:
    citances: list[Citance] = []
    numbers: dict[str, int] = {}
    for where, text in lines(path):
        if isinstance(text, Problem):
            raise InputError(text)
        if not text.strip():
            continue
        values = _fields(text)
        for key in ("Citance Number", "Citing Article", "Citation Text", "Reference Offset"):
            if not values.get(key):
                raise InputError(Problem(where, key, "is missing" if key not in values else "is empty"))
        number = values["Citance Number"]
        if not number.isdigit():
            raise InputError(Problem(where, "Citance Number", f"expected a number, got {number!r}"))
        if number in numbers:
            raise InputError(Problem(where, "Citance Number", f"{number} already used on line {numbers[number]}"))
        numbers[number] = where.line
        article = _paper_id(values.get("Reference Article", ""))
        if article and article != reference.id:
            raise InputError(Problem(where, "Reference Article",
                                     f"{article!r} is not this topic's paper {reference.id!r}"))
        gold = _offsets(values["Reference Offset"], where, "Reference Offset")
        if not gold:
            raise InputError(Problem(where, "Reference Offset", "names no sentence"))
        missing = [sid for sid in gold if sid not in reference.position]
        if missing:
            raise InputError(Problem(where, "Reference Offset", f"sentence id(s) {', '.join(missing)} are not in "
                                     f"{reference.path or reference.id}"))
        citation = clean(values["Citation Text"])
        if not citation:
            raise InputError(Problem(where, "Citation Text", "holds no text"))
        facets = tuple(f.strip() for f in re.split(r"[,;]", _unlist(values.get("Discourse Facet", ""))) if f.strip())
        citances.append(Citance(f"{topic}:{number}", topic, _paper_id(values["Citing Article"]),
                                citation, gold, values.get("Citation Marker", ""), facets,
                                clean(values.get("Reference Text", "")), where))
    return tuple(citances)


def _paper_id(value: str) -> str:
    """'C02-1025.xml', 'C02-1025.txt' and 'C02-1025' all name paper C02-1025."""
    return re.sub(r"\.(xml|txt)$", "", value.strip(), flags=re.IGNORECASE)


def _unlist(value: str) -> str:
    return value.strip().strip("[]").replace("'", "")


# -- folders -------------------------------------------------------------------------
def read_topic(folder: Path) -> Topic:
    folder = Path(folder)
    xmls = sorted((folder / "Reference_XML").glob("*.xml"))
    annotations = sorted((folder / "annotation").glob("*.txt"))
    if len(xmls) != 1:
        raise CitegraphError(f"{folder}: expected one Reference_XML/*.xml, found {len(xmls)}")
    if not annotations:
        raise CitegraphError(f"{folder}: no annotation/*.txt")
    reference = read_reference(xmls[0])
    citances = tuple(c for path in annotations for c in read_annotation(path, reference, folder.name))
    return Topic(folder.name, reference, citances)


def read_topics(data_dir: Path) -> list[Topic]:
    """Every topic folder under ``data_dir`` (a folder holding Reference_XML/), by name."""
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise CitegraphError(f"{data_dir}: no such folder")
    folders = sorted({p.parent for p in data_dir.rglob("Reference_XML") if p.is_dir()})
    if not folders:
        raise CitegraphError(f"{data_dir}: no CL-SciSumm topic (a folder with Reference_XML/ and annotation/)")
    return [read_topic(folder) for folder in folders]
