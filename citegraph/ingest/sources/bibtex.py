"""BibTeX files (digital-library exports, reference managers) as papers; the BibTeX itself is
read by :mod:`citegraph.formats.bibtex_entries` (``bibtexparser`` 2, LaTeX decoded).

One paper per entry: the **id** is the DOI (``doi`` field, or a ``https://doi.org/…`` /
``doi:`` value of ``doi`` or ``url``) in its first spelling, else the citation key
(``id_from="key"`` always uses the key); title, abstract, year, venue (``journal``,
``booktitle``, ``series``, ``publisher``, ``school``, ``institution`` or ``howpublished``,
the first given; its type from the entry's: ``@article`` a journal, ``@inproceedings`` a
conference), authors (``Last, First`` or ``First Last``, joined by ``and``; LaTeX decoded)
and keywords (split on ``,`` and ``;``; kept on the paper and indexed with its text).

DOIs are case-insensitive (DOI Handbook §2.4: ASCII letters match whatever their case),
so ``10.1023/A:1007`` and ``10.1023/a:1007`` are one paper: its id is the
spelling met first, in file order, and the spelling a file gives is kept nowhere else.
:func:`survey` reads every file of an ingest first, so that every file maps the DOI to
the same spelling (the CLI passes its ``spellings`` on); it also reports what was left
out by entry type, every id found more than once, within or across files, and what
BibTeX would not resolve either (warnings at file:line). It keeps what it read, so the
ingest's later reads of a file do not parse it again (:class:`Surveyed`).

Bad input is a :class:`~citegraph.errors.Problem` at the entry's file:line (a field's own
line where the field is at fault): what the BibTeX reading refuses (a block the parser
gave up on, a field given twice, a field too long, a name list BibTeX cannot split), a DOI
that is not one, a year that is not one. ``year = {in press}`` (no digits) is no year.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import Location, Problem
from ...formats.bibtex_entries import VENUE_FIELDS, Entry, parse
from ..formats import files_in
from ..records import Author, Item, Paper, unique_strings
from ..source import BadField

PATTERNS = ("*.bib", "*.bibtex")
_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)
_DOI_IN_URL = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\d{4,9}/\S+)$", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
#: The entry types that say what the venue is (``Paper.venue_type``); others (@book, @misc …) do not.
VENUE_TYPES = {"article": "journal", "inproceedings": "conference", "conference": "conference"}


def files(path: Path) -> list[Path]:
    return files_in(path, PATTERNS)


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
    return Paper(
        id=paper_id,
        title=_string(fields, "title"),
        abstract=_string(fields, "abstract"),
        year=year,
        venue=venue,
        doi=doi,
        keywords=keywords_of(fields),
        authors=tuple(Author.from_name(n) for n in fields.get("author", ())),
        venue_type=VENUE_TYPES.get(entry.type),
    )


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


def read(
    file: Path,
    entry_types: Iterable[str] | None = None,
    id_from: str = "doi",
    spellings: Mapping[str, str] | None = None,
    surveyed: Surveyed | None = None,
) -> Iterator[Item]:
    """One Item per entry of ``file`` (of the ``entry_types``, all when None), by line: the
    survey's (``surveyed``) if it read the file as it is now, else parsed here."""
    kept = surveyed.items(file) if surveyed is not None else None
    if kept is not None:
        return iter(kept)
    types = frozenset(t.lower() for t in entry_types) if entry_types else None
    return _items(file, parse(file), types, id_from, dict(spellings or {}))


def _items(
    file: Path, entries: Iterable[Entry], types: frozenset[str] | None, id_from: str, spellings: dict[str, str]
) -> Iterator[Item]:
    for entry in entries:
        if entry.problem is not None:
            yield Item(entry.where, problem=entry.problem)
            continue
        if not _selected(entry, types):
            continue
        try:
            paper_id, doi = _identify(entry, id_from, spellings)
            yield Item(entry.where, _paper(entry, paper_id, doi))
        except BadField as bad:
            line = entry.lines.get(bad.field, entry.where.line) if bad.field else entry.where.line
            yield Item(entry.where, problem=Problem(Location(file, line), bad.field, bad.reason))


