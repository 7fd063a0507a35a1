"""A draft being written, read as citation slots: where a citation is wanted, in which
sentence, between which sentences, next to which references the author already cites.

Three formats, by suffix (``.tex``; ``.md``/``.markdown``; ``.txt``) or named:

- LaTeX, parsed with pylatexenc's ``LatexWalker`` (comments never reach the text). A slot is
  a cite command of the natbib/biblatex family whose key list is empty, ``?``, or holds a key
  the bibliography does not resolve, or a literal ``[CIT]``. ``\\input``/``\\include`` are
  followed (relative to the main file's folder, as LaTeX resolves them). Prose comes from the
  ``document`` body (the whole file when there is none); inline math becomes its text, display
  math, verbatim-like and tabular bodies are skipped, a float contributes only its caption, a
  footnote is a paragraph of its own, headings end a paragraph and are not prose.
- Markdown/Pandoc, read with markdown-it (paragraphs only, so code blocks never hold a slot):
  ``[@key]``, ``[see @a; @b, p. 3]``, in-text ``@key``, ``[@?]`` and ``[CIT]``; the YAML front
  matter gives ``title``, ``abstract`` and ``bibliography`` (read by YAML's safe loader, with no
  aliases and at most :data:`~.slots.MAX_FRONT_MATTER_DEPTH` levels of nesting).
- Plain text with ``[CIT]`` markers; paragraphs are separated by blank lines.

In a slot's sentence the slot reads ``[CIT]`` and every other citation ``[REF]`` (the
project's markers: :mod:`citegraph.local.data`); neighbours come from the same paragraph.
The bibliography (``bib=``, else the draft's ``\\bibliography``/``\\addbibresource``/front
matter) is read by :func:`.entries.parse_library`, so each key maps to the
:class:`.entries.LibraryEntry` the library matcher takes. Without a bibliography no key can
be checked: only empty and ``?`` citations are slots, and the draft says so in its warnings.

A draft's text sent to the service (:func:`read_sent_draft`) is read from memory with its
bibliography's text, and may name no file. The limits of a draft (:mod:`.slots`: its size, its
slots, a sentence's characters) keep the time to read it and recommend for it linear.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ...errors import CitegraphError
from ..entries import parse_library
from .files import Bibliography, bibliography, keyed, read_text
from .latex import LatexReader
from .markdown import MarkdownReader
from .reader import PlainReader, Reader
from .slots import (
    CITE_COMMANDS,
    FORMATS,
    MAX_CONTEXT_CHARS,
    MAX_DRAFT_BYTES,
    MAX_SENT_SLOTS,
    MAX_SENT_TEXT,
    MAX_SENTENCE_CHARS,
    MAX_SLOTS,
    OTHER_MARKER,
    SENT_BIB,
    SENT_NAMES,
    SLOT_MARKER,
    Draft,
    Slot,
)

__all__ = [
    "CITE_COMMANDS",
    "FORMATS",
    "MAX_CONTEXT_CHARS",
    "MAX_DRAFT_BYTES",
    "MAX_SENTENCE_CHARS",
    "MAX_SENT_SLOTS",
    "MAX_SENT_TEXT",
    "MAX_SLOTS",
    "OTHER_MARKER",
    "SENT_BIB",
    "SLOT_MARKER",
    "Draft",
    "Slot",
    "context_slot",
    "read_draft",
    "read_sent_draft",
]
READERS: dict[str, type[Reader]] = {"latex": LatexReader, "markdown": MarkdownReader, "text": PlainReader}


def read_draft(
    path: str | Path,
    *,
    bib: str | Path | Iterable[str | Path] | None = None,
    window: int = 1,
    format: str | None = None,
    text: str | None = None,
) -> Draft:
    """The slots of the draft at ``path``: its format by suffix unless ``format`` names it
    (``latex``, ``markdown``, ``text``); ``bib`` replaces the bibliographies the draft names;
    ``text``, when given, is the file's text as an editor holds it, unsaved (the files it names
    are still read from the draft's folder)."""
    path = Path(path)
    kind = format or FORMATS.get(path.suffix.lower())
    if kind not in READERS:
        raise CitegraphError(
            f"{path}: unknown draft format {format or path.suffix!r}: name one of latex, markdown, text"
        )
    _check_window(window)
    if text is None:
        text = read_text(path)
    elif len(text) > MAX_DRAFT_BYTES:  # characters: at least as many bytes
        raise CitegraphError(
            f"{path}: {len(text):,} characters, over the {MAX_DRAFT_BYTES / 1e6:.0f} MB limit of a draft's file"
        )
    reader = READERS[kind](path)
    reader.read(text)
    if bib is not None:
        bibs = [Path(bib)] if isinstance(bib, (str, Path)) else [Path(b) for b in bib]
        reader.bibliographies = [(b, None) for b in bibs]
    return reader.draft(kind, window, bibliography(reader.bibliographies))


def read_sent_draft(text: str, *, format: str, bib: str | None = None, window: int = 1) -> Draft:
    """The slots of a draft's text sent to the service (HTTP, MCP), with its bibliography's
    BibTeX text: read from memory, named ``draft.tex`` (``.md``, ``.txt``) and ``bib.bib`` in
    what it answers. A draft that names a file is refused before any file is looked at: the
    server's files are not the sender's to read, nor to learn the existence of."""
    if format not in READERS:
        raise CitegraphError(f"unknown draft format {format!r}: name one of latex, markdown, text")
    _check_window(window)
    for field, sent in (("draft", text), ("bib", bib or "")):
        if len(sent) > MAX_SENT_TEXT:
            raise CitegraphError(f"field {field!r}: {len(sent):,} characters, over the limit of {MAX_SENT_TEXT:,}")
    reader = READERS[format](Path(SENT_NAMES[format]), sent=True)
    reader.read(text)
    sent_bib = Bibliography() if bib is None else keyed(parse_library(bib, SENT_BIB), (Path(SENT_BIB),))
    return reader.draft(format, window, sent_bib)


def context_slot(text: str, *, window: int = 1, sent: bool = False) -> Draft:
    """A context typed by the user: each ``[CIT]`` a slot, or the whole text one slot without a
    place ("a citation belongs somewhere here"); ``sent`` to the service, it has the service's
    limit of slots."""
    if len(text) > MAX_CONTEXT_CHARS:
        raise CitegraphError(f"field 'context': {len(text)} characters, over the limit of {MAX_CONTEXT_CHARS}")
    if not text.strip():
        raise CitegraphError("field 'context': empty")
    reader = PlainReader(None, sent=sent)
    reader.read(text)
    if not reader.cites:
        return Draft("context", "context", (Slot(1, None, None, None, "", " ".join(text.split())),))
    return reader.draft("context", window, Bibliography())


def _check_window(window: int) -> None:
    if window < 0:
        raise CitegraphError(f"window: {window} is negative")
