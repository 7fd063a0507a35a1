"""The registry of input formats, by name (the CLI's choices come from it).

A format turns a user's path into the files it reads, in order, and each file into
located :class:`~citegraph.ingest.records.Item` s. Formats import lazily so that listing
them costs nothing.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from importlib import import_module
from pathlib import Path
from typing import Any

from ..errors import CitegraphError
from .records import Item
from .selection import Selection


@dataclass(frozen=True, slots=True)
class Format:
    """An input format. ``settings`` are the reader's keyword arguments (``accepts`` names
    them); a module that defines ``survey(files, **settings)`` reads all files of an ingest
    before it starts, for what one file cannot tell (ids given in several files)."""

    name: str
    summary: str
    module: str  # citegraph.ingest.sources.<module> defines files(path) and read(file[, selection])
    selects: bool = False  # read() takes a Selection, and referenced(files, criteria) gives WorkIds
    accepts: tuple[str, ...] = ()  # the reader's settings (keyword arguments of read)
    settings: tuple[tuple[str, Any], ...] = ()

    def _load(self):
        return import_module(f"citegraph.ingest.sources.{self.module}")

    def configured(self, **settings: Any) -> Format:
        """This format with reader settings (None values are left unset)."""
        given = {k: v for k, v in settings.items() if v is not None}
        unknown = sorted(set(given) - set(self.accepts))
        if unknown:
            raise CitegraphError(
                f"format '{self.name}' has no setting {', '.join(unknown)}"
                + (f" (it has: {', '.join(self.accepts)})" if self.accepts else "")
            )
        return replace(self, settings=tuple(sorted({**dict(self.settings), **given}.items())))

    @property
    def key(self) -> str:
        """The format and the settings that change what is read (checkpoints are per key)."""
        shown = [f"{k}={v}" for k, v in self.settings if k in self.accepts]
        return self.name + (f"[{','.join(shown)}]" if shown else "")

    def files(self, path: Path) -> list[Path]:
        """The files ``path`` stands for, in reading order (a file, or those in a folder)."""
        return self._load().files(Path(path))

    def read(self, file: Path, selection: Selection = Selection()) -> Iterator[Item]:
        settings = dict(self.settings)
        if not selection.active:
            return self._load().read(Path(file), **settings)
        self._refuse_unless_selecting()
        if selection.include_referenced and selection.referenced is None:
            raise CitegraphError(
                "include_referenced: the referenced works are found over all files of the ingest first (Format.widened)"
            )
        return self._load().read(Path(file), selection, **settings)

    def _refuse_unless_selecting(self) -> None:
        if not self.selects:
            choosers = ", ".join(f.name for f in FORMATS.values() if f.selects)
            raise CitegraphError(
                f"format '{self.name}' reads every record; selecting works (--field, --topic, "
                f"--since, --until, --language, --type, --include-referenced, ...) applies "
                f"to: {choosers}"
            )

    def widened(self, files: Sequence[Path], selection: Selection) -> Selection:
        """``selection`` with the works its criteria admit reference (``include_referenced``),
        found by a first read of all ``files`` of the ingest through the module's
        ``referenced(files, criteria)``: a work may be read before the work that cites it."""
        if not selection.include_referenced or selection.referenced is not None:
            return selection
        self._refuse_unless_selecting()
        criteria = selection.criteria
        if not criteria.active:  # every work is loaded anyway
            return criteria
        return replace(selection, referenced=self._load().referenced(list(files), criteria))

    def surveyed(self, files: Sequence[Path]) -> tuple[Format, Any | None]:
        """For a module with ``survey(files, **settings)``: its survey of all ``files`` and this
        format reading with what the survey found (``reader_settings``); else (self, None)."""
        survey = getattr(self._load(), "survey", None)
        if survey is None:
            return self, None
        found = survey(list(files), **{k: v for k, v in self.settings if k in self.accepts})
        return replace(self, settings=tuple(sorted({**dict(self.settings), **found.reader_settings}.items()))), found


FORMATS: dict[str, Format] = {
    f.name: f
    for f in [
        Format(
            "s2orc",
            "S2ORC metadata JSONL (paper_id, title, abstract, year, mag_field_of_study, "
            "outbound_citations, inbound_citations, ...)",
            "s2orc",
        ),
        Format("unarxive", "unarXive full-text JSONL: arXiv papers with citation contexts", "unarxive"),
        Format("acl200", "ACL-200 graph folder: papers.jsonl and edges.tsv", "acl200"),
        Format(
            "scisummnet",
            "ScisummNet folder (CL-SciSumm 2019): per ACL paper Reference_XML/<id>.xml "
            "(full text) and citing_sentences.json (citing sentences, citation marked [CIT])",
            "scisummnet",
        ),
        Format(
            "taxonomy",
            "taxonomy folder: MAG fields, arXiv categories, ACM CCS 2012 (SKOS XML), "
            "arXiv→ACM 1998 map (default: the bundled copy)",
            "taxonomy",
        ),
        Format(
            "openalex",
            "OpenAlex works snapshot: updated_date=*/part_*.gz partitions, a manifest, or files",
            "openalex",
            selects=True,
        ),
        Format(
            "s2ag",
            "Semantic Scholar datasets: papers/, abstracts/, citations/ shards (contexts, intents)",
            "s2ag",
            selects=True,
        ),
        Format(
            "jsonl",
            "citegraph's generic JSONL: id, title, abstract, year, fields, categories, "
            "authors, references [{id, contexts, sections}]",
            "generic",
        ),
        Format(
            "bibtex",
            "BibTeX (.bib): DOI (else citation key) as id, title, abstract, year, venue, authors, keywords",
            "bibtex",
            accepts=("entry_types", "id_from"),
        ),
    ]
}


def get(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise CitegraphError(f"unknown format '{name}'; known: {', '.join(FORMATS)}") from None


def not_an_input(path: Path) -> CitegraphError:
    """Why ``path``, neither a regular file nor a folder, cannot be read: absent, or what it is."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return CitegraphError(f"{path}: no such file or folder")
    except OSError as exc:
        return CitegraphError(f"{path}: cannot be read ({exc.strerror})")
    kind = (
        "a named pipe (FIFO)"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a special file"
    )
    return CitegraphError(f"{path}: {kind}, not a regular file or a folder: give a file or a folder of them")


def files_in(path: Path, patterns: tuple[str, ...]) -> list[Path]:
    """``path`` itself if it is a file, else the files in it matching ``patterns``, sorted."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise not_an_input(path)
    found = sorted({p for pattern in patterns for p in path.rglob(pattern) if p.is_file()})
    if not found:
        raise CitegraphError(f"{path}: no input files ({', '.join(patterns)})")
    return found
