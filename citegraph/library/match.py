"""Matching library entries to graph papers: by paper id, DOI (case-insensitive; an ACL
Anthology DOI ``10.18653/v1/<id>`` (``10.3115/v1/<id>`` for 2014–15) also names the anthology paper id), arXiv id (without
version), then by normalised title within a year of the entry's through ``rapidfuzz``.

The title threshold is measured, not guessed: :func:`measure_matcher` mangles real titles
of the graph the way reference managers and people do (case, punctuation, a dropped word,
a typo, a cut subtitle), matches them, and also matches mangled titles of papers taken out
of the index (which should match nothing) — precision and recall per threshold
(``citegraph library measure-matcher``).
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from ..vocabulary import ACL_DOI, canonical_id
from .entries import LibraryEntry

if TYPE_CHECKING:  # the driver loads with the first store, not with --help
    from ..graph import GraphStore


# Chosen on `citegraph library measure-matcher` (ACL-200): the highest F1 of the thresholds measured.
TITLE_THRESHOLD = 88.0
# titles matched kept per index: a draft's bibliography is matched again at every `cite` call
# (each completion in an editor), and one fuzzy title search over a large graph costs ~10 ms
TITLES_KEPT = 8192


@dataclass(frozen=True, slots=True)
class Match:
    entry: LibraryEntry
    paper: str | None  # the graph paper id; None: no match
    how: str  # 'paper id', 'DOI', 'ACL Anthology DOI', 'arXiv id', 'title (score 93)' or why not
    title: str = ""  # the graph paper's title

    def as_dict(self) -> dict:
        """What an API answers about the match: the entry (where it is), the paper, how."""
        return {"entry": self.entry.where, "paper": self.paper, "how": self.how}


def normalise_title(title: str) -> str:
    """Lower case, accents and punctuation dropped, spaces collapsed."""
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode().casefold()
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


class PaperIndex:
    """The graph's papers by id, DOI, arXiv id and normalised title (one Cypher statement)."""

    def __init__(
        self,
        ids: Sequence[str],
        titles: Sequence[str],
        years: Sequence[int],
        dois: Sequence[str] = (),
        arxiv: Sequence[str] = (),
    ):
        self.titles = dict(zip(ids, titles))
        self.by_doi = {d.lower(): i for i, d in zip(ids, dois) if d}
        self.by_arxiv = {_bare_arxiv(a): i for i, a in zip(ids, arxiv) if a}
        self.by_year: dict[int | None, dict[str, str]] = defaultdict(dict)  # year → id → normalised title
        for i, t, y in zip(ids, titles, years):
            if t:
                self.by_year[None if y is None or y < 0 else y][i] = normalise_title(t)
        self._title_search = lru_cache(maxsize=TITLES_KEPT)(self._search_title)

    @classmethod
    def load(cls, store: GraphStore) -> PaperIndex:
        [row] = store.run("library/papers")
        return cls(row["ids"], row["titles"], row["years"], row["dois"], row["arxiv"])

    def without(self, ids: Iterable[str]) -> PaperIndex:
        """The same index without ``ids`` (papers the matcher must not find: measuring it)."""
        gone = set(ids)
        kept = [(i, t, y) for y, titles in self.by_year.items() for i, t in titles.items() if i not in gone]
        return PaperIndex([i for i, _, _ in kept], [t for _, t, _ in kept], [-1 if y is None else y for *_, y in kept])

    def match(self, entry: LibraryEntry, threshold: float = TITLE_THRESHOLD) -> Match:
        """Every match of a library (``--library``, ``library match``, ``/recommend``'s papers,
        ``/works``, the explorer) comes here: ids and DOIs are looked up in the form stored."""
        if entry.id and canonical_id(entry.id) in self.titles:
            return self._found(entry, canonical_id(entry.id), "paper id")
        if entry.doi:
            doi = canonical_id(entry.doi).lower()
            if doi in self.by_doi:
                return self._found(entry, self.by_doi[doi], "DOI")
            acl = ACL_DOI.fullmatch(canonical_id(entry.doi))
            if acl and acl.group(1).upper() in self.titles:
                return self._found(entry, acl.group(1).upper(), "ACL Anthology DOI")
        if entry.arxiv and _bare_arxiv(entry.arxiv) in self.by_arxiv:
            return self._found(entry, self.by_arxiv[_bare_arxiv(entry.arxiv)], "arXiv id")
        if entry.title:
            return self._by_title(entry, threshold)
        given = entry.id or entry.doi or entry.arxiv
        return Match(entry, None, f"no paper with id, DOI or arXiv id {given!r}" if given else "no title or id")

    def _found(self, entry: LibraryEntry, paper: str, how: str) -> Match:
        return Match(entry, paper, how, self.titles[paper])

    def _by_title(self, entry: LibraryEntry, threshold: float) -> Match:
        paper, how = self._title_search(normalise_title(entry.title), entry.year, threshold)
        return self._found(entry, paper, how) if paper else Match(entry, None, how)

    def _search_title(self, query: str, year: int | None, threshold: float) -> tuple[str | None, str]:
        """The paper whose normalised title is nearest ``query`` within a year of ``year`` (any
        year when None), and how; kept (:data:`TITLES_KEPT`): the index never changes."""
        from rapidfuzz import fuzz, process

        years = [year - 1, year, year + 1, None] if year is not None else list(self.by_year)
        choices = {i: t for y in years for i, t in self.by_year.get(y, {}).items()}
        best = process.extractOne(query, choices, scorer=fuzz.WRatio, score_cutoff=threshold) if query else None
        if best is None:
            within = f" in {year - 1}–{year + 1}" if year is not None else ""
            return None, f"no title within {threshold:g} of similarity{within}"
        _, score, paper = best
        return paper, f"title (score {score:.0f})"


