"""BibTeX text read as BibTeX reads it, into located entries: the one reading of BibTeX, which
the ingest (:mod:`citegraph.ingest.sources.bibtex`) and a user's library (:mod:`citegraph.library.entries`) share.

``#`` concatenations are joined, ``@string`` and month macros expanded, the fields a
``crossref`` names taken from its parent; the fields citegraph reads are LaTeX-decoded
(:mod:`.latex_text`) and their authors split into names. What BibTeX would not resolve either
(an undefined macro, a lost accent) is a warning at file:line; a block the parser gave up
on, a field past :data:`MAX_FIELD_CHARS` or a name list BibTeX cannot split is the entry's
:class:`~citegraph.errors.Problem`, at the field's own line where the field is at fault.
"""

from __future__ import annotations

import calendar
import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bibtexparser.middlewares.names import InvalidNameError, parse_single_name_into_parts, split_multiple_persons_names

from ..errors import CitegraphError, Location, Problem
from . import latex_text

#: The fields that name a paper's venue, the first given winning (``howpublished``: a @misc's,
#: as citegraph's exports write a venue of no known type).
VENUE_FIELDS = ("journal", "journaltitle", "booktitle", "series", "publisher", "school", "institution", "howpublished")
#: The fields citegraph reads: decoded, and held to :data:`MAX_FIELD_CHARS`; others are left alone.
READ_FIELDS = frozenset(
    {
        "title",
        "abstract",
        "author",
        "keywords",
        "keyword",
        "year",
        "date",
        "doi",
        "url",
        "eprint",
        "archiveprefix",
        "citegraph-id",
        *VENUE_FIELDS,
    }
)
#: A field citegraph reads is refused past this (abstracts run to a few thousand characters).
MAX_FIELD_CHARS = 100_000
#: The month macros BibTeX's standard styles define (``month = jan``).
MONTHS = {name[:3].lower(): name for name in calendar.month_name[1:]}
#: What a ``crossref`` child does not take from its parent: what names or describes the parent
#: itself (its ``title`` becomes the child's ``booktitle`` where the child has none).
NOT_INHERITED = frozenset(
    {
        "crossref",
        "doi",
        "url",
        "eprint",
        "archiveprefix",
        "isbn",
        "citegraph-id",
        "abstract",
        "keywords",
        "keyword",
        "title",
    }
)
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BRACE = re.compile(r"(?<!\\)[{}]")  # as bibtexparser's splitter counts them
_QUOTED = re.compile(r'(?<!\\)[{}"]')
_NAME = re.compile(r"[^\s#{}\"]+")
#: ``and``s at the start or end of a name (outside braces: a braced name starts with one).
_EDGE_ANDS = re.compile(r"^(?:and(?:\s+|$))+|(?:\s+and)+$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Entry:
    """One parsed entry, or the problem that stopped it; ``warnings``: what it holds that
    BibTeX would not resolve either (an undefined macro, a lost accent), located."""

    where: Location
    key: str = ""
    type: str = ""
    fields: Mapping[str, Any] = field(default_factory=dict)  # READ_FIELDS: text; "author": a tuple of names
    lines: Mapping[str, int] = field(default_factory=dict)  # field → 1-based line
    problem: Problem | None = None
    warnings: tuple[Problem, ...] = ()


def parse(file: Path) -> list[Entry]:
    """Every entry of a UTF-8 BibTeX file (a byte-order mark allowed), in line order (:func:`parse_text`)."""
    try:
        text = Path(file).read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CitegraphError(f"{file}: not UTF-8 (byte at offset {exc.start}); re-export the file as UTF-8") from None
    return parse_text(text, file)


def parse_text(text: str, file: Path) -> list[Entry]:
    """Every entry of ``text`` (read from ``file``), in line order, as BibTeX reads it:
    ``#`` concatenations joined, ``@string`` and month macros expanded, fields a ``crossref``
    names taken from its parent (:data:`NOT_INHERITED` aside); then the :data:`READ_FIELDS`
    LaTeX-decoded where they hold LaTeX (``T{\\"a}ckstr{\\"o}m`` → ``Täckström``,
    case-protecting braces dropped; :mod:`.latex_text`), control characters dropped, ``author``
    split into names. A block the parser gave up on, or a field too long, is an entry with
    its :class:`~citegraph.errors.Problem`. The one reading of BibTeX: ingest and libraries
    (:mod:`citegraph.library.entries`) share it.

    bibtexparser splits the text (keeping its located failed blocks); its middlewares are
    not used: its decoding middleware decodes every value whole (the cost :mod:`.latex_text`
    avoids), and it neither concatenates, nor warns of undefined macros, nor follows crossref."""
    import bibtexparser

    logging.getLogger("bibtexparser").setLevel(logging.ERROR)  # every failed block becomes a located Problem
    library = bibtexparser.parse_string(text, parse_stack=[])
    macros = _Macros({s.key.lower(): s.value for s in library.strings})
    resolved = []
    for e in library.entries:
        found = _Found(file, {})
        for f in e.fields:
            try:
                value = macros.resolve(f.value, found.warner(f.key.lower(), f.start_line + 1))
            except _ExpandsPastTheLimit:
                value, found.too_long[f.key.lower()] = "", True
            found.fields[f.key.lower()] = (value, f.start_line + 1)
        resolved.append((e, found))
    parents = {e.key.lower(): found.fields for e, found in resolved}
    # the parser sets every block's start_line; the library types it Optional for blocks made by hand
    entries = [
        _entry(
            Location(file, e.start_line + 1),  # type: ignore[operator]
            e.key,
            e.entry_type.lower(),
            _inherited(found, parents),
        )
        for e, found in resolved
    ]
    for block in library.failed_blocks:
        error = getattr(block, "error", None)
        reason = (getattr(error, "abort_reason", None) or str(error or "")).strip() or "the parser gave up here"
        where = Location(file, block.start_line + 1)  # type: ignore[operator]  # as above
        entries.append(Entry(where, problem=Problem(where, None, f"not a BibTeX entry: {reason.splitlines()[0]}")))
    return sorted(entries, key=lambda e: e.where.line)


@dataclass
class _Found:
    """One entry's fields as resolved (value, line), and the warnings met resolving them."""

    file: Path
    fields: dict[str, tuple[str, int]]
    warnings: list[Problem] = field(default_factory=list)
    too_long: dict[str, bool] = field(default_factory=dict)  # fields whose macros expand past the limit

    def warner(self, name: str, line: int):
        return lambda reason: self.warnings.append(Problem(Location(self.file, line), name, reason))


class _ExpandsPastTheLimit(Exception):
    """A value's macros expand past :data:`MAX_FIELD_CHARS` (stopped there: each ``@string``
    of a few bytes may double the last one's text, 2^n characters from n lines)."""


class _Macros:
    """A file's ``@string`` macros (case-insensitive, the last definition winning, as in
    bibtexparser) over BibTeX's month macros, each expanded once, none past the field limit."""

    def __init__(self, raw: dict[str, str]):
        self._raw = raw
        self._done: dict[str, str | None] = {}  # None: expands past the limit

    def resolve(self, raw: str, warn, expanding: tuple[str, ...] = ()) -> str:
        """A field's value: its pieces (``{…}``, ``"…"``, numbers, macros) joined, as BibTeX's ``#``."""
        if "#" not in raw and raw[:1] in ("{", '"') and raw[-1:] == ("}" if raw[0] == "{" else '"'):
            return raw[1:-1]  # the usual case: one delimited piece
        pieces, length = [], 0
        for kind, text in _pieces(raw):
            piece = self._piece(kind, text, warn, expanding)
            length += len(piece)
            if length > MAX_FIELD_CHARS:
                raise _ExpandsPastTheLimit
            pieces.append(piece)
        return "".join(pieces)

    def _piece(self, kind: str, text: str, warn, expanding: tuple[str, ...]) -> str:
        if kind == "text" or text.isdigit():
            return text
        name = text.lower()
        if name in self._done:
            done = self._done[name]
            if done is None:
                raise _ExpandsPastTheLimit
            return done
        if name in expanding:
            warn(
                f"@string macro '{text}' is defined by itself ({' → '.join((*expanding, name))}); "
                "BibTeX's empty text used"
            )
            return ""
        if name not in self._raw:
            if name in MONTHS:
                return MONTHS[name]
            warn(f"undefined @string macro '{text}'; BibTeX's empty text used")
            return ""
        try:
            self._done[name] = value = self.resolve(self._raw[name], warn, (*expanding, name))
        except _ExpandsPastTheLimit:
            self._done[name] = None
            raise
        return value


def _pieces(raw: str) -> Iterator[tuple[str, str]]:
    """The ``#``-joined pieces of a raw value: ("text", inside of a ``{…}`` or ``"…"``) or ("name", a macro or number)."""
    at = 0
    while at < len(raw):
        char = raw[at]
        if char.isspace() or char == "#":
            at += 1
        elif char in '{"':
            end = _closing(raw, at)
            yield "text", raw[at + 1 : end]
            at = end + 1
        else:
            name = _NAME.match(raw, at)
            if name is None:  # a stray closing brace, kept as the text it is
                yield "text", char
                at += 1
            else:
                yield "name", name.group()
                at = name.end()


def _closing(raw: str, start: int) -> int:
    """Where the ``{…}`` or ``"…"`` opened at ``start`` closes (braces nest; the end if never)."""
    depth = 0
    quote = raw[start] == '"'
    for mark in (_QUOTED if quote else _BRACE).finditer(raw, start + 1 if quote else start):
        depth += {"{": 1, "}": -1}.get(mark.group(), 0)
        if (quote and mark.group() == '"' and depth == 0) or (not quote and depth == 0):
            return mark.start()
    return len(raw)


def _inherited(found: _Found, parents: Mapping[str, dict[str, tuple[str, int]]]) -> _Found:
    """``found`` with what its ``crossref`` parent gives and it lacks (BibTeX's inheritance)."""
    if "crossref" not in found.fields:
        return found
    key, line = found.fields["crossref"]
    parent = parents.get(key.strip().lower())
    if parent is None or parent is found.fields:
        found.warnings.append(
            Problem(
                Location(found.file, line), "crossref", f"no entry {key.strip()!r} in this file to take fields from"
            )
        )
        return found
    given = {name: value for name, value in parent.items() if name not in NOT_INHERITED}
    if "title" in parent:
        given.setdefault("booktitle", parent["title"])
    found.fields = {**given, **found.fields}
    return found


def _entry(where: Location, key: str, entry_type: str, found: _Found) -> Entry:
    """The entry with its read fields decoded; or the problem of a field too long or a name BibTeX cannot split."""
    fields: dict[str, Any] = {}
    lines = {name: line for name, (_, line) in found.fields.items()}
    for name, (value, line) in found.fields.items():
        if name not in READ_FIELDS:
            continue
        warn = found.warner(name, line)
        too_long = (
            f"its @string macros expand past {MAX_FIELD_CHARS:,} characters, the most citegraph reads of a field"
            if found.too_long.get(name)
            else f"{len(value):,} characters; citegraph reads at most {MAX_FIELD_CHARS:,} of a field"
            if len(value) > MAX_FIELD_CHARS
            else None
        )
        if too_long:
            return Entry(where, key, entry_type, problem=Problem(Location(where.path, line), name, too_long))
        if CONTROL_CHARACTERS.search(value):
            warn("control characters (a NUL, …) dropped")
            value = CONTROL_CHARACTERS.sub("", value)
        try:
            fields[name] = _names(value, warn) if name == "author" else _text(value, warn)
        except InvalidNameError as bad:
            return Entry(where, key, entry_type, problem=Problem(Location(where.path, line), name, bad.reason))
    return Entry(where, key, entry_type, fields, lines, warnings=tuple(found.warnings))


def _text(value: str, warn) -> str:
    text, problems = latex_text.decode(value)
    for problem in problems:
        warn(problem)
    return text


def _names(value: str, warn) -> tuple[str, ...]:
    """The names of a name list, split as BibTeX splits them (on ``and`` outside braces), then
    decoded; empty names dropped. BibTeX takes an ``and`` for a separator only between two
    names, so in ``{ and  and }`` it sees one person named "and and", and in ``A and  and B``
    it reads "and B" as the second name: the ``and``s left at either end of a name are the
    separators of empty names, and go."""
    split = (_EDGE_ANDS.sub("", name) for name in split_multiple_persons_names(value))
    names = (parse_single_name_into_parts(name).merge_first_name_first for name in split if name)
    return tuple(n for n in (" ".join(_text(name, warn).split()) for name in names) if n)
