"""unarXive full-text JSONL (Saier, Krause & Färber, 2023: the 2022 release): one arXiv paper a line.

Fields used: ``paper_id`` (required: the arXiv id; a version suffix is dropped so that
it meets the same paper cited by others), ``metadata`` (the arXiv metadata
record: ``title``, ``abstract``, ``doi``, ``categories``, ``versions``, ``update_date``,
``authors_parsed``), ``discipline``, ``body_text`` (paragraphs whose ``text`` holds
``{{cite:…}}``, ``{{formula:…}}``, ``{{figure:…}}``, … placeholders, with ``cite_spans``
pointing at the citation markers) and ``bib_entries`` (the bibliography, with the ids
unarXive matched for each entry in ``ids``).

Cited papers are named by the id most likely to meet the same paper from another source:
its bare arXiv id (no version), else its OpenAlex work id as ``openalex:W…``, else its DOI
as ``doi:<lower case>``. Bibliography entries without any of these are skipped; an id
that does not have the shape of its kind counts as absent, so no id is ever made up.
Every resolvable entry becomes a reference, also when the text never cites it (the
edge exists; it just has no context).

Each citation marker yields one context, as ArSyTa/SymTax build them: the sentence
holding the marker with one sentence before and after within its paragraph. The cited
marker reads ``[CIT]``, other citation markers ``[REF]``, formulas ``[MATH]`` and other
placeholders ``[FIGURE]``, ``[TABLE]``, … (their upper-cased kind).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from ...vocabulary import MAG_FIELDS
from ..formats import files_in
from ..records import Author, Item, Paper, Reference, merge_references, unique_strings
from ..source import BadField, items, json_objects, objects, text
from .generic import PATTERNS

# New-style (2212.11867) or old-style (hep-th/9402147; a subject class as in math.PR/…
# is not part of the id) arXiv ids, optionally prefixed "arXiv:" and versioned "v2".
_ARXIV_ID = re.compile(r"(?:arxiv:)?(?:(\d{4}\.\d{4,5})|([a-z][a-z-]*)(?:\.[a-z]{2})?/(\d{7}))(?:v\d+)?", re.I)
_OPENALEX_ID = re.compile(r"(?:https?://openalex\.org/)?(W\d+)", re.I)
_DOI = re.compile(r"(?:https?://(?:dx\.)?doi\.org/|doi:)?(10\.\S+/\S+)", re.I)
_PLACEHOLDER = re.compile(r"\{\{(\w+):[^{}]*\}\}")

# A sentence ends at . ! or ? (with closing quotes or brackets) followed by white space
# and anything but a lower-case letter. Citation markers right after the full stop
# ("... as shown. {{cite:…}} Next") still belong to the sentence they close.
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]]*(?:\s*\{\{cite:[^{}]*\}\})*\s+(?=[^\sa-z])")
ABBREVIATIONS = frozenset(
    {
        "al.",
        "app.",
        "approx.",
        "cf.",
        "ch.",
        "chap.",
        "cor.",
        "def.",
        "dr.",
        "e.g.",
        "ed.",
        "eds.",
        "eq.",
        "eqn.",
        "eqs.",
        "etc.",
        "fig.",
        "figs.",
        "i.e.",
        "lem.",
        "mr.",
        "ms.",
        "no.",
        "nos.",
        "p.",
        "pp.",
        "prof.",
        "prop.",
        "ref.",
        "refs.",
        "resp.",
        "sec.",
        "sect.",
        "secs.",
        "st.",
        "tab.",
        "thm.",
        "viz.",
        "vol.",
        "vs.",
    }
)


def files(path: Path) -> list[Path]:
    return files_in(path, PATTERNS)


def read(file: Path) -> Iterator[Item]:
    return items(json_objects(file), parse)


def parse(obj: dict[str, Any]) -> list[Paper]:
    paper_id = arxiv_id(text(obj, "paper_id", required=True))
    if paper_id is None:
        raise BadField("paper_id", f"not an arXiv id: {obj['paper_id']!r}"[:200])
    meta = _mapping(obj, "metadata")
    with _within("metadata"):
        metadata = _metadata(meta)
    discipline = text(obj, "discipline")
    bib = _bibliography(obj)
    references = [Reference(cited, n_contexts=0) for cited in bib.values()]
    references += _citations(obj, bib)
    return [
        Paper(
            id=paper_id,
            arxiv_id=paper_id,
            **metadata,
            fields=(discipline,) if discipline in MAG_FIELDS else (),
            references=merge_references(references),
        )
    ]


# -- identifiers ------------------------------------------------------------------------
def arxiv_id(value: str | None) -> str | None:
    """The bare arXiv id in ``value`` (no prefix, version or subject class), if it is one."""
    match = _ARXIV_ID.fullmatch(value or "")
    if match is None:
        return None
    new, archive, number = match.groups()
    return new or f"{archive.lower()}/{number}"


def cited_id(ids: Mapping[str, Any]) -> str | None:
    """The id a bibliography entry's matched ``ids`` name it by, or None if unresolvable."""
    arxiv = arxiv_id(text(ids, "arxiv_id"))
    if arxiv:
        return arxiv
    openalex = _OPENALEX_ID.fullmatch(text(ids, "open_alex_id") or "")
    if openalex:
        return "openalex:" + openalex.group(1).upper()
    doi = _DOI.fullmatch(text(ids, "doi") or "")
    return "doi:" + doi.group(1).lower() if doi else None


