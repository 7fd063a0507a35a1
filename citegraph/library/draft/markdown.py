"""Markdown/Pandoc drafts, read with markdown-it (paragraphs only) and their YAML front matter."""

from __future__ import annotations

import functools
import re
from itertools import pairwise
from pathlib import Path

from ...errors import InputError, Location, Problem
from .reader import Cite, LineIndex, Reader
from .slots import MAX_FRONT_MATTER_DEPTH, SLOT_MARKER

# -- Markdown / Pandoc ------------------------------------------------------------------
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?\n)(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL)  # LF or CRLF
_KEY = r"(?:\{[^{}]+\}|\?|\w(?:[\w:.#$%&+?<>~/-]*\w)?)"
_KEY_IN_BRACKETS = re.compile(r"(?<![\w@])-?@(" + _KEY + ")")
# [see @a, p. 3; @b] — a bracket that is no link and holds a key (_KEY_IN_BRACKETS); found as any
# bracket first, then searched: a key inside the pattern made an unclosed '[' before many '@'s
# take time quadratic in their number
_PANDOC_CITATION = re.compile(
    r"\[(?P<inner>[^\[\]]*)\](?!\()"
    r"|(?<![\w@.:/\]\\])@(?P<key>" + _KEY + r")(?:[ \t]\[[^\[\]@]*\])?"
)  # @a, @a [p. 3]
_CODE_SPAN = re.compile(r"(`+).*?\1", re.DOTALL)


def _yaml_type(value: object) -> str:
    """What a YAML value is, in a reader's words."""
    return {dict: "a mapping", list: "a list", bool: "a boolean", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    )


class _Unread(Exception):
    """YAML the front matter's reader refuses to read further (the reason is its message)."""

    def __init__(self, problem: str, problem_mark):
        super().__init__(problem)
        self.problem, self.problem_mark = problem, problem_mark


@functools.cache
def _front_matter_loader():
    """The YAML loader of a draft's front matter: ``yaml.safe_load``'s, without aliases (a few
    hundred bytes of aliases of aliases expand to gigabytes) and nested at most
    :data:`MAX_FRONT_MATTER_DEPTH` deep (PyYAML composes nested nodes by recursion)."""
    import yaml

    class Loader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent, index):
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent):
                raise _Unread(f"an alias (*{event.anchor}): YAML aliases are not read", event.start_mark)
            if self.depth == MAX_FRONT_MATTER_DEPTH:
                raise _Unread(f"nested more than {MAX_FRONT_MATTER_DEPTH} levels deep", event.start_mark)
            self.depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return Loader


