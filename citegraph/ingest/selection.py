"""Which works of a large open snapshot to load: a field, a topic, a span of years, a language, a type.

Users load "Computer Science, 2015–2024" from a full OpenAlex or Semantic Scholar dump
without first writing a filtered copy: the reader applies the selection as it parses.
A work left out is not an error. Its citations *to* selected works are lost with it, and
the selected works' references to it become ``:External`` stubs (``--external drop``
removes them after the ingest), exactly as references outside any corpus do.

``include_referenced`` loads those referenced works as full papers instead, one hop: a
first read of all the ingest's files collects the ids the selected works reference
(:class:`WorkIds`, :meth:`citegraph.ingest.formats.Format.widened`), and the ingest then
admits a work the criteria reject when it is among them. The references of such a work to
works outside selected ∪ referenced stay stubs.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

_OPENALEX = re.compile(r"^https?://openalex\.org/", re.IGNORECASE)


def topic_key(value: str) -> str:
    """How ``--topic`` compares an OpenAlex topic tree node's id or name: the id without
    ``https://openalex.org/`` (``T10181``, ``subfields/1702``, ``fields/17``, ``domains/3``),
    or the display name, casefolded with its spaces collapsed."""
    return " ".join(_OPENALEX.sub("", value.strip()).split()).casefold()


class WorkIds:
    """A set of works' integer ids (OpenAlex ``W123`` → 123, S2 corpus ids as they are) held
    as one sorted int64 array: 8 bytes an id, 8 MB a million. Ids added wait in a buffer
    (at most as many as are held, and at least a million) and are merged in by one sort,
    during which memory peaks at about four times the ids held (34 bytes an id). Equal only to itself,
    so that a :class:`Selection` holding one stays hashable."""

    _BUFFER = 1 << 20

    def __init__(self, ids: Iterable[int] = ()):
        self._sorted = np.zeros(0, np.int64)
        self._pending = array("q")
        self.update(ids)

    def update(self, ids: Iterable[int]) -> None:
        for number in ids:
            self._pending.append(number)
            if len(self._pending) >= max(self._BUFFER, self._sorted.size):
                self._merge()

    def _merge(self) -> None:
        if not self._pending:
            return
        merged = np.concatenate((self._sorted, np.frombuffer(self._pending, np.int64)))
        self._sorted, self._pending = merged[:0], array("q")  # free both before sorting
        merged.sort()
        distinct = np.empty(merged.size, bool)
        distinct[0] = True
        np.not_equal(merged[1:], merged[:-1], out=distinct[1:])
        self._sorted = merged[distinct]

    def __contains__(self, number: int) -> bool:
        self._merge()
        at = int(np.searchsorted(self._sorted, number))
        return at < self._sorted.size and int(self._sorted[at]) == number

    def __len__(self) -> int:
        self._merge()
        return int(self._sorted.size)


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
    include_referenced: bool = False  # also the works the admitted ones reference (one hop)
    referenced: WorkIds | None = None  # those works, once Format.widened has read them

    @property
    def active(self) -> bool:
        return self != Selection()

    @property
    def criteria(self) -> Selection:
        """This selection without the referenced works: what the first read selects by."""
        return replace(self, include_referenced=False, referenced=None)

    def admits(
        self,
        *,
        year: int | None,
        fields: Iterable[str],
        language: str | None,
        kind: str | None,
        retracted: bool,
        cited_by: int | None,
        topics: Iterable[str] = (),
        number: int | None = None,
    ) -> bool:
        """``topics``: the topic_key()s of the ids and names of every node on the paths of
        the work's topics (a work is in a field when one of its topics is below it);
        ``number``: the work's id as in :class:`WorkIds`, admitted if referenced."""
        if self.referenced is not None and number is not None and number in self.referenced:
            return True
        if self.fields and not self.fields.intersection(fields):
            return False
        if self.topics and not self.topics.intersection(topics):
            return False
        if (self.since is not None or self.until is not None) and year is None:
            return False
        if year is not None and (
            self.since is not None and year < self.since or self.until is not None and year > self.until
        ):
            return False
        if self.languages and (language or "").lower() not in self.languages:
            return False
        if self.types and (kind or "").lower() not in self.types:
            return False
        if (cited_by or 0) < self.min_citations:
            return False
        return self.retracted or not retracted
