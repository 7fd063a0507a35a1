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
from .files import Bibliography
from .slots import (
    MAX_SENT_SLOTS,
    MAX_SENTENCE_CHARS,
    MAX_SLOTS,
    OTHER_MARKER,
    PARAGRAPH,
    SLOT_MARKER,
    TOKEN,
    UNKNOWN_KEY,
    Draft,
    Slot,
)


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
    turned into slots once the bibliography is known. A ``sent`` draft (its text sent to the
    service) was read from memory and may name no file: there is no folder of its own to find
    one in, and the server's files are not the sender's to read."""

    def __init__(self, path: Path | None, *, sent: bool = False):
        self.path = path
        self.sent = sent
        self.cites: list[Cite] = []
        self.paragraphs: list[str] = []
        self.title = ""
        self.abstract = ""
        self.bibliographies: list[tuple[Path, Location | None]] = []  # the files the draft names
        self.warnings: list[str] = []

    def read(self, text: str) -> None:
        raise NotImplementedError

    @property
    def source(self) -> str:
        """The draft's name in messages: its file, or 'context' for a context."""
        return str(self.path or "context")

    def named_file(self, name: str, where: Location, how: str) -> Path:
        """A file the draft names (``how``: the command or key), where LaTeX and Pandoc look for
        it: beside the draft's file. Refused, before any file is looked at, in a sent draft."""
        if self.sent or self.path is None:
            raise CitegraphError(
                f"{where}: names a file ({how}): a draft sent to the service may not; "
                "send the bibliography's text as 'bib'"
            )
        return self.path.parent / name

    def token(self, cite: Cite) -> str:
        self.cites.append(cite)
        return f"[CIT\ue000{len(self.cites) - 1}\ue001]"

    def draft(self, kind: str, window: int, bibliography: Bibliography) -> Draft:
        """The draft's slots, its keys checked against ``bibliography`` (none: only empty and '?'
        citations are slots). Each paragraph is split into sentences once and each sentence made
        plain once (:class:`_Sentences`), so the time is linear in the text and the slots below
        their limits."""
        references = bibliography.references
        warnings = list(bibliography.warnings)
        checked = bool(bibliography.files)
        if not checked and any(c.keys and c.keys != (UNKNOWN_KEY,) for c in self.cites):
            warnings.append(
                f"{self.source}: no bibliography: cited keys are not checked, only empty and '?' "
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
        limit = MAX_SENT_SLOTS if self.sent else MAX_SLOTS
        for paragraph in map(_Sentences, self.paragraphs):
            if not any(is_slot[n] for ns in paragraph.numbers for n in ns):
                continue
            in_paragraph = unique(k for ns in paragraph.numbers for n in ns for k in resolved[n])
            for at, sentence in enumerate(paragraph.sentences):
                here = [n for n in paragraph.numbers[at] if is_slot[n]]
                cited_in_sentence = unique(k for m in paragraph.numbers[at] for k in resolved[m])
                for n in here:
                    cite = self.cites[n]
                    if len(slots) == limit:
                        raise CitegraphError(
                            f"{self.source}: more than {limit:,} citation slots, the limit of a draft "
                            + ("sent to the service: send it in parts" if self.sent else "file: cite it in parts")
                        )
                    paragraph.plain(at, cite, at)  # measured before it is written out for this slot
                    slots.append(
                        Slot(
                            len(slots) + 1,
                            cite.file,
                            cite.line,
                            cite.column,
                            cite.command,
                            plain(sentence, n),
                            tuple(paragraph.plain(i, cite, at) for i in paragraph.before(at, window)),
                            tuple(paragraph.plain(i, cite, at) for i in paragraph.after(at, window)),
                            unresolved[n],
                            cited_in_sentence,
                            in_paragraph,
                        )
                    )
        if not slots:
            raise CitegraphError(
                f"{self.source}: no citation slot: mark one with [CIT], an empty or "
                "'?' citation (\\cite{}, \\cite{?}, [@?]) or a key the bibliography lacks"
            )
        return Draft(
            self.source,
            kind,
            tuple(slots),
            self.title,
            self.abstract,
            references,
            bibliography.files,
            tuple(self.warnings + warnings),
        )

    def add_paragraphs(self, text: str) -> None:
        self.paragraphs += [p for p in (" ".join(part.split()) for part in PARAGRAPH.split(text)) if p]


class _Sentences:
    """A paragraph's sentences and the citation numbers of each; each sentence made plain and
    measured once, however many slots it holds or stands beside."""

    def __init__(self, paragraph: str):
        self.sentences = split_sentences(paragraph)
        self.numbers = [[int(n) for n in TOKEN.findall(s)] for s in self.sentences]
        self.plains: dict[int, str] = {}

    def before(self, at: int, window: int) -> range:
        return range(max(0, at - window), at)

    def after(self, at: int, window: int) -> range:
        return range(at + 1, min(len(self.sentences), at + 1 + window))

    def plain(self, at: int, cite: Cite, slot_at: int) -> str:
        """Sentence ``at`` as text, for the slot of ``cite`` in sentence ``slot_at``; one over
        :data:`MAX_SENTENCE_CHARS` is refused, naming the slot."""
        if at not in self.plains:
            self.plains[at] = plain(self.sentences[at])
            if len(self.plains[at]) > MAX_SENTENCE_CHARS:
                which = "the slot's sentence" if at == slot_at else "a sentence beside the slot"
                raise CitegraphError(
                    f"{cite.file}:{cite.line}:{cite.column}: {which} is {len(self.plains[at]):,} characters, "
                    f"over the limit of {MAX_SENTENCE_CHARS:,} (no sentence end found: '.', '!' or '?' "
                    "before a capital)"
                )
        return self.plains[at]


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
