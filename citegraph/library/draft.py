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

import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from ..errors import CitegraphError, InputError, Location, Problem
from ..retrieval.encoders import split_sentences
from .entries import LibraryEntry, parse_library

SLOT_MARKER = "[CIT]"  # the citation to recommend, as ingest marks citing sentences
OTHER_MARKER = "[REF]"  # any other citation of the sentence
UNKNOWN_KEY = "?"
MAX_DRAFT_BYTES = 5_000_000  # a long thesis is ~1 MB of LaTeX
MAX_CONTEXT_CHARS = 5_000
MAX_INPUT_DEPTH = 8
_KEYED_LIBRARIES = (".bib", ".json")  # the library files whose entries have citation keys
FORMATS = {".tex": "latex", ".ltx": "latex", ".md": "markdown", ".markdown": "markdown", ".txt": "text"}

# biblatex's and natbib's citation commands (and capitalised forms) — the key list is the last argument
CITE_COMMANDS = frozenset(
    name for base in ("cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear", "citeyearpar",
                      "autocite", "parencite", "textcite", "footcite", "footcitetext", "smartcite", "supercite",
                      "fullcite", "citenum")
    for name in (base, base.capitalize(), base + "*", base.capitalize() + "*"))
_MATH_ENVIRONMENTS = frozenset(
    name for base in ("equation", "align", "alignat", "gather", "multline", "flalign", "eqnarray", "math",
                      "displaymath", "dmath") for name in (base, base + "*"))
_SKIPPED_ENVIRONMENTS = _MATH_ENVIRONMENTS | {"verbatim", "Verbatim", "lstlisting", "minted", "comment", "tabular",
                                              "tabular*", "tabularx", "tikzpicture", "thebibliography"}
_FLOATS = frozenset({"figure", "figure*", "table", "table*", "wrapfigure", "wraptable", "algorithm", "algorithm*"})
_HEADINGS = frozenset(name for base in ("part", "chapter", "section", "subsection", "subsubsection", "paragraph",
                                        "subparagraph") for name in (base, base + "*"))
# front matter and commands whose arguments are not prose
_NOT_PROSE = frozenset({"author", "date", "affiliation", "affil", "institute", "email", "thanks", "keywords",
                        "bibliographystyle", "maketitle", "label", "nocite"})
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
# the commands the LaTeX reader handles itself (the others pylatexenc renders as text)
_READ_HERE = CITE_COMMANDS | _HEADINGS | _NOT_PROSE | {"input", "include", "item", "par", "title", "bibliography",
                                                       "addbibresource", "abstract", "footnote"}
# A citation inside a paragraph's text while it is split into sentences: 'CIT', a private-use
# pair and its number, so the splitter sees '[C…' as the start of a sentence like '[CIT]'.
_TOKEN = re.compile("\\[CIT\ue000(\\d+)\ue001\\]")


@dataclass(frozen=True, slots=True)
class Slot:
    """One place where the author wants a citation."""

    id: int  # 1-based, in reading order
    file: Path | None  # the file holding it (an \input'ed file's own path); None for a context
    line: int | None  # 1-based, of the cite command / marker; None when the context marks no place
    column: int | None
    command: str  # how it is written: '\\citep', '[@?]', '[CIT]', '' (a context without marker)
    sentence: str  # plain text, the slot '[CIT]', other citations '[REF]'
    before: tuple[str, ...] = ()  # up to `window` sentences before it in its paragraph
    after: tuple[str, ...] = ()
    unresolved: tuple[str, ...] = ()  # keys given at the slot that the bibliography lacks
    cited_in_sentence: tuple[str, ...] = ()  # resolved keys cited in the same sentence (never recommend)
    cited_in_paragraph: tuple[str, ...] = ()  # ... and in the same paragraph (the sentence's included)

    @property
    def where(self) -> str:
        """'file:line:column', what a user looks up; 'context' for a context."""
        if self.file is None:
            return "context" if self.line is None else f"context:{self.line}:{self.column}"
        return f"{self.file}:{self.line}:{self.column}"

    @property
    def text(self) -> str:
        """The slot's query text: its sentence with its neighbours."""
        return " ".join((*self.before, self.sentence, *self.after))