def _bibliography(obj: Mapping[str, Any]) -> dict[str, str]:
    """Bibliography key → cited id, for the entries that resolve."""
    resolved = {}
    for key, entry in _mapping(obj, "bib_entries").items():
        with _within(f"bib_entries.{key}"):
            ids = _mapping(_object(entry), "ids")
            with _within("ids"):
                cited = cited_id(ids)
        if cited:
            resolved[key] = cited
    return resolved


# -- metadata ---------------------------------------------------------------------------
def _metadata(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The Paper fields taken from the arXiv metadata record."""
    return {
        "title": _clean(text(meta, "title")),
        "abstract": _clean(text(meta, "abstract")),
        "year": _year(meta),
        "doi": text(meta, "doi"),
        "categories": _categories(meta),
        "authors": _authors(meta),
    }


def _clean(value: str | None) -> str | None:
    """Collapse white space: arXiv metadata wraps titles and abstracts at ~80 columns."""
    return " ".join(value.split()) if value else None


def _year(meta: Mapping[str, Any]) -> int | None:
    """The year of the first version (the submission), else of the last metadata update."""
    versions = objects(meta, "versions")
    if versions:
        with _within("versions[0]"):
            created = text(_object(versions[0]), "created")
            if created:
                try:
                    return parsedate_to_datetime(created).year
                except (TypeError, ValueError):
                    raise BadField("created", f"not an RFC 2822 date: {created!r}"[:200]) from None
    updated = text(meta, "update_date")
    if updated is None:
        return None
    if not re.match(r"\d{4}-", updated):
        raise BadField("update_date", f"not a YYYY-MM-DD date: {updated!r}"[:200])
    return int(updated[:4])


def _categories(meta: Mapping[str, Any]) -> tuple[str, ...]:
    value = meta.get("categories")
    if value is None:
        return ()
    if not isinstance(value, str):
        raise BadField("categories", f"expected space-separated arXiv categories, got {type(value).__name__}")
    return unique_strings(value.split())


def _authors(meta: Mapping[str, Any]) -> tuple[Author, ...]:
    """``authors_parsed`` rows are [last, first, suffix]; the name reads first last suffix."""
    authors = []
    for i, row in enumerate(objects(meta, "authors_parsed")):
        if not isinstance(row, list) or not all(isinstance(part, str) for part in row):
            raise BadField(f"authors_parsed[{i}]", "expected a list of name parts [last, first, suffix]")
        last, first, suffix = (row + ["", "", ""])[:3]
        name = " ".join(f"{first} {last} {suffix}".split())
        if name:
            authors.append(Author.from_name(name))
    return tuple(authors)


# -- citation contexts ------------------------------------------------------------------
def _citations(obj: Mapping[str, Any], bib: Mapping[str, str]) -> list[Reference]:
    """One reference with one context per citation marker whose entry resolves."""
    found = []
    for i, paragraph in enumerate(objects(obj, "body_text")):
        with _within(f"body_text[{i}]"):
            paragraph = _object(paragraph)
            body = paragraph.get("text") or ""  # unstripped: the span offsets count from its start
            if not isinstance(body, str):
                raise BadField("text", f"expected a string, got {type(body).__name__}")
            sections = tuple(filter(None, [_clean(text(paragraph, "section"))]))
            sentences = None  # split lazily: most paragraphs cite nothing
            for j, span in enumerate(objects(paragraph, "cite_spans")):
                with _within(f"cite_spans[{j}]"):
                    start, end, key = _span(span, body)
                if key not in bib:
                    continue
                sentences = sentences or sentence_starts(body)
                found.append(Reference(bib[key], (context(body, start, end, sentences),), sections, 1))
    return found


def _span(span: Any, body: str) -> tuple[int, int, str]:
    """A cite span's offsets and bibliography key, checked against the paragraph text."""
    key = text(_object(span), "ref_id", required=True)
    start, end = span.get("start"), span.get("end")
    if not (type(start) is int and type(end) is int and body[start:end] == f"{{{{cite:{key}}}}}"):
        raise BadField(None, f"start {start!r}, end {end!r} do not point at the marker of {key!r}"[:200])
    return start, end, key


def sentence_starts(body: str) -> list[int]:
    """Offsets where the sentences of ``body`` begin (the first is 0).

    A small rule-based splitter, because no trained one (such as nltk's punkt) can be
    fetched offline. It ends a sentence at ``.``/``!``/``?`` followed by white space and
    a character other than a lower-case letter, except after an abbreviation from
    :data:`ABBREVIATIONS` (e.g., i.e., et al., Fig., Eq., etc., …) or initials (J.,
    J.-P., U.S.). Placeholders hold no white space, so it never splits inside one.

    Limits: a sentence that really ends with an abbreviation or a single capital letter
    ("… at 300 K. The …", "… and so on, etc. We …") runs on into the next; a sentence
    starting with a lower-case word (a variable name, "iPhone") is joined to the one
    before; a full stop with no space after it ("end.Next") does not split.
    """
    starts = [0]
    for match in _SENTENCE_END.finditer(body):
        before = body[max(match.start() - 20, 0) : match.start() + 1].split()
        word = before[-1].lstrip("([{\"'“‘") if before else ""
        if word.casefold() in ABBREVIATIONS or _initials(word):
            continue
        starts.append(match.end())
    return starts


def _initials(word: str) -> bool:
    """``J.``, ``J.-P.``, ``U.S.``, ``Ł.``: single capitals, each with a full stop."""
    letters = word.replace("-", "").split(".")[:-1]
    return bool(letters) and all(len(letter) == 1 and letter.isupper() for letter in letters)


def context(body: str, start: int, end: int, starts: list[int]) -> str:
    """The sentence holding ``body[start:end]`` with its neighbours, markers rendered."""
    i = bisect_right(starts, start) - 1
    begin = starts[max(i - 1, 0)]
    stop = starts[i + 2] if i + 2 < len(starts) else len(body)
    return " ".join((_render(body[begin:start]) + "[CIT]" + _render(body[end:stop])).split())


def _render(fragment: str) -> str:
    return _PLACEHOLDER.sub(_placeholder_token, fragment)


def _placeholder_token(match: re.Match[str]) -> str:
    kind = match.group(1).lower()
    return {"cite": "[REF]", "formula": "[MATH]"}.get(kind, f"[{kind.upper()}]")


# -- structure --------------------------------------------------------------------------
@contextmanager
def _within(prefix: str) -> Iterator[None]:
    """Name a nested field's path in full: ``cite_spans[0]`` becomes ``body_text[3].cite_spans[0]``."""
    try:
        yield
    except BadField as bad:
        raise BadField(f"{prefix}.{bad.field}" if bad.field else prefix, bad.reason) from None


def _object(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise BadField(None, f"expected an object, got {'null' if value is None else type(value).__name__}")
    return value


def _mapping(obj: Mapping[str, Any], field: str) -> Mapping[str, Any]:
    """An object field (null or absent is empty)."""
    value = obj.get(field)
    if value is None:
        return {}
    with _within(field):
        return _object(value)
