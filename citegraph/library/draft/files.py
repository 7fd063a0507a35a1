"""Reading a draft's files and its bibliography (keys → library entries)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import CitegraphError, InputError, Location, Problem
from ..entries import LibraryEntry, parse_library
from .slots import KEYED_LIBRARIES, MAX_DRAFT_BYTES


# -- reading files --------------------------------------------------------------------
def read_text(path: Path) -> str:
    """A file's text, or a one-line error: missing, not a regular file, unreadable, too large,
    not UTF-8. Opened without waiting, so that a named pipe is refused, never waited on."""
    try:
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as file:
            found = os.fstat(file.fileno())
            if stat.S_ISDIR(found.st_mode):
                raise CitegraphError(f"{path}: a directory, not a file")
            if not stat.S_ISREG(found.st_mode):
                raise CitegraphError(f"{path}: not a regular file (a pipe, a device or a socket)")
            if found.st_size > MAX_DRAFT_BYTES:
                raise CitegraphError(
                    f"{path}: {found.st_size / 1e6:.1f} MB, over the {MAX_DRAFT_BYTES / 1e6:.0f} MB limit "
                    "of a draft's file"
                )
            data = file.read()
    except FileNotFoundError:
        raise CitegraphError(f"{path}: no such file") from None
    except OSError as exc:
        raise CitegraphError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        raise InputError(
            Problem(Location(path, line), None, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column})")
        ) from None


@dataclass(frozen=True)
class Bibliography:
    """A draft's references by key, the files (or the sent text's name) they come from, and
    what was odd about them. No files: no bibliography, so no cited key can be checked."""

    files: tuple[Path, ...] = ()
    references: dict[str, LibraryEntry] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


def bibliography(files: list[tuple[Path, Location | None]]) -> Bibliography:
    """Key → entry over the bibliography files (the first of a duplicated key wins)."""
    entries = []
    for file, named_at in files:
        if file.suffix.lower() not in KEYED_LIBRARIES:
            raise CitegraphError(f"{file}: a bibliography's keys come from a BibTeX (.bib) or CSL-JSON (.json) file")
        if not file.exists():
            raise CitegraphError(
                f"{named_at}: bibliography {file}: no such file (give one with --bib)"
                if named_at
                else f"{file}: no such bibliography file"
            )
        entries += parse_library(read_text(file), file)
    return keyed(entries, tuple(file for file, _ in files))


def keyed(entries: Iterable[LibraryEntry], files: tuple[Path, ...]) -> Bibliography:
    """The entries by their keys, as read from ``files`` (the first of a duplicated key wins)."""
    references: dict[str, LibraryEntry] = {}
    warnings = []
    for entry in entries:
        key = key_of(entry)
        if key in references:
            warnings.append(f"{entry.where}: key {key!r} already read from {references[key].where}; ignored")
        else:
            references[key] = entry
    return Bibliography(files, references, tuple(warnings))


def key_of(entry: LibraryEntry) -> str:
    """A BibTeX entry's key: :func:`.entries.parse_library` names it last in ``where``, as
    'refs.bib:12 (key)' (keys hold no spaces)."""
    return entry.where.rsplit(" (", 1)[-1][:-1]
