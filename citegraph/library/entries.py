"""A researcher's library as entries: BibTeX, RIS, CSL-JSON (as Zotero exports them) or a
plain list of DOIs, arXiv ids and paper ids, one a line.

The files are read with kept parsers (BibTeX as ``citegraph ingest bibtex`` reads it,
:func:`citegraph.formats.bibtex_entries.parse_text`; ``rispy``; ``json``); this module only picks
out what an entry is matched to the graph by (:mod:`.match`): DOI, arXiv id, paper id,
title and year, and the line it came from, so that an unmatched entry can be named.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import CitegraphError, InputError, Location, Problem

_ARXIV = re.compile(
    r"(?:arxiv[:/]\s*|arxiv\.org/(?:abs|pdf)/)?(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?", re.IGNORECASE
)
_DOI = re.compile(r"(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LibraryEntry:
    """One reference of a library, with what it can be matched by."""

    where: str  # 'refs.bib:12 (key)' — how the user finds the entry again
    title: str = ""
    year: int | None = None
    doi: str = ""
    arxiv: str = ""
    id: str = ""  # a graph paper id given as such (plain lists)
    warnings: tuple[str, ...] = ()  # 'refs.bib:14: field 'journal' undefined @string macro …' (BibTeX)


def read_library(path: Path) -> list[LibraryEntry]:
    """The entries of a library file, by its extension: ``.bib``, ``.ris``, ``.json``
    (CSL-JSON), anything else a plain list of ids."""
    path = Path(path)
    if not path.is_file():
        raise CitegraphError(f"{path}: no such library file")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        where = Location(path, data[: exc.start].count(b"\n") + 1)
        raise InputError(
            Problem(where, None, f"not valid UTF-8 (byte 0x{data[exc.start]:02x}): save the library as UTF-8")
        ) from None
    entries = parse_library(text, path)
    if not entries:
        raise CitegraphError(f"{path}: no entries found")
    return entries


def parse_library(text: str, name: str | Path) -> list[LibraryEntry]:
    """The entries of a library's text (maybe none), read as its file ``name``'s extension
    says (an upload or a paste has a name but no file)."""
    path = Path(name)
    reader = {".bib": _bibtex, ".ris": _ris, ".json": _csl_json}.get(path.suffix.lower(), _plain)
    return reader(path, text)


def entries_of(source: str) -> list[LibraryEntry]:
    """A library file's entries, or one entry for an id, DOI or arXiv id given as such."""
    return read_library(Path(source)) if Path(source).is_file() else [entry_from_id(source)]


def entry_from_id(text: str, where: str = "") -> LibraryEntry:
    """An entry for a DOI, an arXiv id or a paper id given on its own (a line, an argument)."""
    text = text.strip()
    if doi := _DOI.fullmatch(text):
        return LibraryEntry(where or text, doi=doi.group(1))
    if (arxiv := _ARXIV.fullmatch(text)) and (text[:1].isdigit() or text.lower().startswith("arxiv")):
        return LibraryEntry(where or text, arxiv=arxiv.group(1))
    return LibraryEntry(where or text, id=text)


def _plain(path: Path, text: str) -> list[LibraryEntry]:
    return [
        entry_from_id(line, f"{path}:{number}")
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _bibtex(path: Path, text: str) -> list[LibraryEntry]:
    from ..formats.bibtex_entries import parse_text
    from ..ingest.sources.bibtex import doi_of

    out = []
    for entry in parse_text(text, path):
        if entry.problem is not None:
            raise InputError(entry.problem)
        fields = {k: v for k, v in entry.fields.items() if isinstance(v, str)}
        line = entry.where.line
        try:
            doi = doi_of(fields) or _found(_DOI, fields.get("url", ""))
        except ValueError as bad:
            raise InputError(Problem(Location(path, entry.lines.get("doi", line)), "doi", str(bad))) from None
        arxiv = fields.get("eprint", "") if "arxiv" in fields.get("archiveprefix", "arxiv").lower() else ""
        out.append(
            LibraryEntry(
                f"{path}:{line} ({entry.key})",
                " ".join(fields.get("title", "").split()),
                _year(fields.get("year", ""), path, entry.lines.get("year", line)),
                doi,
                arxiv or _found(_ARXIV, fields.get("url", "")),
                fields.get("citegraph-id", ""),
                tuple(map(str, entry.warnings)),
            )
        )
    return out


def _ris(path: Path, text: str) -> list[LibraryEntry]:
    import rispy

    try:
        records = rispy.loads(text)
    except Exception as exc:  # rispy raises plain Exceptions for a malformed file
        raise InputError(Problem(Location(path, 1), None, f"not RIS: {exc}")) from exc
    out = []
    for number, record in enumerate(records, start=1):
        year = record.get("year") or record.get("publication_year") or ""
        url = " ".join(record.get("urls", []))
        out.append(
            LibraryEntry(
                f"{path}: record {number}",
                record.get("title") or record.get("primary_title") or "",
                _year(str(year)[:4], path, number),
                record.get("doi", "") or _found(_DOI, url),
                _found(_ARXIV, url),
                record.get("id", ""),
            )
        )
    return out


def _csl_json(path: Path, text: str) -> list[LibraryEntry]:
    from ..ingest.source import json_failure, lone_surrogate_problem

    try:
        items = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InputError(Problem(Location(path, getattr(exc, "lineno", 1)), None, json_failure(exc))) from None
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise InputError(Problem(Location(path, 1), None, "CSL-JSON is a list of objects"))
    out = []
    for number, item in enumerate(items, start=1):
        where = Location(path, number)
        if problem := lone_surrogate_problem(where, item):
            raise InputError(problem)
        key, title, doi, url, report, graph_id = (
            _csl_text(item, name, where) for name in ("id", "title", "DOI", "URL", "number", "citegraph-id")
        )
        out.append(
            LibraryEntry(
                f"{path}: item {number} ({key})",
                title,
                _year(_csl_year(item.get("issued"), where), path, number),
                doi or _found(_DOI, url),
                _found(_ARXIV, url) or _found(_ARXIV, report),
                graph_id,
            )
        )
    return out


def _csl_text(item: dict, key: str, where: Location) -> str:
    found = item.get(key, "")
    if not isinstance(found, (str, int)) or isinstance(found, bool):
        raise InputError(Problem(where, key, f"expected a string, got {type(found).__name__}"))
    return str(found)


def _csl_year(issued: object, where: Location) -> str:
    """The year of a CSL date (``{"date-parts": [[2011, 3]]}``), '' when it gives none."""
    parts = issued.get("date-parts", [[]]) if isinstance(issued, dict) else [[]] if issued is None else None
    if not isinstance(parts, list) or not all(isinstance(part, list) for part in parts):
        raise InputError(Problem(where, "issued", 'expected {"date-parts": [[year, month, day]]}'))
    year = parts[0][0] if parts and parts[0] else None
    return "" if year is None else str(year)


def _year(text: str, path: Path, line: int) -> int | None:
    text = text.strip()
    if not text:
        return None
    if not text.isdigit():
        raise InputError(Problem(Location(path, line), "year", f"not a year: {text!r}"))
    return int(text)


def _found(pattern: re.Pattern, text: str) -> str:
    match = pattern.search(text)
    return match.group(1) if match else ""