@dataclass(frozen=True, slots=True)
class Draft:
    """What a draft asks for (its slots) and what it already cites (its references)."""

    source: str  # the draft's path, or 'context'
    format: str  # 'latex', 'markdown', 'text', 'context'
    slots: tuple[Slot, ...]
    title: str = ""
    abstract: str = ""
    references: dict[str, LibraryEntry] = field(default_factory=dict)  # bibliography key → entry
    bibliographies: tuple[Path, ...] = ()
    warnings: tuple[str, ...] = ()  # one line each: a missing \input, a key the bibliography lacks, ...


def read_draft(path: str | Path, *, bib: str | Path | Iterable[str | Path] | None = None, window: int = 1,
               format: str | None = None) -> Draft:
    """The slots of the draft at ``path``: its format by suffix unless ``format`` names it
    (``latex``, ``markdown``, ``text``); ``bib`` replaces the bibliographies the draft names."""
    path = Path(path)
    kind = format or FORMATS.get(path.suffix.lower())
    if kind not in ("latex", "markdown", "text"):
        raise CitegraphError(f"{path}: unknown draft format {format or path.suffix!r}: name one of latex, markdown, "
                             "text")
    if window < 0:
        raise CitegraphError(f"window: {window} is negative")
    text = _read_text(path)
    reader = {"latex": _LatexReader, "markdown": _MarkdownReader, "text": _PlainReader}[kind](path)
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
    reader = _PlainReader(None)
    reader.read(text)
    if not reader.cites:
        return Draft("context", "context", (Slot(1, None, None, None, "", " ".join(text.split())),))
    return reader.draft("context", window)


# -- reading files --------------------------------------------------------------------
def _read_text(path: Path) -> str:
    """A file's text, or a one-line error: missing, unreadable, too large, not UTF-8."""
    try:
        size = path.stat().st_size
        if size > MAX_DRAFT_BYTES:
            raise CitegraphError(f"{path}: {size / 1e6:.1f} MB, over the {MAX_DRAFT_BYTES / 1e6:.0f} MB limit of a "
                                 "draft's file")
        data = path.read_bytes()
    except FileNotFoundError:
        raise CitegraphError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CitegraphError(f"{path}: a directory, not a file") from None
    except OSError as exc:
        raise CitegraphError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        raise InputError(Problem(Location(path, line), None,
                                 f"not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column})")) from None


def _bibliography(files: list[tuple[Path, Location | None]]) -> tuple[dict[str, LibraryEntry], list[str]]:
    """Key → entry over the bibliography files (the first of a duplicated key wins)."""
    references: dict[str, LibraryEntry] = {}
    warnings = []
    for file, named_at in files:
        if file.suffix.lower() not in _KEYED_LIBRARIES:
            raise CitegraphError(f"{file}: a bibliography's keys come from a BibTeX (.bib) or CSL-JSON (.json) file")
        if not file.is_file():
            raise CitegraphError(f"{named_at}: bibliography {file}: no such file (give one with --bib)" if named_at
                                 else f"{file}: no such bibliography file")
        for entry in parse_library(_read_text(file), file):
            key = _key_of(entry)
            if key in references:
                warnings.append(f"{entry.where}: key {key!r} already read from {references[key].where}; ignored")
            else:
                references[key] = entry
    return references, warnings


def _key_of(entry: LibraryEntry) -> str:
    """A BibTeX entry's key: :func:`.entries.parse_library` names it last in ``where``, as
    'refs.bib:12 (key)' (keys hold no spaces)."""
    return entry.where.rsplit(" (", 1)[-1][:-1]


# -- what every reader collects -------------------------------------------------------
@dataclass(slots=True)
class _Cite:
    keys: tuple[str, ...]
    file: Path | None
    line: int
    column: int
    command: str


