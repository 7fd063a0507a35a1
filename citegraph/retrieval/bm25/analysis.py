"""Lucene's analysis imitated in Python: the bm25s backend's terms, and those of the numpy paths
(:mod:`.kernel`'s callers). :func:`analyze` gives, for the texts this project indexes, the terms
Anserini's default analyser gives (tests/test_bm25.py compares them on a hostile text)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

# Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, which Anserini's analyser uses.
STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    }
)
# Words as StandardTokenizer (Unicode UAX #29) mostly cuts them: letters and digits, joined
# across a single . or apostrophe (U.S, don't, 3.5) and across , between digits (1,000).
_WORD = re.compile(r"\w+(?:(?:[.'’]|(?<=\d),(?=\d))\w+)*")
_POSSESSIVE = re.compile(r"['’]s$")


@cache
def _stem() -> Callable[[list[str]], list[str]]:
    import Stemmer  # PyStemmer

    return Stemmer.Stemmer("porter", 1 << 20).stemWords  # a big cache: stemming dominates


def analyze(text: str) -> list[str]:
    """A text's terms, imitating Anserini's default analyser."""
    words = (_POSSESSIVE.sub("", w) for w in _WORD.findall(text.lower()))
    return _stem()([w for w in words if w and w not in STOPWORDS])
