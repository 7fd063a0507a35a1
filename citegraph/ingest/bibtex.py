"""BibTeX files (digital-library exports, reference managers), read with ``bibtexparser`` 2.

One paper per entry: the **id** is the DOI (``doi`` field, or a ``https://doi.org/…`` /
``doi:`` value of ``doi`` or ``url``) in its first spelling, else the citation key
(``id_from="key"`` always uses the key); title, abstract, year, venue (``journal``,
``booktitle``, ``series``, ``publisher``, ``school`` or ``institution``, the first
given), authors (``Last, First`` or ``First Last``, joined by ``and``; LaTeX decoded)
and keywords (split on ``,`` and ``;``; kept on the paper and indexed with its text).

DOIs are case-insensitive (DOI Handbook §2.4: ASCII letters match whatever their case),
so ``10.1023/A:1007`` and ``10.1023/a:1007`` are one paper: its id is the
spelling met first, in file order, and the spelling a file gives is kept nowhere else.
:func:`survey` reads every file of an ingest first, so that every file maps the DOI to
the same spelling (the CLI passes its ``spellings`` on); it also reports what was left
out by entry type and every id found more than once, within or across files.

Bad input is a :class:`~citegraph.errors.Problem` at the entry's file:line (a field's own
line where the field is at fault): a block the parser gave up on, a field given twice,
a DOI that is not one, a year that is not one. ``year = {in press}`` (no digits) is no year.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CitegraphError, Location, Problem
from .formats import files_in
from .records import Author, Item, Paper, unique_strings
from .source import BadField

PATTERNS = ("*.bib", "*.bibtex")
VENUE_FIELDS = ("journal", "journaltitle", "booktitle", "series", "publisher", "school", "institution")
_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)
_DOI_IN_URL = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\d{4,9}/\S+)$", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")


def files(path: Path) -> list[Path]:
    return files_in(path, PATTERNS)


@dataclass(frozen=True, slots=True)
class Entry:
    """One parsed entry, or the problem that stopped it."""

    where: Location
    key: str = ""
    type: str = ""
    fields: Mapping[str, Any] = field(default_factory=dict)
    lines: Mapping[str, int] = field(default_factory=dict)  # field → 1-based line
    problem: Problem | None = None


def parse(file: Path) -> list[Entry]:
    """Every entry of a UTF-8 BibTeX file (a byte-order mark allowed), in line order (:func:`parse_text`)."""
    try:
        text = Path(file).read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CitegraphError(f"{file}: not UTF-8 (byte at offset {exc.start}); re-export the file as UTF-8") from None
    return parse_text(text, file)


def parse_text(text: str, file: Path) -> list[Entry]:
    """Every entry of ``text`` (read from ``file``), in line order: field names lower-cased,
    values LaTeX-decoded (``T{\\"a}ckstr{\\"o}m`` → ``Täckström``, case-protecting braces
    dropped), ``author`` split into names; a block the parser gave up on is an entry with
    its :class:`~citegraph.errors.Problem`. The one reading of BibTeX: ingest and libraries
    (:mod:`citegraph.library.entries`) share it."""
    import bibtexparser
    from bibtexparser import middlewares

    logging.getLogger("bibtexparser").setLevel(logging.ERROR)  # every failed block becomes a located Problem
    library = bibtexparser.parse_string(text, append_middleware=[
        middlewares.LatexDecodingMiddleware(), middlewares.SeparateCoAuthors(), middlewares.SplitNameParts()])
    # the parser sets every block's start_line; the library types it Optional for blocks made by hand
    entries = [Entry(Location(file, e.start_line + 1), e.key, e.entry_type.lower(),  # type: ignore[operator]
                     {f.key.lower(): f.value for f in e.fields}, {f.key.lower(): f.start_line + 1 for f in e.fields})
               for e in library.entries]
    for block in library.failed_blocks:
        error = getattr(block, "error", None)
        reason = (getattr(error, "abort_reason", None) or str(error or "")).strip() or "the parser gave up here"
        where = Location(file, block.start_line + 1)  # type: ignore[operator]  # as above
        entries.append(Entry(where, problem=Problem(where, None, f"not a BibTeX entry: {reason.splitlines()[0]}")))
    return sorted(entries, key=lambda e: e.where.line)


def doi_of(fields: Mapping[str, Any]) -> str | None:
    """The DOI an entry gives, without a resolver prefix; None if none. A ``doi`` that is not one raises ValueError."""
    value = fields.get("doi")
    if isinstance(value, str) and value.strip():
        match = _DOI.match(value.strip())
        if match is None:
            raise ValueError(f"{value.strip()[:60]!r} is not a DOI (10.<registrant>/<suffix>)")
        return match.group(1)
    url = fields.get("url")
    match = _DOI_IN_URL.match(url.strip()) if isinstance(url, str) else None
    return match.group(1) if match else None


def _string(fields: Mapping[str, Any], name: str) -> str | None:
    value = fields.get(name)
    if not isinstance(value, str):
        return None
    value = " ".join(value.split())
    return value or None


def _names(value: Any) -> list[str]:
    from pylatexenc.latex2text import LatexNodes2Text

    decode = LatexNodes2Text().latex_to_text
    names = value if isinstance(value, list) else []
    return [n for n in (" ".join(decode(name.merge_first_name_first).split()) for name in names) if n]


def keywords_of(fields: Mapping[str, Any]) -> tuple[str, ...]:
    value = _string(fields, "keywords") or _string(fields, "keyword") or ""
    return unique_strings(k.strip() for k in re.split(r"[,;]", value) if k.strip())


def _year(fields: Mapping[str, Any]) -> int | None:
    value = _string(fields, "year") or (_string(fields, "date") or "")[:4] or None
    if value is None:
        return None
    found = _YEAR.search(value)
    if found:
        return int(found.group(1))
    if re.search(r"\d", value):
        raise ValueError(f"{value[:40]!r} is not a year")
    return None  # "in press", "forthcoming": no year


def _paper(entry: Entry, paper_id: str, doi: str | None) -> Paper:
    fields = entry.fields
    try:
        year = _year(fields)
    except ValueError as bad:
        raise BadField("year", str(bad)) from None
    venue = next((v for name in VENUE_FIELDS if (v := _string(fields, name))), None)
    return Paper(id=paper_id, title=_string(fields, "title"), abstract=_string(fields, "abstract"), year=year,
                 venue=venue, doi=doi, keywords=keywords_of(fields),
                 authors=tuple(Author.from_name(n) for n in _names(fields.get("author"))))


def _identify(entry: Entry, id_from: str, spellings: dict[str, str]) -> tuple[str, str | None]:
    """The entry's paper id and DOI (first spelling, registered in ``spellings``); raises BadField."""
    try:
        doi = doi_of(entry.fields)
    except ValueError as bad:
        raise BadField("doi", str(bad)) from None
    if doi is not None:
        doi = spellings.setdefault(doi.casefold(), doi)
    if id_from == "key" or doi is None:
        if not entry.key.strip():
            raise BadField(None, "an entry without a citation key or a DOI")
        return entry.key.strip(), doi
    return doi, doi