class _Reader:
    """Paragraphs as text with numbered citation tokens, the citations, title and abstract;
    turned into slots once the bibliography is known."""

    def __init__(self, path: Path | None):
        self.path = path
        self.cites: list[_Cite] = []
        self.paragraphs: list[str] = []
        self.title = ""
        self.abstract = ""
        self.bibliographies: list[tuple[Path, Location | None]] = []
        self.warnings: list[str] = []

    def read(self, text: str) -> None:
        raise NotImplementedError

    def token(self, cite: _Cite) -> str:
        self.cites.append(cite)
        return f"[CIT\ue000{len(self.cites) - 1}\ue001]"

    def draft(self, kind: str, window: int) -> Draft:
        references, warnings = _bibliography(self.bibliographies)
        checked = bool(self.bibliographies)
        if not checked and any(c.keys and c.keys != (UNKNOWN_KEY,) for c in self.cites):
            warnings.append(f"{self.path}: no bibliography: cited keys are not checked, only empty and '?' "
                            "citations are slots (give one with --bib)")
        resolved = [tuple(k for k in c.keys if k in references) for c in self.cites]
        unresolved = [tuple(k for k in c.keys if checked and k != UNKNOWN_KEY and k not in references)
                      for c in self.cites]
        for cite, keys in zip(self.cites, unresolved):
            warnings += [f"{cite.file}:{cite.line}:{cite.column}: key {k!r} is not in the bibliography" for k in keys]
        is_slot = [not c.keys or UNKNOWN_KEY in c.keys or bool(keys) for c, keys in zip(self.cites, unresolved)]
        slots: list[Slot] = []
        for paragraph in self.paragraphs:
            sentences = split_sentences(paragraph)
            numbers = [[int(n) for n in _TOKEN.findall(s)] for s in sentences]
            in_paragraph = _unique(k for ns in numbers for n in ns for k in resolved[n])
            for at, sentence in enumerate(sentences):
                for n in (n for n in numbers[at] if is_slot[n]):
                    cite = self.cites[n]
                    slots.append(Slot(
                        len(slots) + 1, cite.file, cite.line, cite.column, cite.command,
                        _plain(sentence, n), tuple(_plain(s) for s in sentences[max(0, at - window):at]),
                        tuple(_plain(s) for s in sentences[at + 1:at + 1 + window]), unresolved[n],
                        _unique(k for m in numbers[at] for k in resolved[m]), in_paragraph))
        if not slots:
            raise CitegraphError(f"{self.path}: no citation slot: mark one with [CIT], an empty or "
                                 "'?' citation (\\cite{}, \\cite{?}, [@?]) or a key the bibliography lacks")
        return Draft(str(self.path or "context"), kind, tuple(slots), self.title, self.abstract, references,
                     tuple(path for path, _ in self.bibliographies), tuple(self.warnings + warnings))

    def add_paragraphs(self, text: str) -> None:
        self.paragraphs += [p for p in (" ".join(part.split()) for part in _PARAGRAPH.split(text)) if p]


def _plain(sentence: str, slot: int | None = None) -> str:
    """A sentence as the recommender reads it: the slot '[CIT]', other citations '[REF]'."""
    text = _TOKEN.sub(lambda m: SLOT_MARKER if int(m.group(1)) == slot else OTHER_MARKER, sentence)
    return " ".join(text.split())


def _unique(keys: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(keys))


def _without_tokens(text: str) -> str:
    return " ".join(_TOKEN.sub("", text).split())


def _marked(text: str, start: int, at: Callable[[int], tuple[int, int]], file: Path | None, reader: _Reader) -> str:
    """``text`` (found at offset ``start``) with each literal ``[CIT]`` a citation token;
    ``at(offset)`` is the 1-based (line, column) of an offset of the file."""
    out, last = [], 0
    for match in re.finditer(re.escape(SLOT_MARKER), text):
        at_line, at_column = at(start + match.start())
        out += [text[last:match.start()], reader.token(_Cite((), file, at_line, at_column, SLOT_MARKER))]
        last = match.end()
    return "".join(out) + text[last:]


class _PlainReader(_Reader):
    def read(self, text: str) -> None:
        lines = _LineIndex(text)
        self.add_paragraphs(_marked(text, 0, lines.at, self.path, self))


