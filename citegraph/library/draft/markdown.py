"""Markdown/Pandoc drafts, read with markdown-it (paragraphs only) and their YAML front matter."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

from ...errors import InputError, Location, Problem
from .reader import Cite, LineIndex, Reader
from .slots import SLOT_MARKER

# -- Markdown / Pandoc ------------------------------------------------------------------
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_KEY = r"(?:\{[^{}]+\}|\?|\w(?:[\w:.#$%&+?<>~/-]*\w)?)"
_KEY_IN_BRACKETS = re.compile(r"(?<![\w@])-?@(" + _KEY + ")")
_PANDOC_CITATION = re.compile(
    r"\[(?P<inner>[^\[\]]*?(?<![\w@])-?@" + _KEY + r"[^\[\]]*)\](?!\()"  # [see @a, p. 3; @b]
    r"|(?<![\w@.:/\]\\])@(?P<key>" + _KEY + r")(?:[ \t]\[[^\[\]@]*\])?"
)  # @a, @a [p. 3]
_CODE_SPAN = re.compile(r"(`+).*?\1", re.DOTALL)


class MarkdownReader(Reader):
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
            raise InputError(
                Problem(
                    Location(self.path, mark.line + 2 if mark else 1),
                    "front matter",
                    f"not YAML: {getattr(exc, 'problem', None) or exc}",
                )
            ) from None
        if not isinstance(meta, dict):
            raise InputError(Problem(Location(self.path, 2), "front matter", "not a YAML mapping"))
        self.title = " ".join(str(meta.get("title") or "").split())
        self.abstract = " ".join(str(meta.get("abstract") or "").split())
        files = meta.get("bibliography") or []
        named_at = Location(
            self.path,
            1 + next((i for i, line in enumerate(match.group(0).split("\n")) if line.startswith("bibliography")), 0),
        )
        self.bibliographies = [
            (self.path.parent / str(f), named_at) for f in ([files] if isinstance(files, str) else files)
        ]
        return "\n" * match.group(0).count("\n") + text[match.end() :]

    def citations(self, content: str, lines: list[str], first_line: int) -> str:
        """A paragraph's text with Pandoc citations and [CIT] markers as citation tokens."""
        masked = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), content)
        in_paragraph = LineIndex(content)

        def at(offset: int) -> tuple[int, int]:  # the paragraph's lines are the source's, less their prefix
            row, column = in_paragraph.at(offset)
            piece = content[in_paragraph.starts[row - 1] :].split("\n", 1)[0]
            return first_line + row, max(lines[first_line + row - 1].find(piece), 0) + column

        out, last = [], 0
        found: list[tuple[int, int, Cite | str]] = sorted(
            [
                *((m.start(), m.end(), self.pandoc(m, at)) for m in _PANDOC_CITATION.finditer(masked)),
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