def _selected(entry: Entry, entry_types: frozenset[str] | None) -> bool:
    return entry_types is None or entry.type in entry_types


def read(file: Path, entry_types: Iterable[str] | None = None, id_from: str = "doi",
         spellings: Mapping[str, str] | None = None) -> Iterator[Item]:
    """One Item per entry of ``file`` (of the ``entry_types``, all when None), by line."""
    types = frozenset(t.lower() for t in entry_types) if entry_types else None
    known = dict(spellings or {})
    for entry in parse(file):
        if entry.problem is not None:
            yield Item(entry.where, problem=entry.problem)
            continue
        if not _selected(entry, types):
            continue
        try:
            paper_id, doi = _identify(entry, id_from, known)
            yield Item(entry.where, _paper(entry, paper_id, doi))
        except BadField as bad:
            line = entry.lines.get(bad.field, entry.where.line) if bad.field else entry.where.line
            yield Item(entry.where, problem=Problem(Location(file, line), bad.field, bad.reason))


@dataclass
class Survey:
    """What the files hold before anything is written (see :func:`survey`)."""

    spellings: dict[str, str] = field(default_factory=dict)  # casefolded DOI → first spelling
    entries: Counter = field(default_factory=Counter)  # entry type → count
    left_out: Counter = field(default_factory=Counter)  # entry type → count, not of the chosen types
    duplicates: dict[str, list[str]] = field(default_factory=dict)  # paper id → every file:line giving it
    without_doi: int = 0

    @property
    def reader_settings(self) -> dict[str, Any]:
        """What :func:`read` needs to give every file's entries the same ids."""
        return {"spellings": self.spellings}

    def rows(self) -> list[dict]:
        """The table the CLI prints: entries per type, read or left out, and those without a DOI."""
        out = [{"entries": f"@{t}", "count": n, "read": t not in self.left_out}
               for t, n in sorted(self.entries.items())]
        return [*out, {"entries": "read, without a DOI (id: citation key)", "count": self.without_doi, "read": True}]

    def notes(self) -> list[str]:
        """One line per id given more than once (the later entries' values win)."""
        return [f"duplicate id {paper_id}: {', '.join(places)}" for paper_id, places in sorted(self.duplicates.items())]


def survey(files: Sequence[Path], entry_types: Iterable[str] | None = None, id_from: str = "doi") -> Survey:
    """Read every file once: DOI spellings, entry types, and ids given more than once."""
    types = frozenset(t.lower() for t in entry_types) if entry_types else None
    result = Survey()
    seen: dict[str, list[str]] = {}
    for file in files:
        for entry in parse(file):
            if entry.problem is not None:
                continue
            result.entries[entry.type] += 1
            if not _selected(entry, types):
                result.left_out[entry.type] += 1
                continue
            try:
                paper_id, doi = _identify(entry, id_from, result.spellings)
            except BadField:
                continue  # the ingest's validation reports it
            result.without_doi += doi is None
            seen.setdefault(paper_id, []).append(str(entry.where))
    result.duplicates = {paper_id: places for paper_id, places in seen.items() if len(places) > 1}
    return result
