"""Papers (recommended, or one paper) as files a reference manager imports: BibTeX, RIS,
CSL-JSON, JSON lines; the reasons for a recommendation go into the note field.

Each record carries every field the graph has of the paper (title, authors in their
source's order, year, venue, DOI, arXiv id, abstract, keywords) and its graph id
(``citegraph-id``; RIS ``ID``), so an exported file read back as a library matches the same
papers exactly. The entry type is the one the source gave (``venue_type``: a journal's
``@article``, a conference's ``@inproceedings``), else ``@misc``; an ACL Anthology id
(the paper's own, or the one its DOI names) says it too — its journals (Computational
Linguistics, TACL) are articles, the rest proceedings — and gives the paper's Anthology
page. The URL is the one an id implies: the Anthology page, the arXiv abstract, the DOI.

Written with the same kept libraries that read libraries (``bibtexparser`` 2, ``rispy``),
neither of which escapes, while titles and notes come from anywhere. BibTeX values get
LaTeX's escapes for its special characters (pylatexenc's encoder), braces included as the
groups ``{\\textbraceleft}`` / ``{\\textbraceright}``: BibTeX counts every brace, escaped or
not (``\\}`` closes a value for BibTeX and pybtex), so a value whose braces all come in
groups cannot end early; the readers' LaTeX decoding gives the text back. RIS values are
made one line (a line break would start a new tag, or a new record).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from ..vocabulary import acl_anthology_id, acl_journal, canonical_id

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
    authors: tuple[str, ...] = ()  # in the source's order
    note: str = ""
    extra: dict = field(default_factory=dict)  # the JSON-lines record's own fields (score, signals)
    venue_type: str = ""  # 'journal', 'conference' or '' (not known)
    abstract: str = ""
    keywords: tuple[str, ...] = ()

    @property
    def urls(self) -> tuple[str, ...]:
        """The pages its ids imply, the most specific first: the ACL Anthology's, arXiv's, the DOI's."""
        anthology = acl_anthology_id(self.id, self.doi)
        return tuple(
            url
            for url, given in (
                (f"https://aclanthology.org/{anthology}", anthology),
                (f"https://arxiv.org/abs/{self.arxiv}", self.arxiv),
                (f"https://doi.org/{self.doi}", self.doi),
            )
            if given
        )


def exported(
    store: GraphStore, ids: Sequence[str], notes: dict[str, str] | None = None, extra: dict[str, dict] | None = None
) -> list[Exported]:
    """The papers ``ids`` (in that order, in the form ids are stored) with their metadata from
    the graph; what an ACL Anthology id says of the venue where the source said nothing."""
    ids = [canonical_id(i) for i in ids]
    rows = {r["id"]: r for r in store.run("library/export", ids=ids)}
    notes = {canonical_id(i): note for i, note in (notes or {}).items()}
    extra = extra or {}
    found = []
    for i in ids:
        if i not in rows:
            continue
        row = rows[i]
        anthology = acl_anthology_id(i, row["doi"] or "")
        journal = acl_journal(anthology) if anthology else None
        found.append(
            Exported(
                i,
                row["title"] or "",
                row["year"],
                row["venue"] or journal or "",
                row["doi"] or "",
                row["arxiv"] or "",
                tuple(row["authors"]),
                notes.get(i, ""),
                extra.get(i, {}),
                row["venue_type"] or ("journal" if journal else "conference" if anthology else ""),
                row["abstract"] or "",
                tuple(row["keywords"] or ()),
            )
        )
    return found


def export(
    store: GraphStore,
    format_: str,
    ids: Sequence[str],
    notes: dict[str, str] | None = None,
    extra: dict[str, dict] | None = None,
) -> str:
    """The papers ``ids`` as a file of ``format_`` (a :data:`WRITERS` name), notes as given."""
    return WRITERS[format_](exported(store, ids, notes, extra))


#: BibTeX's entry type and the field of the venue, by the venue's type.
_BIBTEX_TYPES = {"journal": ("article", "journal"), "conference": ("inproceedings", "booktitle")}
_AND = re.compile(r"(?:^|\s)and(?:\s|$)", re.IGNORECASE)


def to_bibtex(papers: Sequence[Exported]) -> str:
    import bibtexparser
    from bibtexparser.model import Entry, Field

    library = bibtexparser.Library()
    keys: set[str] = set()
    for p in papers:
        entry_type, venue_field = _BIBTEX_TYPES.get(p.venue_type, ("misc", "howpublished"))
        fields = {
            "title": "{" + _bibtex_value(p.title) + "}",  # the title's case kept
            "author": " and ".join(map(_bibtex_name, p.authors)),
            "year": str(p.year or ""),
            venue_field: _bibtex_value(p.venue),
            "doi": _bibtex_value(p.doi),
            "eprint": _bibtex_value(p.arxiv),
            "archiveprefix": "arXiv" if p.arxiv else "",
            "url": _bibtex_value(p.urls[0]) if p.urls else "",
            "abstract": _bibtex_value(p.abstract),
            "keywords": _bibtex_value(", ".join(p.keywords)),
            "note": _bibtex_value(p.note),
            "citegraph-id": _bibtex_value(p.id),
        }
        library.add(Entry(entry_type, _key(p.id, keys), [Field(k, v) for k, v in fields.items() if v]))
    return bibtexparser.write_string(library)