class _LineIndex:
    """1-based line and column of an offset into a text."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def at(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


# -- LaTeX ------------------------------------------------------------------------------
def _latex_context():
    from pylatexenc.latexwalker import get_default_latex_context_db
    from pylatexenc.macrospec import MacroSpec

    db = get_default_latex_context_db()
    db.add_context_category("citegraph-draft", prepend=True, macros=[
        *(MacroSpec(name, "*[[{") for name in CITE_COMMANDS if not name.endswith("*")),
        MacroSpec("bibliography", "{"), MacroSpec("addbibresource", "[{"), MacroSpec("title", "[{"),
        MacroSpec("abstract", "{"), MacroSpec("footnote", "[{"), MacroSpec("caption", "[{"),
        MacroSpec("thanks", "{"), MacroSpec("author", "[{"), MacroSpec("affiliation", "{"), MacroSpec("affil", "{"),
        MacroSpec("institute", "{"), MacroSpec("email", "{"), MacroSpec("keywords", "{"),
    ])
    return db


class _LatexReader(_Reader):
    path: Path  # a file's reader

    def __init__(self, path: Path):
        super().__init__(path)
        from pylatexenc.latex2text import LatexNodes2Text

        self.context = _latex_context()
        self.to_text = LatexNodes2Text(math_mode="text")
        self.parts: list[str] = []  # the paragraph text being built
        self.reading: list[Path] = []  # the file being read, and the files that \input it

    def read(self, text: str) -> None:
        try:
            self.read_file(self.path, text)
        except RecursionError:  # pylatexenc parses groups recursively
            raise CitegraphError(f"{self.reading[-1]}: braces or environments nested too deeply to read") from None
        self.flush()

    def read_file(self, path: Path, text: str) -> None:
        from pylatexenc.latexwalker import LatexEnvironmentNode, LatexWalker

        self.reading.append(path)
        walker = LatexWalker(text, latex_context=self.context, tolerant_parsing=True)
        nodes, _, _ = walker.get_latex_nodes(pos=0)
        document = [n for n in nodes if isinstance(n, LatexEnvironmentNode) and n.environmentname == "document"]
        where = _Where(path, walker)
        if document:  # the preamble only names the title and the bibliography
            self.metadata(nodes[:nodes.index(document[0])], where)
            nodes = document[0].nodelist
        self.walk(nodes, where)
        self.reading.pop()

    def metadata(self, nodes, where: _Where) -> None:
        from pylatexenc.latexwalker import LatexMacroNode

        for node in nodes:
            if isinstance(node, LatexMacroNode) and node.macroname in ("title", "bibliography", "addbibresource",
                                                                       "abstract"):
                self.macro(node, where)

    def walk(self, nodes, where: _Where) -> None:
        from pylatexenc.latexwalker import (
            LatexCharsNode,
            LatexCommentNode,
            LatexEnvironmentNode,
            LatexGroupNode,
            LatexMacroNode,
            LatexMathNode,
        )

        plain = []  # nodes pylatexenc renders as they are, together
        for node in nodes or ():
            if isinstance(node, LatexCommentNode):
                continue
            if isinstance(node, LatexMathNode):
                as_is = node.displaytype == "inline"  # display math is skipped
            elif isinstance(node, LatexMacroNode) and node.macroname in _READ_HERE:
                as_is = False
            else:
                as_is = not isinstance(node, (LatexCharsNode, LatexEnvironmentNode)) and not _has_cite(node)
            if as_is:
                plain.append(node)
                continue
            self.text(self.to_text.nodelist_to_text(plain))
            plain = []
            if isinstance(node, LatexCharsNode):
                self.text(_marked(node.chars, node.pos, where.at, where.path, self))
            elif isinstance(node, LatexEnvironmentNode):
                self.environment(node, where)
            elif isinstance(node, LatexMacroNode):
                self.macro(node, where)
            elif isinstance(node, LatexGroupNode):
                self.walk(node.nodelist, where)
        self.text(self.to_text.nodelist_to_text(plain))

    def macro(self, node, where: _Where) -> None:
        name = node.macroname
        args = node.nodeargd.argnlist if node.nodeargd else []
        last = args[-1] if args else None
        if name in CITE_COMMANDS:
            keys = tuple(k.strip() for k in _verbatim(last).split(",") if k.strip())
            line, column = where.at(node.pos)
            self.text(self.token(_Cite(keys, where.path, line, column, "\\" + name)))
        elif name in _HEADINGS or name in ("item", "par"):
            self.flush()
        elif name in _NOT_PROSE:
            return
        elif name in ("input", "include"):
            self.include(_verbatim(last).strip(), node, where)
        elif name == "title":
            self.title = " ".join(self.to_text.nodelist_to_text(
                [n for n in _nodes(last) if getattr(n, "macroname", None) not in _NOT_PROSE | {"footnote"}]).split())
        elif name == "abstract":
            self.abstract = " ".join(self.to_text.nodelist_to_text(_nodes(last)).split())
        elif name in ("bibliography", "addbibresource"):
            named_at = Location(where.path, where.at(node.pos)[0])
            for file in (f.strip() for f in _verbatim(last).split(",") if f.strip()):
                file_path = self.relative(file)
                self.bibliographies.append((file_path if file_path.suffix else file_path.with_suffix(".bib"),
                                            named_at))
        elif name in ("footnote", "caption"):  # a paragraph of its own, inside the one being written
            outer, self.parts = self.parts, []
            self.walk(_nodes(last), where)
            self.flush()
            self.parts = outer
        else:  # a macro with a citation in an argument (\emph{see \cite{}})
            for arg in args:
                if arg is not None:
                    self.walk(_nodes(arg), where)

    def environment(self, node, where: _Where) -> None:
        name = node.environmentname
        if name in _SKIPPED_ENVIRONMENTS:
            return
        self.flush()
        if name in _FLOATS:
            for caption in _find_macros(node.nodelist, "caption"):
                self.macro(caption, where)
            return
        if name == "abstract":
            start = len(self.paragraphs)
            self.walk(node.nodelist, where)
            self.flush()
            self.abstract = " ".join(_without_tokens(p) for p in self.paragraphs[start:])
            return
        self.walk(node.nodelist, where)
        self.flush()

    def include(self, name: str, node, where: _Where) -> None:
        line = where.at(node.pos)[0]
        file = self.relative(name)
        file = file if file.suffix else file.with_suffix(".tex")
        if file.resolve() in {f.resolve() for f in self.reading} or len(self.reading) > MAX_INPUT_DEPTH:
            self.warnings.append(f"{where.path}:{line}: \\{node.macroname}{{{name}}}: "
                                 + ("includes a file being read" if len(self.reading) <= MAX_INPUT_DEPTH else
                                    f"more than {MAX_INPUT_DEPTH} levels of \\input") + "; not read")
            return
        if not file.is_file():
            self.warnings.append(f"{where.path}:{line}: \\{node.macroname}{{{name}}}: no such file {file}; not read")
            return
        if node.macroname == "include":  # a chapter: it starts and ends on a page of its own
            self.flush()
        self.read_file(file, _read_text(file))
        if node.macroname == "include":
            self.flush()

    def relative(self, name: str) -> Path:
        """A file named in the draft, as LaTeX finds it: relative to the main file's folder."""
        return self.path.parent / name

    def text(self, text: str) -> None:
        """Add to the paragraph being written; a blank line in ``text`` starts the next one."""
        first, *rest = _PARAGRAPH.split(text)
        self.parts.append(first)
        for piece in rest:
            self.flush()
            self.parts.append(piece)

    def flush(self) -> None:
        self.add_paragraphs("".join(self.parts))
        self.parts = []


