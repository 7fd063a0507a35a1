"""Papers (recommended, or one paper) as files a reference manager imports: BibTeX, RIS,
CSL-JSON, JSON lines; the reasons for a recommendation go into the note field.

Written with the same kept libraries that read libraries (``bibtexparser`` 2, ``rispy``),
and each record carries its graph id (``citegraph-id``; RIS ``ID``), so an exported file
read back as a library matches the same papers exactly. Neither writer escapes, and titles
and notes come from anywhere: BibTeX values get LaTeX's escapes for its special characters
(pylatexenc's encoder: a brace or backslash can no longer end a value, and the readers'
LaTeX decoding gives the text back), RIS values are made one line (a line break would start
a new tag, or a new record).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from ..vocabulary import canonical_id

if TYPE_CHECKING:  # the driver loads with the first store, not with --help
    from ..graph import GraphStore


@dataclass(frozen=True, slots=True)
class Exported:
    """A paper as a reference manager sees it, with why it is there."""

    id: str
    title: str = ""
    year: int | None = None
    venue: str = ""
    doi: str = ""
    arxiv: str = ""
    authors: tuple[str, ...] = ()
    note: str = ""
    extra: dict = field(default_factory=dict)  # the JSON-lines record's own fields (score, signals)


def exported(
    store: GraphStore, ids: Sequence[str], notes: dict[str, str] | None = None, extra: dict[str, dict] | None = None
) -> list[Exported]:
    """The papers ``ids`` (in that order, in the form ids are stored) with their metadata from the graph."""
    ids = [canonical_id(i) for i in ids]
    rows = {r["id"]: r for r in store.run("library/export", ids=ids)}
    notes = {canonical_id(i): note for i, note in (notes or {}).items()}
    extra = extra or {}
    return [
        Exported(
            i,
            rows[i]["title"] or "",
            rows[i]["year"],
            rows[i]["venue"] or "",
            rows[i]["doi"] or "",
            rows[i]["arxiv"] or "",
            tuple(rows[i]["authors"]),
            notes.get(i, ""),
            extra.get(i, {}),
        )
        for i in ids
        if i in rows
    ]


def export(
    store: GraphStore,
    format_: str,
    ids: Sequence[str],
    notes: dict[str, str] | None = None,
    extra: dict[str, dict] | None = None,
) -> str:
    """The papers ``ids`` as a file of ``format_`` (a :data:`WRITERS` name), notes as given."""
    return WRITERS[format_](exported(store, ids, notes, extra))


def to_bibtex(papers: Sequence[Exported]) -> str:
    import bibtexparser
    from bibtexparser.model import Entry, Field

    library = bibtexparser.Library()
    latex = _latex_encoder().unicode_to_latex
    for p in papers:
        fields = {
            "title": "{" + latex(p.title) + "}",
            "year": str(p.year or ""),
            "author": " and ".join(map(latex, p.authors)),
            "booktitle": latex(p.venue),
            "doi": latex(p.doi),
            "eprint": latex(p.arxiv),
            "archiveprefix": "arXiv" if p.arxiv else "",
            "note": latex(p.note),
            "citegraph-id": latex(p.id),
        }
        library.add(
            Entry("inproceedings" if p.venue else "misc", _key(p.id), [Field(k, v) for k, v in fields.items() if v])
        )
    return bibtexparser.write_string(library)


@cache
def _latex_encoder() -> Any:
    """LaTeX's escapes for its special characters; everything else (accents, scripts) as it is.
    ``^`` stays raw: LaTeX decoding keeps a raw one and drops ``\\^{}``."""
    from pylatexenc.latexencode import (
        RULE_DICT,
        UnicodeToLatexConversionRule,
        UnicodeToLatexEncoder,
    )

    escapes = {
        "\\": r"{\textbackslash}",
        "{": r"\{",
        "}": r"\}",
        "%": r"\%",
        "&": r"\&",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "~": r"{\textasciitilde}",
    }
    rule = UnicodeToLatexConversionRule(RULE_DICT, {ord(c): latex for c, latex in escapes.items()})
    return UnicodeToLatexEncoder(
        conversion_rules=[rule], non_ascii_only=False, unknown_char_policy="keep", unknown_char_warning=False
    )


def to_ris(papers: Sequence[Exported]) -> str:
    import rispy

    records = []
    for p in papers:
        record = {
            "type_of_reference": "CPAPER" if p.venue else "GEN",
            "id": _line(p.id),
            "title": _line(p.title),
            "year": str(p.year or ""),
            "authors": [_line(a) for a in p.authors],
            "secondary_title": _line(p.venue),
            "doi": _line(p.doi),
            "urls": [f"https://arxiv.org/abs/{_line(p.arxiv)}"] if p.arxiv else [],
            "notes": [_line(p.note)] if p.note else [],
        }
        records.append({k: v for k, v in record.items() if v})
    return rispy.dumps(records, implementation=_plain_ris())


def _line(text: str) -> str:
    """A RIS value: one line (every line break, Unicode's too, and runs of spaces as one space)."""
    return " ".join(text.split())


def _plain_ris():
    import rispy

    class PlainRis(rispy.RisWriter):
        """RIS without rispy's numbered line ("1.") before each record, which RIS does not have."""

        def set_header(self, count: int) -> str:
            return ""

    return PlainRis


def to_csl_json(papers: Sequence[Exported]) -> str:
    items = []
    for p in papers:
        item = {
            "id": p.id,
            "citegraph-id": p.id,
            "type": "paper-conference" if p.venue else "article",
            "title": p.title,
            "issued": {"date-parts": [[p.year]]} if p.year else None,
            "author": [{"literal": a} for a in p.authors],
            "container-title": p.venue,
            "DOI": p.doi,
            "URL": f"https://arxiv.org/abs/{p.arxiv}" if p.arxiv else "",
            "note": p.note,
        }
        items.append({k: v for k, v in item.items() if v})
    return json.dumps(items, ensure_ascii=False, indent=1) + "\n"


def to_jsonl(papers: Sequence[Exported]) -> str:
    return "".join(
        json.dumps(
            {
                "id": p.id,
                "title": p.title,
                "year": p.year,
                "venue": p.venue or None,
                "doi": p.doi or None,
                "arxiv": p.arxiv or None,
                "authors": list(p.authors),
                "note": p.note or None,
                **p.extra,
            },
            ensure_ascii=False,
        )
        + "\n"
        for p in papers
    )


WRITERS: dict[str, Callable[[Sequence[Exported]], str]] = {
    "bibtex": to_bibtex,
    "ris": to_ris,
    "csl-json": to_csl_json,
    "jsonl": to_jsonl,
}


def _key(paper_id: str) -> str:
    """A BibTeX key from a paper id (keys take no spaces, commas or braces)."""
    return re.sub(r"[^A-Za-z0-9_:.\-]", "_", paper_id) or "paper"
