"""The registry of input formats, by name (the CLI's choices come from it).

A format turns a user's path into the files it reads, in order, and each file into
located :class:`~citegraph.ingest.records.Item` s. Formats import lazily so that listing
them costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from ..errors import CitegraphError
from .records import Item
from .selection import Selection


@dataclass(frozen=True, slots=True)
class Format:
    name: str
    summary: str
    module: str  # citegraph.ingest.<module> defines files(path) and read(file[, selection])
    selects: bool = False  # read() takes a Selection (works of a snapshot left out as it parses)

    def _load(self):
        return import_module(f"citegraph.ingest.{self.module}")

    def files(self, path: Path) -> list[Path]:
        """The files ``path`` stands for, in reading order (a file, or those in a folder)."""
        return self._load().files(Path(path))

    def read(self, file: Path, selection: Selection = Selection()) -> Iterator[Item]:
        if not selection.active:
            return self._load().read(Path(file))
        if not self.selects:
            choosers = ", ".join(f.name for f in FORMATS.values() if f.selects)
            raise CitegraphError(f"format '{self.name}' reads every record; selecting works "
                                 f"(--field, --since, --until, --language, --type, ...) applies to: {choosers}")
        return self._load().read(Path(file), selection)


FORMATS: dict[str, Format] = {
    f.name: f
    for f in [
        Format("s2orc", "S2ORC metadata JSONL (paper_id, title, abstract, year, mag_field_of_study, "
               "outbound_citations, inbound_citations, ...)", "s2orc"),
        Format("unarxive", "unarXive full-text JSONL: arXiv papers with citation contexts", "unarxive"),
        Format("acl200", "ACL-200 graph folder: papers.jsonl and edges.tsv", "acl200"),
        Format("scisummnet", "ScisummNet folder (CL-SciSumm 2019): per ACL paper Reference_XML/<id>.xml "
               "(full text) and citing_sentences.json (citing sentences, citation marked [CIT])", "scisummnet"),
        Format("taxonomy", "taxonomy folder: MAG fields, arXiv categories, ACM CCS 2012 (SKOS XML), "
               "arXiv→ACM 1998 map (default: the bundled copy)", "taxonomy"),
        Format("openalex", "OpenAlex works snapshot: updated_date=*/part_*.gz partitions, a manifest, or files",
               "openalex", selects=True),
        Format("s2ag", "Semantic Scholar datasets: papers/, abstracts/, citations/ shards (contexts, intents)",
               "s2ag", selects=True),
        Format("jsonl", "citegraph's generic JSONL: id, title, abstract, year, fields, categories, "
               "authors, references [{id, contexts, sections}]", "generic"),
    ]
}


def get(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise CitegraphError(f"unknown format '{name}'; known: {', '.join(FORMATS)}") from None


def files_in(path: Path, patterns: tuple[str, ...]) -> list[Path]:
    """``path`` itself if it is a file, else the files in it matching ``patterns``, sorted."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise CitegraphError(f"{path}: no such file or folder")
    found = sorted({p for pattern in patterns for p in path.rglob(pattern) if p.is_file()})
    if not found:
        raise CitegraphError(f"{path}: no input files ({', '.join(patterns)})")
    return found