@dataclass(frozen=True, slots=True)
class _Where:
    path: Path
    walker: Any  # the file's LatexWalker, which knows its lines (pylatexenc is untyped)

    def at(self, position: int) -> tuple[int, int]:
        line, column = self.walker.pos_to_lineno_colno(position)
        return line, column + 1


def _nodes(arg) -> list:
    """An argument's nodes: a group's content, or the node itself."""
    if arg is None:
        return []
    return list(arg.nodelist) if getattr(arg, "nodelist", None) is not None else [arg]


def _verbatim(arg) -> str:
    return "".join(n.latex_verbatim() for n in _nodes(arg))


def _children(node) -> Iterator:
    yield from getattr(node, "nodelist", None) or ()
    args = getattr(getattr(node, "nodeargd", None), "argnlist", None) or ()
    yield from (a for a in args if a is not None)


def _has_cite(node) -> bool:
    return getattr(node, "macroname", None) in CITE_COMMANDS or any(_has_cite(c) for c in _children(node))


def _find_macros(nodes, name: str) -> Iterator:
    for node in nodes or ():
        if getattr(node, "macroname", None) == name:
            yield node
        else:
            yield from _find_macros(list(_children(node)), name)


# -- Markdown / Pandoc ------------------------------------------------------------------
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_KEY = r"(?:\{[^{}]+\}|\?|\w(?:[\w:.#$%&+?<>~/-]*\w)?)"
_KEY_IN_BRACKETS = re.compile(r"(?<![\w@])-?@(" + _KEY + ")")
_PANDOC_CITATION = re.compile(
    r"\[(?P<inner>[^\[\]]*?(?<![\w@])-?@" + _KEY + r"[^\[\]]*)\](?!\()"  # [see @a, p. 3; @b]
    r"|(?<![\w@.:/\]\\])@(?P<key>" + _KEY + r")(?:[ \t]\[[^\[\]@]*\])?")  # @a, @a [p. 3]