class MarkdownReader(Reader):
    path: Path  # a draft's reader, of a file or of a sent text

    def read(self, text: str) -> None:
        from markdown_it import MarkdownIt

        text = self.front_matter(text)
        lines = text.split("\n")
        markdown = MarkdownIt("commonmark")
        # the blocks only (a paragraph's inline text is parsed once, below, and only where it
        # cites: markdown-it's inline pass costs tens of microseconds a character of brackets)
        blocks = MarkdownIt("commonmark").disable("inline").parse(text)
        for opening, inline in pairwise(blocks):
            if opening.type == "paragraph_open" and inline.type == "inline" and opening.map:
                cites = len(self.cites)
                marked = self.citations(inline.content, lines, opening.map[0])
                if len(self.cites) > cites:  # a paragraph that cites nothing holds no slot nor neighbour
                    self.add_paragraphs(self.plain(markdown, marked))

    def front_matter(self, text: str) -> str:
        """Title, abstract and bibliography from the YAML front matter; the text with its lines
        blanked (so lines keep their numbers)."""
        import yaml

        match = _FRONT_MATTER.match(text)
        if not match:
            return text
        loader = _front_matter_loader()(match.group(1))
        try:
            node = loader.get_single_node()
            meta = loader.construct_document(node) if node is not None else {}
        except (yaml.YAMLError, _Unread) as exc:
            mark = getattr(exc, "problem_mark", None)
            problem = getattr(exc, "problem", None) or str(exc)
            raise InputError(
                Problem(
                    Location(self.path, mark.line + 2 if mark else 1),
                    "front matter",
                    problem if isinstance(exc, _Unread) else f"not YAML: {problem}",
                )
            ) from None
        finally:
            loader.dispose()
        if not isinstance(meta, dict):
            raise InputError(Problem(Location(self.path, 2), "front matter", "not a YAML mapping"))
        self.title = " ".join(str(meta.get("title") or "").split())
        self.abstract = " ".join(str(meta.get("abstract") or "").split())
        if meta.get("bibliography") is not None:
            # the key's line, however it is spelled (quoted, in a flow mapping, as '? bibliography')
            line = next((k.start_mark.line for k, _ in node.value if k.value == "bibliography"), -1)
            self.read_bibliography(meta["bibliography"], Location(self.path, line + 2))
        return "\n" * match.group(0).count("\n") + text[match.end() :]

    def read_bibliography(self, files: object, named_at: Location) -> None:
        """The front matter's ``bibliography``: a file name or a list of them (Pandoc's)."""
        names = [files] if isinstance(files, str) else files
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            raise InputError(
                Problem(named_at, "bibliography", f"a file name or a list of file names, not {_yaml_type(files)}")
            )
        self.bibliographies += [
            (self.named_file(name, named_at, "front matter's bibliography"), named_at) for name in names if name
        ]

    def citations(self, content: str, lines: list[str], first_line: int) -> str:
        """A paragraph's text with Pandoc citations and [CIT] markers as citation tokens."""
        masked = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), content)
        in_paragraph = LineIndex(content)

        prefix: dict[int, int] = {}  # a row's prefix in its source line (a quote's '> ', a list item's indent)

        def at(offset: int) -> tuple[int, int]:  # the paragraph's lines are the source's, less their prefix
            row, column = in_paragraph.at(offset)
            if row not in prefix:  # once a row: a long line holds many citations
                starts = in_paragraph.starts
                piece = content[starts[row - 1] : starts[row] - 1 if row < len(starts) else len(content)]
                prefix[row] = max(lines[first_line + row - 1].find(piece), 0)
            return first_line + row, prefix[row] + column

        out, last = [], 0
        found: list[tuple[int, int, Cite | str]] = sorted(
            [
                *(
                    (m.start(), m.end(), self.pandoc(m, at))
                    for m in _PANDOC_CITATION.finditer(masked)
                    if m.group("inner") is None or _KEY_IN_BRACKETS.search(m.group("inner"))
                ),
                *((m.start(), m.end(), SLOT_MARKER) for m in re.finditer(re.escape(SLOT_MARKER), masked)),
            ]
        )
        for start, end, cite in found:
            if start < last:
                continue
            if isinstance(cite, str):  # SLOT_MARKER
                line, column = at(start)
                cite = Cite((), self.path, line, column, SLOT_MARKER)
            out += [content[last:start], self.token(cite)]
            last = end
        return "".join(out) + content[last:]

    def pandoc(self, match: re.Match, at) -> Cite:
        if match.group("inner") is not None:
            keys = tuple(k.strip("{}") for k in _KEY_IN_BRACKETS.findall(match.group("inner")))
        else:
            keys = (match.group("key").strip("{}"),)
        line, column = at(match.start())
        return Cite(keys, self.path, line, column, match.group(0))

    @staticmethod
    def plain(markdown, text: str) -> str:
        """Inline Markdown as plain text: emphasis marks and link targets dropped."""
        [inline] = markdown.parseInline(text)
        return "".join(
            " " if t.type in ("softbreak", "hardbreak") else t.content
            for t in inline.children or ()
            if t.type in ("text", "code_inline", "softbreak", "hardbreak", "image")
        )
