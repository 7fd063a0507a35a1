"""CL-SciSumm gold annotation files, in every layout the shared task shipped (2016–2019).

Two layouts hold the same fields (``Citance Number``, ``Reference Article``, ``Citing
Article``, ``Citation Marker Offset``, ``Citation Marker``, ``Citation Offset``,
``Citation Text``, ``Reference Offset``, ``Reference Text``, ``Discourse Facet``):

* **text** (``<topic>.ann.txt``, ``<topic>.annv3.txt``; the training sets, the 2016 and
  2017 test gold): one citance a line, ``Key: value`` fields separated by `` | ``; the
  citation text as ``<S>`` elements; most lines end with ``Annotator: …``.
* **CSV** (the 2018 test release: ``<topic>.csv`` without gold inside each topic, the gold
  one file *per annotator*, ``Task1/<topic>_<annotator>.csv``): a header row naming the
  fields, plus ``Citation Text Clean``; quoted cells may span lines.

Each file is one **gold set** (one annotator's judgement of a topic's citances, as the
official script scores it); :func:`read_gold_rows` turns it into :class:`GoldRow` records.

``Reference Offset`` is a list of sentence ids: each id bare or in matching quotes, the
list comma-separated and optionally in brackets (``['1','94']``, ``'79','80'``, ``372``)
— the forms the official evaluation script reads. Anything else is a **defect**; real
files have them, and each one the reader gets past is a :class:`Repair`, counted and
reported with its file:line (``strict`` refuses them instead: an :class:`InputError`):

* ``unbalanced quote`` — ``17'``: the stray quote is dropped;
* ``stray character`` — ``;17'``, ``;'17'`` (the 2018 test gold): the stray ``;`` (and
  quote) dropped, the id kept — it is clean once they are gone, where the official script
  would read ``;'17`` and so never match it;
* ``no gold`` — ``NA``, ``???``, an empty cell or ``[]``: the citance is left out (the
  official script skips such rows too); so is a row whose ``Reference Text`` is ``NA``
  (``0,“NA”`` in the 2018 test gold: offset 0 is the title, not a sentence the annotator
  chose), which the official script cannot read either;
* ``unreadable offset`` — anything else (``['x']``, ``'4',,'5'``): the citance cannot be
  scored, so it is left out rather than guessed;
* ``no citation offset`` — the same defects in ``Citation Offset`` / ``Citation Marker
  Offset`` (which locate the citance in the citing paper): the citance is kept, as its
  citation text is what is scored (the official 2018 script reads both as ``0``);
* ``reference article`` — the cell names another paper (often the citing one): the row
  stays with the topic whose file holds it;
* ``citation text`` — the text is empty: ``Citation Text Clean`` is used, or the citance
  is left out;
* ``citance number`` — empty or not a number: the row's position in the file is used;
* ``duplicate citance`` — a number already used in the file: the later row is left out;
* ``row length`` — a CSV row with more or fewer cells than the header: left out (as the
  official script does);
* ``encoding`` — a line that is not UTF-8: decoded as Windows-1252.

The repairs that need the reference paper (``unknown sentence``) and the folder
(``older version``, ``duplicate gold``, ``no gold`` for a whole topic, ``gold without
topic``) are made by :mod:`citegraph.contextualise.clscisumm` with the same collector.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, Location, Problem

KEYS = (
    "Citance Number",
    "Reference Article",
    "Citing Article",
    "Citation Marker Offset",
    "Citation Marker",
    "Citation Offset",
    "Citation Text",
    "Citation Text Clean",
    "Reference Offset",
    "Reference Text",
    "Discourse Facet",
    "Annotator",
)
_KEY = re.compile(r"(?:^|\|)\s*(" + "|".join(re.escape(k) for k in KEYS) + r")\s*:")
_ID = re.compile(r"""^(;?)(["']?)(\d+)(["']?)$""")
_NO_GOLD = re.compile(r"^(?:|\[\s*\]|na|n/a|none|\?+)$", re.IGNORECASE)


def _cp1252(exc: UnicodeError) -> tuple[str, int]:
    """Decode a byte that is not UTF-8 as Windows-1252 (Latin-1 where that has no character)."""
    if not isinstance(exc, UnicodeDecodeError):  # a decoding handler only
        raise exc
    byte = exc.object[exc.start : exc.start + 1]
    try:
        return byte.decode("cp1252"), exc.start + 1
    except UnicodeDecodeError:
        return byte.decode("latin-1"), exc.start + 1


CP1252_FALLBACK = "citegraph-cp1252"
codecs.register_error(CP1252_FALLBACK, _cp1252)


@dataclass(frozen=True, slots=True)
class Repair:
    """One defect of the input that the reader got past, and how."""

    kind: str
    where: Location
    field: str | None
    detail: str

    def __str__(self) -> str:
        return str(Problem(self.where, self.field, f"{self.kind}: {self.detail}"))


@dataclass
class Repairs:
    """Every repair made while reading; ``strict`` turns the first into an :class:`InputError`."""

    strict: bool = False
    made: list[Repair] = field(default_factory=list)

    def add(self, kind: str, where: Location, field: str | None, detail: str) -> None:
        """``detail``: what is wrong, then after the last "; " what the reader did about it."""
        if self.strict:
            wrong = detail.rsplit("; ", 1)[0]
            raise InputError(Problem(where, field, f"{wrong} (a defect: {kind}; strict reading repairs nothing)"))
        self.made.append(Repair(kind, where, field, detail))

    def counts(self) -> dict[str, int]:
        return dict(sorted(Counter(r.kind for r in self.made).items()))

    def summary(self) -> dict:
        return {"counts": self.counts(), "repairs": [str(r) for r in self.made]}


@dataclass(frozen=True, slots=True)
class GoldRow:
    """One citance of a gold set, its cells read and repaired but not yet checked against the paper."""

    number: str
    reference_article: str
    citing_article: str
    text: str  # the citation text as shipped (may hold <S> elements)
    offsets: tuple[str, ...]  # gold sentence ids, in the file's order
    marker: str
    facets: tuple[str, ...]
    reference_text: str
    where: Location


def paper_id(value: str) -> str:
    """'C02-1025.xml', 'C02-1025.txt' and 'C02-1025' all name paper C02-1025."""
    return re.sub(r"\.(xml|txt)$", "", value.strip(), flags=re.IGNORECASE)


# -- lines and records -------------------------------------------------------------------
def decoded_lines(path: Path, repairs: Repairs) -> list[str]:
    """The file's lines (ends kept), each decoded as UTF-8 or, repaired, as Windows-1252."""
    out = []
    for number, raw in enumerate(Path(path).read_bytes().splitlines(keepends=True), 1):
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            repairs.add(
                "encoding",
                Location(path, number),
                None,
                f"byte 0x{raw[exc.start]:02x} is not UTF-8; the line is read as Windows-1252",
            )
            out.append(raw.decode("utf-8", errors=CP1252_FALLBACK))
    return out


def _text_records(path: Path, repairs: Repairs) -> Iterator[tuple[Location, dict[str, str]]]:
    """``Key: value | Key: value |`` lines → {key: value}; a repeated key keeps its first value."""
    for number, text in enumerate(decoded_lines(path, repairs), 1):
        if not text.strip():
            continue
        found = list(_KEY.finditer(text))
        values: dict[str, str] = {}
        for match, following in zip(found, [*found[1:], None]):
            value = text[match.end() : following.start() if following else len(text)]
            values.setdefault(match.group(1), value.strip().rstrip("|").strip())
        yield Location(path, number), values


def _csv_records(path: Path, repairs: Repairs) -> Iterator[tuple[Location, dict[str, str]]]:
    """Rows of a CSV file with a header row, each located at the line it starts on."""
    reader = csv.reader(io.StringIO("".join(decoded_lines(path, repairs)), newline=""))
    start = 1
    header: list[str] | None = None
    for row in reader:
        where, start = Location(path, start), reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        if header is None:
            header = [cell.strip().lstrip("\ufeff") for cell in row]
            missing = [k for k in ("Citance Number", "Citation Text", "Reference Offset") if k not in header]
            if missing:
                raise InputError(
                    Problem(
                        where,
                        None,
                        f"the header row names no {', '.join(map(repr, missing))} column (found: {', '.join(header)})",
                    )
                )
            continue
        if len(row) != len(header):
            repairs.add("row length", where, None, f"{len(row)} cells under a header of {len(header)}; row left out")
            continue
        yield where, dict(zip(header, (cell.strip() for cell in row)))


def is_csv(path: Path) -> bool:
    return path.suffix.lower() == ".csv"


# -- cells ---------------------------------------------------------------------------------
def _offsets(value: str, where: Location, field: str, repairs: Repairs) -> tuple[str, ...] | None:
    """Sentence ids of an offset cell; None when it names none or cannot be read (repaired as the
    module docstring says: only a ``Reference Offset`` without ids leaves its citance out)."""
    scored = field == "Reference Offset"
    outcome = "citance left out" if scored else "the citance is kept (its citation text is scored, not this)"
    inner = value.strip()
    if inner.startswith("[") and inner.endswith("]"):
        inner = inner[1:-1]
    if _NO_GOLD.match(inner.strip()):
        repairs.add(
            "no gold" if scored else "no citation offset", where, field, f"{value!r} names no sentence; {outcome}"
        )
        return None
    ids = []
    for part in (p.strip() for p in inner.split(",")):
        match = _ID.match(part)
        if match is None:
            repairs.add(
                "unreadable offset",
                where,
                field,
                f"expected a list of sentence ids like ['12','13'], got {value[:60]!r}; {outcome}",
            )
            return None
        stray, left, sid, right = match.groups()
        wrong = [what for what, found in (("a stray ';'", stray), ("a quote on one side only", left != right)) if found]
        if wrong:
            repairs.add(
                "stray character" if stray else "unbalanced quote",
                where,
                field,
                f"{part!r} has {' and '.join(wrong)}; read as {sid}",
            )
        ids.append(sid)
    return tuple(dict.fromkeys(ids))


def _facets(value: str) -> tuple[str, ...]:
    value = value.strip().strip("[]").replace("'", "").replace('"', "")
    return tuple(f.strip() for f in re.split(r"[,;]", value) if f.strip() and f.strip().upper() != "NA")


def read_gold_rows(path: Path, topic: str, repairs: Repairs) -> list[GoldRow]:
    """One gold set (an annotation file of either layout) as rows, its defects repaired or refused."""
    rows: list[GoldRow] = []
    numbers: dict[str, int] = {}
    records = _csv_records(path, repairs) if is_csv(path) else _text_records(path, repairs)
    for position, (where, values) in enumerate(records, 1):
        if not is_csv(path):
            for key in ("Citance Number", "Citation Text", "Reference Offset"):
                if key not in values:
                    raise InputError(Problem(where, key, "is missing"))
        number = values.get("Citance Number", "").strip()
        if not number.isdigit():
            repairs.add(
                "citance number",
                where,
                "Citance Number",
                f"{number!r} is not a number; numbered {position} by its place in the file",
            )
            number = str(position)
        if number in numbers:
            repairs.add(
                "duplicate citance",
                where,
                "Citance Number",
                f"{number} already used on line {numbers[number]}; row left out",
            )
            continue
        numbers[number] = where.line
        text = values.get("Citation Text", "").strip()
        if not text:
            text = values.get("Citation Text Clean", "").strip()
            repairs.add(
                "citation text",
                where,
                "Citation Text",
                "is empty; " + ("the Citation Text Clean cell is used" if text else "citance left out"),
            )
            if not text:
                continue
        offsets = _offsets(values.get("Reference Offset", ""), where, "Reference Offset", repairs)
        if offsets is None:
            continue
        reference_text = values.get("Reference Text", "").strip()
        if reference_text and _NO_GOLD.match(reference_text.strip("“”\"'")):
            repairs.add(
                "no gold",
                where,
                "Reference Text",
                f"{reference_text!r} names no sentence; citance left out "
                f"(its offset {', '.join(offsets)} is not the annotator's choice)",
            )
            continue
        for key in ("Citation Offset", "Citation Marker Offset"):
            if key in values:
                _offsets(values[key], where, key, repairs)
        article = paper_id(values.get("Reference Article", ""))
        citing = paper_id(values.get("Citing Article", ""))
        if article and article != topic:
            repairs.add(
                "reference article",
                where,
                "Reference Article",
                f"{article!r} is not the topic's paper {topic!r}"
                f"{' (it is the citing paper)' if article == citing else ''}; the row stays with {topic}",
            )
        rows.append(
            GoldRow(
                number,
                topic,
                citing,
                text,
                offsets,
                values.get("Citation Marker", "").strip(),
                _facets(values.get("Discourse Facet", "")),
                reference_text,
                where,
            )
        )
    return rows
