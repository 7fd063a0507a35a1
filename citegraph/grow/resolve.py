"""A library's entries (or ids given as such) to OpenAlex works: `citegraph grow`'s seeds.

In the order the library matcher (:mod:`citegraph.library.match`) looks: an OpenAlex ``W…``
id, then the DOI (OpenAlex's ``/works/doi:…``), then the arXiv id (its DataCite DOI
``10.48550/arXiv.…`` on OpenAlex, else Semantic Scholar's ``ARXIV:…`` paper for a DOI), an
ACL Anthology or Semantic Scholar id (S2's paper, for its DOI), and last the title: S2's
title match, then OpenAlex's title search, each answer taken only when its title scores
the matcher's :data:`~citegraph.library.match.TITLE_THRESHOLD` against the entry's (and its
year is within one of the entry's). What resolves to nothing is reported, with why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..library.entries import LibraryEntry
from ..library.match import TITLE_THRESHOLD, title_score
from ..vocabulary import ACL_NEW_ID, ACL_OLD_ID
from .openalex_api import OpenAlex
from .s2_api import SemanticScholar

_WORK = re.compile(r"(?:https?://openalex\.org/)?(W\d+)", re.IGNORECASE)
_S2_ID = re.compile(r"(?:[0-9a-f]{40}|CorpusId:\d+)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Resolved:
    entry: LibraryEntry
    work: dict[str, Any] | None  # the OpenAlex Work object; None: not found
    how: str  # 'DOI', 'arXiv id via Semantic Scholar', 'title (score 97)', or why not

    @property
    def work_id(self) -> str | None:
        return str(self.work["id"]).rsplit("/", 1)[-1] if self.work else None


class Resolver:
    def __init__(self, openalex: OpenAlex, s2: SemanticScholar, threshold: float = TITLE_THRESHOLD):
        self.openalex, self.s2, self.threshold = openalex, s2, threshold

    def resolve(self, entry: LibraryEntry) -> Resolved:
        tried = []
        if entry.id and (work := _WORK.fullmatch(entry.id.strip())):
            found = self.openalex.work(work.group(1).upper())
            return Resolved(entry, found, "OpenAlex id" if found else f"no OpenAlex work {entry.id}")
        if entry.doi:
            if found := self.openalex.work(f"doi:{entry.doi}"):
                return Resolved(entry, found, "DOI")
            tried.append(f"DOI {entry.doi}")
        if entry.arxiv:
            if found := self.openalex.work(f"doi:10.48550/arXiv.{entry.arxiv}"):
                return Resolved(entry, found, "arXiv id")
            if found := self._via_s2(f"ARXIV:{entry.arxiv}"):
                return Resolved(entry, found, "arXiv id via Semantic Scholar")
            tried.append(f"arXiv id {entry.arxiv}")
        if entry.id:
            key = _s2_key(entry.id.strip())
            if key and (found := self._via_s2(key)):
                return Resolved(entry, found, "id via Semantic Scholar")
            tried.append(f"id {entry.id}")
        if entry.title:
            return self._by_title(entry, tried)
        return Resolved(entry, None, "not found by " + ", ".join(tried) if tried else "no title or id")

    def _via_s2(self, key: str) -> dict[str, Any] | None:
        paper = self.s2.paper(key)
        return self._doi_of(paper)

    def _doi_of(self, paper: dict[str, Any] | None) -> dict[str, Any] | None:
        ids = paper.get("externalIds") if paper else None
        doi = ids.get("DOI") if isinstance(ids, dict) else None
        return self.openalex.work(f"doi:{doi}") if isinstance(doi, str) and doi else None

    def _by_title(self, entry: LibraryEntry, tried: list[str]) -> Resolved:
        best = self.s2.match(entry.title)
        if best and self._close(entry, best.get("title"), best.get("year")):
            if found := self._doi_of(best):
                return Resolved(entry, found, f"title via Semantic Scholar (score {self._score(entry, best):.0f})")
        candidates = [
            w
            for w in self.openalex.titled(entry.title)
            if self._close(entry, w.get("title"), w.get("publication_year"))
        ]
        if candidates:
            work = max(candidates, key=lambda w: self._score(entry, {"title": w.get("title")}))
            return Resolved(entry, work, f"title (score {self._score(entry, {'title': work.get('title')}):.0f})")
        tried.append(f"title within {self.threshold:g} of similarity")
        return Resolved(entry, None, "not found by " + ", ".join(tried))

    @staticmethod
    def _score(entry: LibraryEntry, paper: dict[str, Any]) -> float:
        title = paper.get("title")
        return title_score(entry.title, title) if isinstance(title, str) else 0.0

    def _close(self, entry: LibraryEntry, title: Any, year: Any) -> bool:
        near = entry.year is None or not isinstance(year, int) or abs(year - entry.year) <= 1
        return near and isinstance(title, str) and title_score(entry.title, title) >= self.threshold


def _s2_key(given: str) -> str | None:
    """Semantic Scholar's name for an id: ``ACL:P05-1012``, ``CorpusId:…``, a paperId; None for another id."""
    if ACL_OLD_ID.fullmatch(given) or ACL_NEW_ID.fullmatch(given):
        return f"ACL:{given}"
    return given if _S2_ID.fullmatch(given) else None