_CODE_SPAN = re.compile(r"(`+).*?\1", re.DOTALL)


class _MarkdownReader(_Reader):
    path: Path  # a file's reader

    def read(self, text: str) -> None:
        from markdown_it import MarkdownIt

        text = self.front_matter(text)
        lines = text.split("\n")
        markdown = MarkdownIt("commonmark")
        tokens = markdown.parse(text)
        for opening, inline in pairwise(tokens):
            if opening.type == "paragraph_open" and inline.type == "inline" and opening.map:
                marked = self.citations(inline.content, lines, opening.map[0])
                self.add_paragraphs(self.plain(markdown, marked))

    def front_matter(self, text: str) -> str:
        """Title, abstract and bibliography from the YAML front matter; the text with its lines
        blanked (so lines keep their numbers)."""
        import yaml

        match = _FRONT_MATTER.match(text)
        if not match:
            return text
        try:
            meta = yaml.safe_load(match.group(1)) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise InputError(Problem(Location(self.path, mark.line + 2 if mark else 1), "front matter",
                                     f"not YAML: {getattr(exc, 'problem', None) or exc}")) from None
        if not isinstance(meta, dict):
            raise InputError(Problem(Location(self.path, 2), "front matter", "not a YAML mapping"))
        self.title = " ".join(str(meta.get("title") or "").split())
        self.abstract = " ".join(str(meta.get("abstract") or "").split())
        files = meta.get("bibliography") or []
        named_at = Location(self.path, 1 + next((i for i, line in enumerate(match.group(0).split("\n"))
                                                 if line.startswith("bibliography")), 0))
        self.bibliographies = [(self.path.parent / str(f), named_at)
                               for f in ([files] if isinstance(files, str) else files)]
        return "\n" * match.group(0).count("\n") + text[match.end():]

    def citations(self, content: str, lines: list[str], first_line: int) -> str:
        """A paragraph's text with Pandoc citations and [CIT] markers as citation tokens."""
        masked = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), content)
        in_paragraph = _LineIndex(content)

        def at(offset: int) -> tuple[int, int]:  # the paragraph's lines are the source's, less their prefix
            row, column = in_paragraph.at(offset)
            piece = content[in_paragraph.starts[row - 1]:].split("\n", 1)[0]
            return first_line + row, max(lines[first_line + row - 1].find(piece), 0) + column

        out, last = [], 0
        found: list[tuple[int, int, _Cite | str]] = sorted([*((m.start(), m.end(), self.pandoc(m, at)) for m in _PANDOC_CITATION.finditer(masked)),
                        *((m.start(), m.end(), SLOT_MARKER) for m in re.finditer(re.escape(SLOT_MARKER), masked))])
        for start, end, cite in found:
            if start < last:
                continue
            if isinstance(cite, str):  # SLOT_MARKER
                line, column = at(start)
                cite = _Cite((), self.path, line, column, SLOT_MARKER)
            out += [content[last:start], self.token(cite)]
            last = end
        return "".join(out) + content[last:]

    def pandoc(self, match: re.Match, at) -> _Cite:
        if match.group("inner") is not None:
            keys = tuple(k.strip("{}") for k in _KEY_IN_BRACKETS.findall(match.group("inner")))
        else:
            keys = (match.group("key").strip("{}"),)
        line, column = at(match.start())
        return _Cite(keys, self.path, line, column, match.group(0))

    @staticmethod
    def plain(markdown, text: str) -> str:
        """Inline Markdown as plain text: emphasis marks and link targets dropped."""
        [inline] = markdown.parseInline(text)
        return "".join(" " if t.type in ("softbreak", "hardbreak") else t.content for t in inline.children or ()
                       if t.type in ("text", "code_inline", "softbreak", "hardbreak", "image"))
