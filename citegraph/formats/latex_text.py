"""LaTeX in BibTeX values, decoded to text by ``pylatexenc`` — only where there is LaTeX.

pylatexenc's walker costs about 3 µs a character, so decoding every value of a large
collection (as bibtexparser's ``LatexDecodingMiddleware`` does) takes far longer than
parsing it: a 1.5 kB abstract costs 4 ms, a 1 MiB field half a minute. Most text has no
LaTeX at all, and where it has some, the LaTeX is a few words of it. So :func:`decode`
leaves a value without LaTeX markup as it is and, in one with some, hands pylatexenc only
the runs of words that hold it (with what they take as arguments: a group that is still
open, math that is not closed, a macro that ends a word), each run once (cached).

The decoder is the one ``LatexDecodingMiddleware`` builds (math kept verbatim, ``\\url``
without angle brackets), so the text is the same as decoding the whole value, except that
a bare ``%`` or ``&`` is the character itself (to LaTeX a comment that swallowed the rest
of the line, or an alignment tab that became spaces).
"""

from __future__ import annotations

import re
from functools import lru_cache

#: What pylatexenc would change: macros, groups, ties, math, and its ligatures (``--``, quotes, ``!```).
_MARKUP = re.compile(r"[\\{}~$]|--|``|''|[!?]`")
_BEYOND_GROUPS = re.compile(r"[\\~$]|--|``|''|[!?]`")  # markup but braces
_MATH_SPAN = re.compile(r"(\$[^$]*\$)")
_INNER_GROUP = re.compile(r"(\{[^{}]*\})")  # a group with none inside
_BARE_SPECIAL = re.compile(r"(?<!\\)[%&]")
_WORD = re.compile(r"\S+")
_ENDS_IN_MACRO = re.compile(r"\\(?:[A-Za-z]+|.)$")  # its argument may be the next word
#: An accent that had no letter to sit on: a combining mark after a space or at the start.
_ORPHAN_ACCENT = re.compile(r"(?:^|\s)[\u0300-\u036f]+")


def has_markup(value: str) -> bool:
    return _MARKUP.search(value) is not None


def decode(value: str) -> tuple[str, list[str]]:
    """``value`` as text, and what could not be decoded (an accent on nothing); see the module."""
    if not has_markup(value):
        return value, []
    out: list[str] = []
    done = 0  # value[:done] is in out
    start: int | None = None  # where the open run of LaTeX words began
    depth, math = 0, False
    for word in _WORD.finditer(value):
        text = word.group()
        if start is None:
            if not has_markup(text):
                continue
            start = word.start()
        depth += _count(text, "{") - _count(text, "}")
        math ^= _count(text, "$") % 2 == 1
        if depth <= 0 and not math and not _ENDS_IN_MACRO.search(text):
            out += [value[done:start], _decode_run(value[start : word.end()])]
            done, start, depth = word.end(), None, 0
    if start is not None:  # an open group or math to the end: pylatexenc closes it
        out += [value[done:start], _decode_run(value[start:])]
        done = len(value)
    text = "".join(out) + value[done:]
    if not any(_ORPHAN_ACCENT.search(run) for run in out[1::2]):
        return text, []
    return _ORPHAN_ACCENT.sub("", text), ["a LaTeX accent with no letter after it (dropped)"]


def _count(text: str, char: str) -> int:
    return text.count(char) - text.count("\\" + char)


@lru_cache(maxsize=1 << 16)
def _decode_run(latex: str) -> str:
    """pylatexenc's text for a run of LaTeX words, with fewer of its ~0.2 ms calls: a run
    whose only LaTeX is groups and math (``{BERT}``, ``$k$-means``: most of it) is its text
    with the braces dropped and the math verbatim, as pylatexenc gives it; in a word of
    plain letters around groups (``Sch{\\"o}lkopf``), each group is decoded alone (and cached:
    accents repeat, the words they are in do not)."""
    pieces = _MATH_SPAN.split(latex)  # text, math, text, ...
    if not any(_BEYOND_GROUPS.search(text) for text in pieces[::2]):
        return "".join(p if i % 2 else p.replace("{", "").replace("}", "") for i, p in enumerate(pieces))
    pieces = _INNER_GROUP.split(latex)  # text, group, text, ...
    if len(pieces) > 1 and any(pieces[::2]) and not any(has_markup(text) for text in pieces[::2]):
        return "".join(_pylatexenc(p) if i % 2 else p for i, p in enumerate(pieces))
    return _pylatexenc(latex)


@lru_cache(maxsize=1 << 12)
def _pylatexenc(latex: str) -> str:
    return _decoder().latex_to_text(_BARE_SPECIAL.sub(lambda m: "\\" + m.group(), latex))


@lru_cache(maxsize=1)
def _decoder():
    """bibtexparser's configuration of pylatexenc, which also knows LaTeX's text-mode braces
    (``\\textbraceleft``: how citegraph's BibTeX exports write a brace)."""
    from bibtexparser.middlewares import LatexDecodingMiddleware
    from pylatexenc.latex2text import MacroTextSpec

    decoder = LatexDecodingMiddleware()._decoder
    decoder.latex_context.add_context_category(
        "citegraph-braces",
        prepend=True,
        macros=[MacroTextSpec("textbraceleft", "{"), MacroTextSpec("textbraceright", "}")],
    )
    return decoder