def title_score(query: str, title: str) -> float:
    """How alike two titles are, as :meth:`PaperIndex.match` scores them (0–100; a match from
    :data:`TITLE_THRESHOLD`): `citegraph grow` judges a remote search's answer with it."""
    from rapidfuzz import fuzz

    return float(fuzz.WRatio(normalise_title(query), normalise_title(title)))


def match_library(index: PaperIndex, entries: Sequence[LibraryEntry]) -> list[Match]:
    return [index.match(e) for e in entries]


def matched_ids(matches: Sequence[Match]) -> list[str]:
    return list(dict.fromkeys(m.paper for m in matches if m.paper))


# -- measuring the title matcher ----------------------------------------------------------
def mangle(title: str, rng: random.Random) -> str:
    """A title as a person or a reference manager might give it: one or two of lower or
    upper case, punctuation dropped, a word dropped, a typo, the subtitle cut off."""

    def case(t):
        return rng.choice([t.lower(), t.upper(), t.title()])

    def punctuation(t):
        return re.sub(r"[^\w\s]", "", t)

    def drop_word(t):
        words = t.split()
        if len(words) > 3:
            del words[rng.randrange(len(words))]
        return " ".join(words)

    def typo(t):
        if len(t) < 4:
            return t
        i = rng.randrange(len(t) - 1)
        return rng.choice([t[:i] + t[i + 1 :], t[:i] + t[i + 1] + t[i] + t[i + 2 :], t[:i] + "e" + t[i + 1 :]])

    def cut_subtitle(t):
        return re.split(r"[:?.] ", t, maxsplit=1)[0] if re.search(r"[:?.] ", t) else drop_word(t)

    for operation in rng.sample([case, punctuation, drop_word, typo, cut_subtitle], rng.choice([1, 2])):
        title = operation(title)
    return title


@dataclass(frozen=True, slots=True)
class MatcherQuality:
    threshold: float
    precision: float
    recall: float
    present: int  # mangled titles of papers in the index
    absent: int  # mangled titles of papers taken out of it

    @property
    def f1(self) -> float:
        return (
            2 * self.precision * self.recall / (self.precision + self.recall) if self.precision + self.recall else 0.0
        )


def measure_matcher(
    index: PaperIndex, n: int = 300, seed: int = 0, thresholds: Sequence[float] = (80, 85, 88, 90, 92, 95)
) -> list[MatcherQuality]:
    """Precision (matches that are the right paper) and recall (present papers found) of
    title matching, per threshold, on ``n`` mangled titles of papers in the index and ``n``
    of papers removed from it (any match of those is wrong)."""
    rng = random.Random(seed)
    papers = sorted(
        (i, t, y)
        for y, titles in index.by_year.items()
        for i in titles
        for t in [index.titles[i]]
        if len(normalise_title(t).split()) >= 2
    )
    chosen = rng.sample(papers, 2 * n)
    present, absent = chosen[:n], chosen[n:]
    reduced = index.without(i for i, _, _ in absent)
    tests = [(LibraryEntry(i, mangle(t, rng), y), i, True) for i, t, y in present]
    tests += [(LibraryEntry(i, mangle(t, rng), y), i, False) for i, t, y in absent]
    out = []
    for threshold in thresholds:
        right = wrong = 0
        for entry, paper, is_present in tests:
            found = reduced.match(replace(entry, where=paper), threshold).paper
            if found is not None:
                right += int(is_present and found == paper)
                wrong += int(not is_present or found != paper)
        out.append(MatcherQuality(threshold, right / max(1, right + wrong), right / n, n, n))
    return out


def _bare_arxiv(text: str) -> str:
    return re.sub(r"v\d+$", "", text.strip().lower().removeprefix("arxiv:"))
