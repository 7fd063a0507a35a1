"""Reading input files line by line, turning every defect into a located Problem.

Readers are built from these pieces so that all formats report bad input the same way:
file, 1-based line and field, in words — never a traceback from deep inside a parser.
Compressed inputs (.gz, .bz2, .xz) are read as streams; a truncated archive is reported
at the line where it ends.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import json
import lzma
import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from io import BufferedIOBase
from pathlib import Path
from typing import Any, Literal, overload
from xml.parsers import expat

from ..errors import Location, Problem
from ..vocabulary import lone_surrogate, nfc, not_unicode
from .records import Item, Record

_OPENERS: dict[str, Callable[[Path], BufferedIOBase]] = {
    ".gz": lambda p: gzip.open(p, "rb"),
    ".bz2": lambda p: bz2.open(p, "rb"),
    ".xz": lambda p: lzma.open(p, "rb"),
}


class BadField(Exception):
    """Raised by a record parser: ``field`` of the current record is wrong."""

    def __init__(self, field: str | None, reason: str):
        super().__init__(reason)
        self.field = field
        self.reason = reason


def open_binary(path: Path) -> BufferedIOBase:
    opener = _OPENERS.get(path.suffix)
    return opener(path) if opener else open(path, "rb")


def lines(path: Path) -> Iterator[tuple[Location, str | Problem]]:
    """Yield each line's location with its text, or the Problem that stops reading it."""
    number = 0
    with open_binary(path) as f:
        raw_lines = iter(f)
        while True:
            try:
                raw = next(raw_lines)
            except StopIteration:
                return
            except (EOFError, OSError, lzma.LZMAError) as exc:
                where = Location(path, number + 1)
                yield where, Problem(where, None, f"file is truncated or corrupt ({exc})")
                return
            number += 1
            where = Location(path, number)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield (
                    where,
                    Problem(where, None, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"),
                )
                continue
            yield where, text


def json_failure(exc: ValueError | RecursionError) -> str:
    """Why a JSON text was refused, in words: a syntax error where it is, nesting past
    Python's recursion limit, or a value ``json`` will not build (an integer of over 4,300 digits)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"malformed JSON: {json_error(exc)}"
    if isinstance(exc, RecursionError):
        return "malformed JSON: nested too deeply"
    return f"malformed JSON: {exc}"[:300]


def json_error(exc: json.JSONDecodeError) -> str:
    """The parser's message with its column ("Unterminated string starting at" ends in "at")."""
    return f"{exc.msg.removesuffix(' at')} at column {exc.colno}"


def json_objects(path: Path) -> Iterator[tuple[Location, dict[str, Any] | Problem]]:
    """JSON Lines: one object per non-blank line."""
    for where, text in lines(path):
        if isinstance(text, Problem):
            yield where, text
            continue
        unterminated = not text.endswith("\n")  # only the last line can lack one
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except (ValueError, RecursionError) as exc:
            truncated = unterminated and isinstance(exc, json.JSONDecodeError)
            hint = " (the file may be truncated: its last line has no newline)" if truncated else ""
            yield where, Problem(where, None, json_failure(exc) + hint)
            continue
        if not isinstance(value, dict):
            yield where, Problem(where, None, f"expected a JSON object, got {type(value).__name__}")
            continue
        if _SURROGATE_ESCAPE.search(text) and (problem := lone_surrogate_problem(where, value)):
            yield where, problem
            continue
        yield where, value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # a cheap test before the walk of a decoded line


def lone_surrogate_problem(where: Location, value: dict[str, Any]) -> Problem | None:
    """The Problem of a decoded JSON object holding a lone UTF-16 surrogate, naming its
    top-level field, or None."""
    if found := lone_surrogate(value):
        field, char = found
        return Problem(where, field, not_unicode(char))
    return None


#: Tab-separated, nothing quoted (a quote is part of a value): the TSVs citegraph reads.
TSV: dict[str, Any] = {"delimiter": "\t", "quoting": csv.QUOTE_NONE, "strict": True}


def table(
    file: Path, columns: list[str], dialect: Mapping[str, Any]
) -> Iterator[tuple[Location, dict[str, str] | Problem]]:
    """The rows of a CSV/TSV whose first line is the header ``columns``, one row per line."""
    for where, line in lines(file):
        if isinstance(line, Problem):
            yield where, line
            continue
        try:
            cells = next(csv.reader([line], **dialect), [])
        except csv.Error as exc:
            yield where, Problem(where, None, f"malformed row: {exc}")
            continue
        if where.line == 1:
            if cells != columns:
                yield where, Problem(where, None, f"expected the header {' '.join(columns)}, got {' '.join(cells)}")
                return
            continue
        if not line.strip():
            continue
        if len(cells) != len(columns):
            yield where, Problem(where, None, f"expected {len(columns)} columns, got {len(cells)}")
            continue
        yield where, dict(zip(columns, cells))


def items(located: Iterable[tuple[Location, Any]], parse: Callable[[Any], Iterable[Record]]) -> Iterator[Item]:
    """Apply a record parser to located values; a BadField becomes a Problem at that line.

    A value's records are materialised before any is yielded, so a bad value yields
    nothing but its Problem.
    """
    for where, value in located:
        if isinstance(value, Problem):
            yield Item(where, problem=value)
            continue
        try:
            records = list(parse(value))
        except BadField as bad:
            yield Item(where, problem=Problem(where, bad.field, bad.reason))
            continue
        for record in records:
            yield Item(where, record=record)


# -- field accessors used by the parsers ----------------------------------------------
def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


@overload
def text(obj: Mapping[str, Any], field: str, *, required: Literal[True]) -> str: ...
@overload
def text(obj: Mapping[str, Any], field: str, *, required: bool = False) -> str | None: ...
def text(obj: Mapping[str, Any], field: str, *, required: bool = False) -> str | None:
    """A string field, stripped and NFC-normalised; empty means absent."""
    value = obj.get(field)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise BadField(field, "is missing" if value is None else "is empty")
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise BadField(field, f"expected a string, got {_kind(value)}")
    return nfc(str(value).strip())


#: The integers a graph property holds (Bolt and Neo4j: 64-bit signed).
INT64 = range(-(2**63), 2**63)


def integer(obj: Mapping[str, Any], field: str) -> int | None:
    """A 64-bit integer field; digit strings (some dumps quote years) are accepted."""
    value = obj.get(field)
    if value is None or value == "":
        return None
    digits = value.strip() if isinstance(value, str) else None
    if digits and digits.lstrip("-").isdigit():
        value = int(digits) if len(digits) <= 20 else 2**64  # int() refuses over 4300 digits
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadField(field, f"expected an integer, got {_kind(value)} {value!r}"[:200])
    if value not in INT64:
        raise BadField(field, f"out of range: {(digits or str(value))[:40]} is not a 64-bit integer")
    return value


def strings(obj: Mapping[str, Any], field: str) -> tuple[str, ...]:
    """A list of strings (null or absent is empty)."""
    value = obj.get(field)
    if value is None:
        return ()
    if not isinstance(value, list):
        raise BadField(field, f"expected a list of strings, got {_kind(value)}")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise BadField(f"{field}[{i}]", f"expected a string, got {_kind(item)}")
        if item.strip():
            out.append(nfc(item.strip()))
    return tuple(out)


def objects(obj: Mapping[str, Any], field: str) -> list[Any]:
    """A list field (null or absent is empty)."""
    value = obj.get(field)
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadField(field, f"expected a list, got {_kind(value)}")
    return value


# -- SKOS/RDF XML ---------------------------------------------------------------------
_SKOS = "http://www.w3.org/2004/02/skos/core# "  # expat joins namespace and name with a space
_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns# "


@dataclass
class SkosConcept:
    """A skos:Concept element as written, unchecked: each reader checks what it needs."""

    about: str | None
    pref_labels: list[str] = field(default_factory=list)
    alt_labels: list[str] = field(default_factory=list)
    broader: list[str | None] = field(default_factory=list)


class _SkosCollector:
    """expat handlers that collect each skos:Concept, with the line of its opening tag.

    expat rather than ElementTree because it tells the line of every tag and of a syntax
    error, and it streams. The file states ``skos:broader`` for every concept but the 13
    top ones (and ``skos:narrower``, the same links seen from above), so broader is read
    as it is.
    """

    def __init__(self, file: Path):
        self.file = file
        self.parser = expat.ParserCreate(namespace_separator=" ")
        self.parser.StartElementHandler = self._start
        self.parser.EndElementHandler = self._end
        self.parser.CharacterDataHandler = self._text
        self.done: list[tuple[Location, SkosConcept]] = []
        self.concept: tuple[Location, SkosConcept] | None = None
        self.label: list[str] | None = None  # text of the label being read

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        if name == _SKOS + "Concept":
            self.concept = Location(self.file, self.parser.CurrentLineNumber), SkosConcept(attrs.get(_RDF + "about"))
        elif self.concept and name in (_SKOS + "prefLabel", _SKOS + "altLabel"):
            self.label = []
        elif self.concept and name == _SKOS + "broader":
            self.concept[1].broader.append(attrs.get(_RDF + "resource"))

    def _end(self, name: str) -> None:
        if name == _SKOS + "Concept" and self.concept:
            self.done.append(self.concept)
            self.concept = None
        elif self.concept and self.label is not None and name in (_SKOS + "prefLabel", _SKOS + "altLabel"):
            concept = self.concept[1]
            (concept.pref_labels if name == _SKOS + "prefLabel" else concept.alt_labels).append("".join(self.label))
            self.label = None

    def _text(self, data: str) -> None:
        if self.label is not None:
            self.label.append(data)

    def take(self) -> list[tuple[Location, SkosConcept]]:
        done, self.done = self.done, []
        return done


def skos_concepts(file: Path) -> Iterator[tuple[Location, SkosConcept | Problem]]:
    """Every skos:Concept of a SKOS/RDF XML file (any compression), streamed with the line
    of its opening tag; malformed or truncated XML ends the stream with a :class:`Problem`.
    The taxonomy reader (ACM CCS 2012) and the contextualisation ontologies share it."""
    collector = _SkosCollector(file)
    parser = collector.parser
    try:
        with open_binary(file) as f:
            while chunk := f.read(1 << 16):
                parser.Parse(chunk, False)
                yield from collector.take()
            parser.Parse(b"", True)
    except expat.ExpatError as exc:
        yield from collector.take()
        where = Location(file, exc.lineno)
        yield where, Problem(where, None, f"malformed XML: {expat.ErrorString(exc.code)} at column {exc.offset + 1}")
        return
    except (EOFError, OSError, zlib.error) as exc:
        yield from collector.take()
        where = Location(file, parser.CurrentLineNumber)
        yield where, Problem(where, None, f"file is truncated or corrupt ({exc})")
        return
    yield from collector.take()