def _bibtex_value(text: str) -> str:
    """A BibTeX value: LaTeX's escapes (see the module), on one line — whitespace is one space
    to BibTeX, and a line that starts with ``@`` would start an entry for bibtexparser."""
    return _latex_encoder().unicode_to_latex(" ".join(text.split()))


def _bibtex_name(name: str) -> str:
    """One author for BibTeX's ``and``-joined list: a name BibTeX would split or turn around
    (an ``and``, a comma: 'Simon and Schuster', 'Acme, Ltd.') goes in braces, as one name."""
    encoded = _bibtex_value(name)
    return "{" + encoded + "}" if "," in name or _AND.search(name) else encoded


@cache
def _latex_encoder() -> Any:
    """LaTeX's escapes for its special characters, every brace among them in a group of its
    own (see the module); everything else (accents, scripts) as it is. ``^`` stays raw:
    LaTeX decoding keeps a raw one and drops ``\\^{}``."""
    from pylatexenc.latexencode import (
        RULE_DICT,
        UnicodeToLatexConversionRule,
        UnicodeToLatexEncoder,
    )

    escapes = {
        "\\": r"{\textbackslash}",
        "{": r"{\textbraceleft}",
        "}": r"{\textbraceright}",
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


@dataclass(frozen=True, slots=True)
class _Name:
    """An author's name split as BibTeX splits 'First von Last' (bibtexparser's reading of
    it): what RIS (``Last, First``) and CSL (family, given) want."""

    given: str
    family: str


def _split(name: str) -> _Name | None:
    """``name`` split, or None for a name BibTeX would not read as one person (a comma,
    braces, a backslash, an ``and``): such a name is kept whole."""
    from bibtexparser.middlewares.names import InvalidNameError, parse_single_name_into_parts

    if re.search(r"[,{}\\]", name) or _AND.search(name):
        return None
    try:
        parts = parse_single_name_into_parts(name)
    except InvalidNameError:
        return None
    return _Name(" ".join(parts.first), " ".join([*parts.von, *parts.last, *parts.jr]))


_RIS_TYPES = {"journal": "JOUR", "conference": "CPAPER"}


def to_ris(papers: Sequence[Exported]) -> str:
    import rispy

    records = []
    for p in papers:
        record = {
            "type_of_reference": _RIS_TYPES.get(p.venue_type, "GEN"),
            "id": _line(p.id),
            "title": _line(p.title),
            "authors": [_ris_name(a) for a in p.authors],
            "year": str(p.year or ""),
            "secondary_title": _line(p.venue),  # the journal (JOUR), the proceedings (CPAPER)
            "doi": _line(p.doi),
            "urls": [_line(u) for u in p.urls],
            "abstract": _line(p.abstract),
            "keywords": [_line(k) for k in p.keywords],
            "notes": [_line(p.note)] if p.note else [],
        }
        records.append({k: v for k, v in record.items() if v})
    return rispy.dumps(records, implementation=_plain_ris())


def _ris_name(name: str) -> str:
    """RIS's ``Last, First`` where the name splits, else the name as it is (one line)."""
    parts = _split(_line(name))
    return f"{parts.family}, {parts.given}" if parts and parts.given else _line(name)


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


_CSL_TYPES = {"journal": "article-journal", "conference": "paper-conference"}


def to_csl_json(papers: Sequence[Exported]) -> str:
    items = []
    keys: set[str] = set()
    for p in papers:
        item = {
            "id": _key(p.id, keys),  # as BibTeX's: citeproc-py ignores an id's case too
            "citegraph-id": p.id,
            "type": _CSL_TYPES.get(p.venue_type, "article"),
            "title": p.title,
            "author": [_csl_name(a) for a in p.authors],
            "issued": {"date-parts": [[p.year]]} if p.year else None,
            "container-title": p.venue,
            "DOI": p.doi,
            "URL": p.urls[0] if p.urls else "",
            # an untyped paper with an arXiv id is a preprint: its number, as Zotero writes it
            "number": f"arXiv:{p.arxiv}" if p.arxiv and not p.venue_type else "",
            "abstract": p.abstract,
            "keyword": ", ".join(p.keywords),
            "note": p.note,
        }
        items.append({k: v for k, v in item.items() if v})
    return json.dumps(items, ensure_ascii=False, indent=1) + "\n"


def _csl_name(name: str) -> dict[str, str]:
    parts = _split(name)
    if parts is None:
        return {"literal": name}
    return {"family": parts.family, "given": parts.given} if parts.given else {"family": parts.family}


def to_jsonl(papers: Sequence[Exported]) -> str:
    return "".join(
        json.dumps(
            {
                "id": p.id,
                "title": p.title,
                "authors": list(p.authors),
                "year": p.year,
                "venue": p.venue or None,
                "venue_type": p.venue_type or None,
                "doi": p.doi or None,
                "arxiv": p.arxiv or None,
                "url": p.urls[0] if p.urls else None,
                "abstract": p.abstract or None,
                "keywords": list(p.keywords),
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


def _key(paper_id: str, taken: set[str]) -> str:
    """A BibTeX key (or CSL id) from a paper id (keys take no spaces, commas or braces), unlike
    the ``taken`` ones (BibTeX ignores a key's case: ids '10.1/A' and '10.1/a' are two papers)."""
    base = re.sub(r"[^A-Za-z0-9_:.\-]", "_", paper_id) or "paper"
    key = next(k for n in itertools.count(1) if (k := base if n == 1 else f"{base}-{n}").casefold() not in taken)
    taken.add(key.casefold())
    return key
