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
  matter gives ``title``, ``abstract`` and ``bibliography``.
- Plain text with ``[CIT]`` markers; paragraphs are separated by blank lines.

In a slot's sentence the slot reads ``[CIT]`` and every other citation ``[REF]`` (the
project's markers: :mod:`citegraph.local.data`); neighbours come from the same paragraph.
The bibliography (``bib=``, else the draft's ``\\bibliography``/``\\addbibresource``/front
matter) is read by :func:`.entries.parse_library`, so each key maps to the
:class:`.entries.LibraryEntry` the library matcher takes. Without a bibliography no key can
be checked: only empty and ``?`` citations are slots, and the draft says so in its warnings.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ...errors import CitegraphError
from .files import read_text
from .latex import LatexReader
from .markdown import MarkdownReader
from .reader import PlainReader
from .slots import (
    CITE_COMMANDS,
    FORMATS,
    MAX_CONTEXT_CHARS,
    MAX_DRAFT_BYTES,
    OTHER_MARKER,
    SLOT_MARKER,
    Draft,
    Slot,
)

__all__ = [
    "CITE_COMMANDS",
    "FORMATS",
    "MAX_CONTEXT_CHARS",
    "MAX_DRAFT_BYTES",
    "OTHER_MARKER",
    "SLOT_MARKER",
    "Draft",
    "Slot",
    "context_slot",
    "read_draft",
]


def read_draft(
    path: str | Path,
    *,
    bib: str | Path | Iterable[str | Path] | None = None,
    window: int = 1,
    format: str | None = None,
) -> Draft:
    """The slots of the draft at ``path``: its format by suffix unless ``format`` names it
    (``latex``, ``markdown``, ``text``); ``bib`` replaces the bibliographies the draft names."""
    path = Path(path)
    kind = format or FORMATS.get(path.suffix.lower())
    if kind not in ("latex", "markdown", "text"):
        raise CitegraphError(
            f"{path}: unknown draft format {format or path.suffix!r}: name one of latex, markdown, text"
        )
    if window < 0:
        raise CitegraphError(f"window: {window} is negative")
    text = read_text(path)
    reader = {"latex": LatexReader, "markdown": MarkdownReader, "text": PlainReader}[kind](path)
    reader.read(text)
    if bib is not None:
        bibs = [Path(bib)] if isinstance(bib, (str, Path)) else [Path(b) for b in bib]
        reader.bibliographies = [(b, None) for b in bibs]
    return reader.draft(kind, window)


def context_slot(text: str, *, window: int = 1) -> Draft:
    """A context typed by the user: each ``[CIT]`` a slot, or the whole text one slot without a
    place ("a citation belongs somewhere here")."""
    if len(text) > MAX_CONTEXT_CHARS:
        raise CitegraphError(f"field 'context': {len(text)} characters, over the limit of {MAX_CONTEXT_CHARS}")
    if not text.strip():
        raise CitegraphError("field 'context': empty")
    reader = PlainReader(None)
    reader.read(text)
    if not reader.cites:
        return Draft("context", "context", (Slot(1, None, None, None, "", " ".join(text.split())),))
    return reader.draft("context", window)
