"""Which works of a large open snapshot to load: a field, a topic, a span of years, a language, a type.

Users load "Computer Science, 2015–2024" from a full OpenAlex or Semantic Scholar dump
without first writing a filtered copy: the reader applies the selection as it parses.
A work left out is not an error. Its citations *to* selected works are lost with it, and
the selected works' references to it become ``:External`` stubs (``--external drop``
removes them after the ingest), exactly as references outside any corpus do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_OPENALEX = re.compile(r"^https?://openalex\.org/", re.IGNORECASE)


def topic_key(value: str) -> str:
    """How ``--topic`` compares an OpenAlex topic tree node's id or name: the id without
    ``https://openalex.org/`` (``T10181``, ``subfields/1702``, ``fields/17``, ``domains/3``),
    or the display name, casefolded with its spaces collapsed."""
    return " ".join(_OPENALEX.sub("", value.strip()).split()).casefold()


@dataclass(frozen=True, slots=True)
class Selection:
    """Criteria a work must meet to be loaded; an unset criterion admits everything."""

    fields: frozenset[str] = frozenset()  # MAG field names: any of them
    topics: frozenset[str] = frozenset()  # topic_key()s of OpenAlex topic tree nodes: any of them
    since: int | None = None  # publication year, inclusive
    until: int | None = None  # publication year, inclusive
    languages: frozenset[str] = frozenset()  # ISO 639-1 codes as the source gives them
    types: frozenset[str] = frozenset()  # e.g. "article", "preprint"
    min_citations: int = 0  # the source's own citation count (cited_by_count / citationcount)
    retracted: bool = True  # keep retracted works

    @property
    def active(self) -> bool:
        return self != Selection()

    def admits(self, *, year: int | None, fields: Iterable[str], language: str | None, kind: str | None,
               retracted: bool, cited_by: int | None, topics: Iterable[str] = ()) -> bool:
        """``topics``: the topic_key()s of the ids and names of every node on the paths of
        the work's topics (a work is in a field when one of its topics is below it)."""
        if self.fields and not self.fields.intersection(fields):
            return False
        if self.topics and not self.topics.intersection(topics):
            return False
        if (self.since is not None or self.until is not None) and year is None:
            return False
        if self.since is not None and year < self.since or self.until is not None and year > self.until:
            return False
        if self.languages and (language or "").lower() not in self.languages:
            return False
        if self.types and (kind or "").lower() not in self.types:
            return False
        if (cited_by or 0) < self.min_citations:
            return False
        return self.retracted or not retracted
