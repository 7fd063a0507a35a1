"""Local-recommendation queries: citation contexts exported from the graph, read back, split by time.

A **query set** is JSONL, one citation context a line (``citegraph contexts export`` writes
it; a user may bring one of their own in the same shape)::

    {"context_id": "2212.00001|2101.00002|0",   # optional: made from citing|cited|k
     "citing_id": "2212.00001",                 # required: a paper of the graph
     "cited_ids": ["2101.00002"],               # required: the paper(s) cited at [CIT] (or "cited_id": "…")
     "context": "… sentence before. Citing sentence [CIT] with [REF] others. Sentence after.",
     "section": "Introduction",                 # optional
     "title": "…", "abstract": "…",             # the citing paper's (optional but they help)
     "categories": ["cs.CL"],                   # its arXiv categories; [] or absent: unknown
     "year": 2022,                              # required for the time-ordered split
     "arxiv_id": "2212.00001"}                  # optional: orders papers within a year

Markers: ``[CIT]`` is the citation to recommend, ``[REF]`` any other; the ``TARGETCIT`` /
``OTHERCIT`` markers of the ACL-200 / RefSeer releases are read as ``[CIT]`` / ``[REF]``.

**Time-ordered split** (:func:`time_split`). Citing papers are ordered by (year, position
within the year, id), where the position is the arXiv id's month and number when there is
one (arXiv numbers are given out in submission order) and the end of the year otherwise.
The newest citing papers, whole papers at a time, form the test set (then the validation
set) until they hold the requested share of the contexts; every training paper is older
than every held-out one (``whole_years`` also keeps a year from straddling the cut).
Contexts of undated citing papers cannot be placed in time and are left out (counted).

**Held-out view** (:func:`held_out_papers`): the citing papers whose citation edges the
enrichment and every graph feature must not see — every validation or test citing paper
and every other paper dated at or after the cut (a paper newer than the training data may
not inform it either). :mod:`.enrich` applies the view in Cypher.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CitegraphError, InputError, Location
from ..ingest.source import lone_surrogate_problem

if TYPE_CHECKING:
    from ..graph import GraphStore

MARKER = "[CIT]"
_ALIASES = (("TARGETCIT", "[CIT]"), ("OTHERCIT", "[REF]"))
_PLACEHOLDER = re.compile(r"\[(?:CIT|REF|MATH|FIGURE|TABLE|[A-Z]+)\]")
_NEW_ARXIV = re.compile(r"^(?:arxiv:)?\d{2}(\d{2})\.(\d{4,5})(?:v\d+)?$", re.I)
_OLD_ARXIV = re.compile(r"^(?:arxiv:)?[a-z][a-z-]*(?:\.[a-z]{2})?/\d{2}(\d{2})(\d{3})(?:v\d+)?$", re.I)


@dataclass(frozen=True, slots=True)
class Context:
    """One citation context: the query of local citation recommendation, and its answer."""

    id: str
    citing: str
    cited: tuple[str, ...]
    text: str
    title: str = ""
    abstract: str = ""
    categories: tuple[str, ...] = ()
    year: int | None = None
    arxiv_id: str | None = None
    section: str | None = None

    @property
    def query_text(self) -> str:
        """What the reranker reads on the query side: context, citing title and abstract."""
        return " ".join(p for p in (self.text, self.title, self.abstract) if p)

    @property
    def search_text(self) -> str:
        """The same without citation or other placeholders, for the prefetcher."""
        return without_placeholders(self.query_text)

    def key(self) -> tuple:
        return time_key(self.year, self.arxiv_id, self.citing)

    def to_json(self) -> dict[str, Any]:
        return {
            "context_id": self.id,
            "citing_id": self.citing,
            "cited_ids": list(self.cited),
            "context": self.text,
            "section": self.section,
            "title": self.title,
            "abstract": self.abstract,
            "categories": list(self.categories),
            "year": self.year,
            "arxiv_id": self.arxiv_id,
        }


def without_placeholders(text: str) -> str:
    """``text`` without citation or other placeholders (``[CIT]``, ``[REF]``, ``[MATH]`` …), as BM25 reads it."""
    return re.sub(r"\s+", " ", _PLACEHOLDER.sub(" ", text)).strip()


def normalise_markers(text: str) -> str:
    for alias, marker in _ALIASES:
        text = text.replace(alias, marker)
    return text


def time_key(year: int | None, arxiv_id: str | None, paper_id: str) -> tuple:
    """The order of papers in time: year, then month and number of an arXiv id, then id."""
    position = (13, 0)  # no arXiv id: the end of its year
    match = _NEW_ARXIV.match(arxiv_id or "") or _OLD_ARXIV.match(arxiv_id or "")
    if match:
        position = (int(match.group(1)), int(match.group(2)))
    return (-math.inf if year is None else year, position, paper_id)


# -- export and reading ---------------------------------------------------------------------
def graph_papers(store: GraphStore, batch: int = 5_000) -> Iterator[dict[str, Any]]:
    """Every corpus paper as the local stages read it (``local/papers_by_id``), by id,
    ``batch`` papers a statement."""
    return store.in_id_order("local/paper_ids", "local/papers_by_id", batch)


def contexts_from_graph(store: GraphStore, unmarked: Counter | None = None, batch: int = 1_000) -> Iterator[Context]:
    """Every citation context on the CITES edges of the graph (``local/contexts_by_citing``)
    whose citation is marked: a context without ``[CIT]`` may still name its answer (the
    ScisummNet reader leaves "(Brants, 2000)" as it is where it cannot find the cited
    paper's author-year string), so it is left out and counted in ``unmarked``."""
    for row in store.in_id_order("local/context_citing_ids", "local/contexts_by_citing", batch):
        sections = row["sections"] or []
        for k, text in enumerate(row["contexts"]):
            if not text or not text.strip():
                continue
            text = normalise_markers(text.strip())
            if MARKER not in text:
                if unmarked is not None:
                    unmarked["contexts_unmarked"] += 1
                continue
            section = sections[k] if len(sections) == len(row["contexts"]) else None
            yield Context(
                f"{row['id']}|{row['cited']}|{k}",
                row["id"],
                (row["cited"],),
                text,
                row["title"] or "",
                row["abstract"] or "",
                tuple(sorted(row["categories"] or ())),
                row["year"],
                row["arxiv_id"],
                section,
            )


def export_contexts(store: GraphStore, out: str | Path) -> dict[str, int]:
    """Write the graph's citation contexts as a query set (JSONL, module docstring) to ``out``.

    Returns counts: contexts, edges, citing papers, cited papers, and how many contexts cite
    a paper with text (title or abstract) — the only ones a text reranker can answer — and
    how many lack a citing year (those cannot take part in a time-ordered split), and how
    many were left out because their citation is not marked.
    """
    textful = {row["id"] for row in graph_papers(store) if _has_text(row["title"], row["abstract"])}
    counts: Counter[str] = Counter()
    edges, citing, cited = set(), set(), set()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        for context in contexts_from_graph(store, counts):
            f.write(json.dumps(context.to_json(), ensure_ascii=False) + "\n")
            counts["contexts"] += 1
            counts["cited_with_text"] += context.cited[0] in textful
            counts["undated"] += context.year is None
            edges.add((context.citing, context.cited[0]))
            citing.add(context.citing)
            cited.add(context.cited[0])
    return {
        "contexts": counts["contexts"],
        "edges": len(edges),
        "citing_papers": len(citing),
        "cited_papers": len(cited),
        "contexts_citing_text": counts["cited_with_text"],
        "contexts_undated": counts["undated"],
        "contexts_unmarked": counts["contexts_unmarked"],
    }


def read_contexts(path: str | Path) -> list[Context]:
    """A query set written by :func:`export_contexts` or brought in the same format."""
    contexts: list[Context] = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                raise CitegraphError(f"{path}:{number}: {exc}") from None
            if isinstance(obj, dict) and (problem := lone_surrogate_problem(Location(Path(path), number), obj)):
                raise InputError(problem)
            try:
                contexts.append(_parse(obj, len(contexts)))
            except (ValueError, TypeError) as exc:
                raise CitegraphError(f"{path}:{number}: {exc}") from None
    return contexts


def _parse(obj: dict[str, Any], position: int) -> Context:
    if not isinstance(obj, dict):
        raise ValueError("expected a JSON object")
    citing = obj.get("citing_id")
    cited = obj.get("cited_ids", obj.get("cited_id"))
    if isinstance(cited, str):
        cited = [cited]
    text = obj.get("context")
    if not isinstance(citing, str) or not citing:
        raise ValueError("'citing_id' must be a non-empty string")
    if not isinstance(cited, list) or not cited or not all(isinstance(c, str) and c for c in cited):
        raise ValueError("'cited_ids' must be a non-empty list of paper ids")
    if not isinstance(text, str) or not text.strip():
        raise ValueError("'context' must be a non-empty string")
    year = obj.get("year")
    if year is not None and (not isinstance(year, int) or isinstance(year, bool)):
        raise ValueError("'year' must be an integer or null")
    categories = obj.get("categories") or []
    if isinstance(categories, str):
        categories = categories.split()
    return Context(
        str(obj.get("context_id") or f"{citing}|{cited[0]}|{position}"),
        citing,
        tuple(dict.fromkeys(cited)),
        normalise_markers(text.strip()),
        obj.get("title") or "",
        obj.get("abstract") or "",
        tuple(sorted(set(categories))),
        year,
        obj.get("arxiv_id"),
        obj.get("section"),
    )


def write_contexts(contexts: Iterable[Context], path: str | Path) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for context in contexts:
            f.write(json.dumps(context.to_json(), ensure_ascii=False) + "\n")


def _has_text(title: str | None, abstract: str | None) -> bool:
    return bool((title or "").strip() or (abstract or "").strip())


# -- the time-ordered split -------------------------------------------------------------------
@dataclass
class Split:
    train: list[Context]
    val: list[Context]
    test: list[Context]
    undated: int = 0  # contexts left out: their citing paper has no year
    held_out_from: tuple | None = None  # time key of the oldest held-out (val or test) citing paper
    test_from: tuple | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def held_out_citing(self) -> set[str]:
        return {c.citing for c in (*self.val, *self.test)}


def time_split(contexts: Sequence[Context], test: float = 0.2, val: float = 0.0, whole_years: bool = False) -> Split:
    """Train on the older citing papers, validate and test on the newer (module docstring).

    ``test`` and ``val`` are shares of the dated contexts; the test set takes the newest
    papers, validation the ones before. Raises when a part would be empty.
    """
    if not (0 < test < 1 and 0 <= val < 1 and test + val < 1):
        raise ValueError("test and val are shares with 0 < test, 0 <= val and test + val < 1")
    dated = [c for c in contexts if c.year is not None]
    per_paper: dict[tuple, list[Context]] = {}
    for c in dated:
        per_paper.setdefault(c.key(), []).append(c)
    keys = sorted(per_paper)
    if whole_years:  # group papers by year: a year is cut whole
        groups: dict[Any, list[tuple]] = {}
        for key in keys:
            groups.setdefault(key[0], []).append(key)
        units = list(groups.values())
    else:
        units = [[key] for key in keys]
    total = len(dated)
    parts: dict[str, list[tuple]] = {"test": [], "val": [], "train": []}
    taken = 0
    for unit in reversed(units):
        size = sum(len(per_paper[k]) for k in unit)
        if taken < test * total:
            part = "test"
        elif taken < (test + val) * total:
            part = "val"
        else:
            part = "train"
        parts[part].extend(unit)
        taken += size
    train, val_part, test_part = ([c for k in sorted(parts[p]) for c in per_paper[k]] for p in ("train", "val", "test"))
    split = Split(train, val_part, test_part, undated=len(contexts) - total)
    if not split.train or not split.test or (val and not split.val):
        raise CitegraphError(
            f"a time-ordered split of {total} dated contexts from {len(keys)} citing papers left a part empty "
            f"(train {len(split.train)}, val {len(split.val)}, test {len(split.test)})"
            + ("; try without whole years" if whole_years else "")
        )
    split.held_out_from = min(parts["test"] + parts["val"])
    split.test_from = min(parts["test"])
    split.info = {
        "contexts": len(contexts),
        "undated": split.undated,
        "train": len(split.train),
        "val": len(split.val),
        "test": len(split.test),
        "train_papers": len(parts["train"]),
        "val_papers": len(parts["val"]),
        "test_papers": len(parts["test"]),
        "train_until": _show(max(parts["train"])),
        "held_out_from": _show(split.held_out_from),
    }
    return split


def held_out_papers(split: Split, papers: Iterable[tuple[str, int | None, str | None]]) -> list[str]:
    """Citing papers the held-out view hides: every val/test citing paper and every paper
    (``(id, year, arxiv_id)``) dated at or after the oldest of them. Sorted."""
    hidden = split.held_out_citing()
    if split.held_out_from is not None:
        hidden |= {
            pid for pid, year, arxiv in papers if year is not None and time_key(year, arxiv, pid) >= split.held_out_from
        }
    return sorted(hidden)


def _show(key: tuple) -> str:
    year, (month, number), paper = key
    return f"{year}" + (f"-{month:02d} #{number}" if month <= 12 else "") + f" ({paper})"
