"""What every draft reader collects: the citations of each paragraph, turned into slots
with their sentence, neighbours and the keys cited beside them."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ...errors import CitegraphError, Location
from ...retrieval.sentences import split_sentences
from .files import bibliography
from .slots import OTHER_MARKER, PARAGRAPH, SLOT_MARKER, TOKEN, UNKNOWN_KEY, Draft, Slot


# -- what every reader collects -------------------------------------------------------
@dataclass(slots=True)
class Cite:
    keys: tuple[str, ...]
    file: Path | None
    line: int
    column: int
    command: str


class Reader:
    """Paragraphs as text with numbered citation tokens, the citations, title and abstract;
    turned into slots once the bibliography is known."""

    def __init__(self, path: Path | None):
        self.path = path
        self.cites: list[Cite] = []
        self.paragraphs: list[str] = []
        self.title = ""
        self.abstract = ""
        self.bibliographies: list[tuple[Path, Location | None]] = []
        self.warnings: list[str] = []

    def read(self, text: str) -> None:
        raise NotImplementedError

    def token(self, cite: Cite) -> str:
        self.cites.append(cite)
        return f"[CIT\ue000{len(self.cites) - 1}\ue001]"

    def draft(self, kind: str, window: int) -> Draft:
        references, warnings = bibliography(self.bibliographies)
        checked = bool(self.bibliographies)
        if not checked and any(c.keys and c.keys != (UNKNOWN_KEY,) for c in self.cites):
            warnings.append(
                f"{self.path}: no bibliography: cited keys are not checked, only empty and '?' "
                "citations are slots (give one with --bib)"
            )
        resolved = [tuple(k for k in c.keys if k in references) for c in self.cites]
        unresolved = [
            tuple(k for k in c.keys if checked and k != UNKNOWN_KEY and k not in references) for c in self.cites
        ]
        for cite, keys in zip(self.cites, unresolved):
            warnings += [f"{cite.file}:{cite.line}:{cite.column}: key {k!r} is not in the bibliography" for k in keys]
        is_slot = [not c.keys or UNKNOWN_KEY in c.keys or bool(keys) for c, keys in zip(self.cites, unresolved)]
        slots: list[Slot] = []
        for paragraph in self.paragraphs:
            sentences = split_sentences(paragraph)
            numbers = [[int(n) for n in TOKEN.findall(s)] for s in sentences]
            in_paragraph = unique(k for ns in numbers for n in ns for k in resolved[n])
            for at, sentence in enumerate(sentences):
                for n in (n for n in numbers[at] if is_slot[n]):
                    cite = self.cites[n]
                    slots.append(
                        Slot(
                            len(slots) + 1,
                            cite.file,
                            cite.line,
                            cite.column,
                            cite.command,
                            plain(sentence, n),
                            tuple(plain(s) for s in sentences[max(0, at - window) : at]),
                            tuple(plain(s) for s in sentences[at + 1 : at + 1 + window]),
                            unresolved[n],
                            unique(k for m in numbers[at] for k in resolved[m]),
                            in_paragraph,
                        )
                    )
        if not slots:
            raise CitegraphError(
                f"{self.path}: no citation slot: mark one with [CIT], an empty or "
                "'?' citation (\\cite{}, \\cite{?}, [@?]) or a key the bibliography lacks"
            )
        return Draft(
            str(self.path or "context"),
            kind,
            tuple(slots),
            self.title,
            self.abstract,
            references,
            tuple(path for path, _ in self.bibliographies),
            tuple(self.warnings + warnings),
        )

    def add_paragraphs(self, text: str) -> None:
        self.paragraphs += [p for p in (" ".join(part.split()) for part in PARAGRAPH.split(text)) if p]


def plain(sentence: str, slot: int | None = None) -> str:
    """A sentence as the recommender reads it: the slot '[CIT]', other citations '[REF]'."""
    text = TOKEN.sub(lambda m: SLOT_MARKER if int(m.group(1)) == slot else OTHER_MARKER, sentence)
    return " ".join(text.split())


def unique(keys: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(keys))


def without_tokens(text: str) -> str:
    return " ".join(TOKEN.sub("", text).split())


def marked(text: str, start: int, at: Callable[[int], tuple[int, int]], file: Path | None, reader: Reader) -> str:
    """``text`` (found at offset ``start``) with each literal ``[CIT]`` a citation token;
    ``at(offset)`` is the 1-based (line, column) of an offset of the file."""
    out, last = [], 0
    for match in re.finditer(re.escape(SLOT_MARKER), text):
        at_line, at_column = at(start + match.start())
        out += [text[last : match.start()], reader.token(Cite((), file, at_line, at_column, SLOT_MARKER))]
        last = match.end()
    return "".join(out) + text[last:]


class PlainReader(Reader):
    def read(self, text: str) -> None:
        lines = LineIndex(text)
        self.add_paragraphs(marked(text, 0, lines.at, self.path, self))


class LineIndex:
    """1-based line and column of an offset into a text."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def at(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1
