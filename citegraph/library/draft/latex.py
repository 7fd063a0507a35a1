"""LaTeX drafts, walked with pylatexenc's ``LatexWalker``: cite commands, ``\\input``,
prose of the ``document`` body (see the package docstring)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

from ...errors import CitegraphError, Location
from .files import read_text
from .reader import Cite, Reader, marked, without_tokens
from .slots import (
    CITE_COMMANDS,
    FLOATS,
    HEADINGS,
    MAX_INPUT_DEPTH,
    MAX_LATEX_RUN,
    NOT_PROSE,
    PARAGRAPH,
    READ_HERE,
    SKIPPED_ENVIRONMENTS,
)


# -- LaTeX ------------------------------------------------------------------------------
def _latex_context():
    from pylatexenc.latexwalker import get_default_latex_context_db
    from pylatexenc.macrospec import MacroSpec

    db = get_default_latex_context_db()
    db.add_context_category(
        "citegraph-draft",
        prepend=True,
        macros=[
            *(MacroSpec(name, "*[[{") for name in CITE_COMMANDS if not name.endswith("*")),
            MacroSpec("bibliography", "{"),
            MacroSpec("addbibresource", "[{"),
            MacroSpec("title", "[{"),
            MacroSpec("abstract", "{"),
            MacroSpec("footnote", "[{"),
            MacroSpec("caption", "[{"),
            MacroSpec("thanks", "{"),
            MacroSpec("author", "[{"),
            MacroSpec("affiliation", "{"),
            MacroSpec("affil", "{"),
            MacroSpec("institute", "{"),
            MacroSpec("email", "{"),
            MacroSpec("keywords", "{"),
        ],
    )
    return db


@functools.cache
def _markup_of(specials: tuple[str, ...]) -> re.Pattern:  # compiled once per set of specials
    return re.compile("|".join([r"[\\{}$%]", *map(re.escape, sorted(specials, key=len, reverse=True))]))


def _markup(context) -> re.Pattern:
    """What ends a run of characters for pylatexenc: a macro, a brace, math, a comment, or
    one of the context's specials (``~``, ``--``, ``''`` ...)."""
    return _markup_of(tuple(spec.specials_chars for spec in context.iter_specials_specs()))


class LatexReader(Reader):
    path: Path  # a file's reader

    def __init__(self, path: Path, *, sent: bool = False):
        super().__init__(path, sent=sent)
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
        self.check_runs(path, text)
        walker = LatexWalker(text, latex_context=self.context, tolerant_parsing=True)
        nodes, _, _ = walker.get_latex_nodes(pos=0)
        document = [n for n in nodes if isinstance(n, LatexEnvironmentNode) and n.environmentname == "document"]
        where = _Where(path, walker)
        if document:  # the preamble only names the title and the bibliography
            self.metadata(nodes[: nodes.index(document[0])], where)
            nodes = document[0].nodelist
        self.walk(nodes, where)
        self.reading.pop()

    def check_runs(self, path: Path, text: str) -> None:
        """Refuse a run of text longer than :data:`MAX_LATEX_RUN` between two pieces of markup:
        pylatexenc gathers such a run a character at a time into one growing string, in time
        that grows with the square of its length (800,000 characters took 36 s)."""
        last = 0  # where the current run starts; the text's end closes the last one
        for start, end in chain((m.span() for m in _markup(self.context).finditer(text)), [(len(text), len(text))]):
            if start - last > MAX_LATEX_RUN:
                line = text.count("\n", 0, last) + 1
                raise CitegraphError(
                    f"{path}:{line}: {start - last:,} characters of text without a LaTeX command, brace, "
                    f"math or comment, over the limit of {MAX_LATEX_RUN:,}: is it LaTeX?"
                )
            last = end

    def metadata(self, nodes, where: _Where) -> None:
        from pylatexenc.latexwalker import LatexMacroNode

        for node in nodes:
            if isinstance(node, LatexMacroNode) and node.macroname in (
                "title",
                "bibliography",
                "addbibresource",
                "abstract",
            ):
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
            elif isinstance(node, LatexMacroNode) and node.macroname in READ_HERE:
                as_is = False
            else:
                as_is = not isinstance(node, (LatexCharsNode, LatexEnvironmentNode)) and not _has_cite(node)
            if as_is:
                plain.append(node)
                continue
            self.text(self.to_text.nodelist_to_text(plain))
            plain = []
            if isinstance(node, LatexCharsNode):
                self.text(marked(node.chars, node.pos, where.at, where.path, self))
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
            self.text(self.token(Cite(keys, where.path, line, column, "\\" + name)))
        elif name in HEADINGS or name in ("item", "par"):
            self.flush()
        elif name in NOT_PROSE:
            return
        elif name in ("input", "include"):
            self.include(_verbatim(last).strip(), node, where)
        elif name == "title":
            self.title = " ".join(
                self.to_text.nodelist_to_text(
                    [n for n in _nodes(last) if getattr(n, "macroname", None) not in NOT_PROSE | {"footnote"}]
                ).split()
            )
        elif name == "abstract":
            self.abstract = " ".join(self.to_text.nodelist_to_text(_nodes(last)).split())
        elif name in ("bibliography", "addbibresource"):
            named_at = Location(where.path, where.at(node.pos)[0])
            for file in (f.strip() for f in _verbatim(last).split(",") if f.strip()):
                file_path = self.named_file(file, named_at, "\\" + name)
                self.bibliographies.append((file_path if file_path.suffix else file_path.with_suffix(".bib"), named_at))
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
        if name in SKIPPED_ENVIRONMENTS:
            return
        self.flush()
        if name in FLOATS:
            for caption in _find_macros(node.nodelist, "caption"):
                self.macro(caption, where)
            return
        if name == "abstract":
            start = len(self.paragraphs)
            self.walk(node.nodelist, where)
            self.flush()
            self.abstract = " ".join(without_tokens(p) for p in self.paragraphs[start:])
            return
        self.walk(node.nodelist, where)
        self.flush()

    def include(self, name: str, node, where: _Where) -> None:
        line = where.at(node.pos)[0]
        file = self.named_file(name, Location(where.path, line), "\\" + node.macroname)
        file = file if file.suffix else file.with_suffix(".tex")
        if file.resolve() in {f.resolve() for f in self.reading} or len(self.reading) > MAX_INPUT_DEPTH:
            self.warnings.append(
                f"{where.path}:{line}: \\{node.macroname}{{{name}}}: "
                + (
                    "includes a file being read"
                    if len(self.reading) <= MAX_INPUT_DEPTH
                    else f"more than {MAX_INPUT_DEPTH} levels of \\input"
                )
                + "; not read"
            )
            return
        if not file.is_file():
            self.warnings.append(f"{where.path}:{line}: \\{node.macroname}{{{name}}}: no such file {file}; not read")
            return
        if node.macroname == "include":  # a chapter: it starts and ends on a page of its own
            self.flush()
        self.read_file(file, read_text(file))
        if node.macroname == "include":
            self.flush()

    def text(self, text: str) -> None:
        """Add to the paragraph being written; a blank line in ``text`` starts the next one."""
        first, *rest = PARAGRAPH.split(text)
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