class Surveyed:
    """The items the survey read from each file, kept for the ingest's reads (validation,
    writing) so that each file is parsed once: pickled to a private temporary folder (not
    held in memory: a collection's items are as large as its text), removed with this
    object. A file changed since is parsed again."""

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="citegraph-bibtex-")
        self._kept: dict[Path, tuple[tuple[int, int], Path]] = {}

    @staticmethod
    def _stamp(file: Path) -> tuple[int, int]:
        stat = file.stat()
        return stat.st_size, stat.st_mtime_ns

    def keep(self, file: Path, stamp: tuple[int, int], items: list[Item]) -> None:
        path = Path(self._folder.name) / f"{len(self._kept)}.pickle"
        path.write_bytes(pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL))
        self._kept[Path(file).resolve()] = (stamp, path)

    def items(self, file: Path) -> list[Item] | None:
        kept = self._kept.get(Path(file).resolve())
        if kept is None or kept[0] != self._stamp(Path(file)):
            return None
        return pickle.loads(kept[1].read_bytes())


@dataclass
class Survey:
    """What the files hold before anything is written (see :func:`survey`)."""

    spellings: dict[str, str] = field(default_factory=dict)  # casefolded DOI → first spelling
    entries: Counter = field(default_factory=Counter)  # entry type → count
    left_out: Counter = field(default_factory=Counter)  # entry type → count, not of the chosen types
    duplicates: dict[str, list[str]] = field(default_factory=dict)  # paper id → every file:line giving it
    without_doi: int = 0
    warnings: list[Problem] = field(default_factory=list)  # what BibTeX would not resolve either
    surveyed: Surveyed = field(default_factory=Surveyed)

    @property
    def reader_settings(self) -> dict[str, Any]:
        """What :func:`read` needs to give every file's entries the same ids, and the items already read."""
        return {"spellings": self.spellings, "surveyed": self.surveyed}

    def rows(self) -> list[dict]:
        """The table the CLI prints: entries per type, read or left out, and those without a DOI."""
        out = [
            {"entries": f"@{t}", "count": n, "read": t not in self.left_out} for t, n in sorted(self.entries.items())
        ]
        return [*out, {"entries": "read, without a DOI (id: citation key)", "count": self.without_doi, "read": True}]

    def notes(self) -> list[str]:
        """One line per id given more than once (the later entries' values win), then one per warning."""
        return [
            *(f"duplicate id {paper_id}: {', '.join(places)}" for paper_id, places in sorted(self.duplicates.items())),
            *(f"warning: {problem}" for problem in self.warnings),
        ]


def survey(files: Sequence[Path], entry_types: Iterable[str] | None = None, id_from: str = "doi") -> Survey:
    """Read every file once: DOI spellings, entry types, ids given more than once, warnings;
    each file's items are kept for :func:`read`. A file's ids are final when it is read: a
    DOI's first spelling is never in a later file."""
    types = frozenset(t.lower() for t in entry_types) if entry_types else None
    result = Survey()
    seen: dict[str, list[str]] = {}
    for file, stamp, entries in _parsed(files):
        items = list(_items(file, entries, types, id_from, result.spellings))
        result.surveyed.keep(file, stamp, items)
        for entry in entries:
            result.warnings += entry.warnings
            if entry.problem is None:
                result.entries[entry.type] += 1
                result.left_out[entry.type] += not _selected(entry, types)
        for item in items:
            if isinstance(item.record, Paper):
                result.without_doi += item.record.doi is None
                seen.setdefault(item.record.id, []).append(str(item.where))
    result.left_out = +result.left_out  # types read are not listed
    result.duplicates = {paper_id: places for paper_id, places in seen.items() if len(places) > 1}
    return result


#: From this many bytes in two files or more, the survey parses files in worker processes, one
#: per core (parsing is CPU-bound Python; below it, starting the workers costs more than it saves).
PARALLEL_FROM_BYTES = 8 * 2**20


def _parsed(files: Sequence[Path]) -> Iterator[tuple[Path, tuple[int, int], list[Entry]]]:
    """Each file with its stamp (before reading) and entries, in the order given."""
    workers = min(os.cpu_count() or 1, len(files))
    if workers < 2 or sum(Path(f).stat().st_size for f in files) < PARALLEL_FROM_BYTES:
        yield from map(_stamped_parse, files)
        return
    # spawn, not fork: the caller may hold a driver's threads and sockets
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield from pool.map(_stamped_parse, files)


def _stamped_parse(file: Path) -> tuple[Path, tuple[int, int], list[Entry]]:
    stamp = Surveyed._stamp(Path(file))
    return file, stamp, parse(file)
