"""The taxonomies papers are classified by, read from one folder.

The folder holds four files, read in this order (vocabularies first, then the map that
links two of them):

- ``mag_fields.txt``: the 19 MAG top-level fields of study, one a line (the values of
  S2ORC's ``mag_field_of_study``) → :class:`Field`;
- ``arxiv_categories.tsv``: arXiv categories under the header ``category name archive group
  group_name is_active`` → :class:`ArxivCategory`;
- ``acm_ccs2012.xml``: the ACM Computing Classification System 2012 as SKOS/RDF XML →
  :class:`AcmConcept` of scheme ``ccs2012``;
- ``arxiv_cs_to_acm1998.csv``: the arXiv→ACM 1998 fusion map of SymTax → one
  :class:`CategoryMapping` per row, and the ACM 1998 concepts it mentions as
  :class:`AcmConcept` of scheme ``acm1998``.

Any of them may be gzipped (``<name>.gz``). A copy ships in the package (:data:`BUNDLED`,
with its sources and licences in its README) so that ``citegraph ingest taxonomy`` needs
no download; the XML is gzipped there to keep the wheel small.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import suppress
from importlib import resources
from pathlib import Path
from typing import Any

from ...errors import CitegraphError
from ..records import AcmConcept, ArxivCategory, CategoryMapping, Field, Item, unique_strings
from ..source import TSV, BadField, SkosConcept, items, lines, skos_concepts, table, text

BUNDLED = Path(str(resources.files("citegraph") / "data" / "taxonomy"))

FIELDS = "mag_fields.txt"
CATEGORIES = "arxiv_categories.tsv"
CCS2012 = "acm_ccs2012.xml"
ACM1998_MAP = "arxiv_cs_to_acm1998.csv"

CATEGORY_COLUMNS = ["category", "name", "archive", "group", "group_name", "is_active"]
MAP_COLUMNS = ["Category_code", "Category_name", "ACM_subject_classes", "ACM_subject_names"]

_CSV: dict[str, Any] = {"strict": True}

# The 11 top-level classes of ACM 1998 (public fact). The map names only C, H and K; these
# label the other tops its codes imply (I for I.2.7).
ACM1998_TOP = {
    "A": "General Literature",
    "B": "Hardware",
    "C": "Computer Systems Organization",
    "D": "Software",
    "E": "Data",
    "F": "Theory of Computation",
    "G": "Mathematics of Computing",
    "H": "Information Systems",
    "I": "Computing Methodologies",
    "J": "Computer Applications",
    "K": "Computing Milieux",
}
# A class letter, then subclass numbers ('m' is ACM 1998's "miscellaneous"): I, I.2, I.2.10.
_ACM1998_CODE = re.compile(r"[A-Z](\.(\d+|m))*")


def files(path: Path) -> list[Path]:
    """The four files of the folder ``path``, in reading order; all are required."""
    if not path.is_dir():
        raise CitegraphError(
            f"{path}: the taxonomy format reads a folder holding {FIELDS}, {CATEGORIES}, {CCS2012} and {ACM1998_MAP}"
        )
    found = []
    for name in (FIELDS, CATEGORIES, CCS2012, ACM1998_MAP):
        match = next((c for c in (path / name, path / f"{name}.gz") if c.is_file()), None)
        if match is None:
            raise CitegraphError(f"{path}: {name} (or {name}.gz) is missing")
        found.append(match)
    return found


def read(file: Path) -> Iterator[Item]:
    """The records of one of the four files, told apart by name."""
    readers: dict[str, Callable[[Path], Iterator[Item]]] = {
        FIELDS: _read_fields,
        CATEGORIES: _read_categories,
        CCS2012: _read_ccs2012,
        ACM1998_MAP: _read_map,
    }
    reader = readers.get(file.name.removesuffix(".gz"))
    if reader is None:
        raise CitegraphError(f"{file}: not a taxonomy file (expected one of {', '.join(readers)})")
    return reader(file)


# -- MAG fields and arXiv categories ---------------------------------------------------
def _read_fields(file: Path) -> Iterator[Item]:
    return items(lines(file), lambda line: [Field(line.strip())] if line.strip() else [])


def _read_categories(file: Path) -> Iterator[Item]:
    return items(table(file, CATEGORY_COLUMNS, TSV), _category)


def _category(row: dict[str, str]) -> list[ArxivCategory]:
    active = row["is_active"].strip()
    if active not in ("True", "False"):
        raise BadField("is_active", f"expected True or False, got {active!r}")
    return [
        ArxivCategory(
            code=text(row, "category", required=True),
            name=text(row, "name", required=True),
            archive=text(row, "archive", required=True),
            group=text(row, "group", required=True),
            group_name=text(row, "group_name", required=True),
            active=active == "True",
        )
    ]


# -- ACM CCS 2012 (SKOS XML) -------------------------------------------------------------
def _read_ccs2012(file: Path) -> Iterator[Item]:
    return items(skos_concepts(file), _ccs_concept)


def _ccs_concept(concept: SkosConcept) -> list[AcmConcept]:
    if not concept.about:
        raise BadField("rdf:about", "is missing")
    labels = [label.strip() for label in concept.pref_labels if label.strip()]
    if not labels:  # the file has one (English) prefLabel per concept
        raise BadField("skos:prefLabel", "is empty" if concept.pref_labels else "is missing")
    if None in concept.broader:
        raise BadField("skos:broader", "has no rdf:resource")
    alt_labels = unique_strings(label.strip() for label in concept.alt_labels if label.strip())
    return [
        AcmConcept(concept.about, labels[0], "ccs2012", tuple(b for b in concept.broader if b is not None), alt_labels)
    ]


# -- the arXiv→ACM 1998 map --------------------------------------------------------------
def _read_map(file: Path) -> Iterator[Item]:
    """Each row's mapping, followed by the ACM 1998 concepts it is the first to mention.

    ACM 1998 has no machine-readable tree to read, but its codes spell their ancestry
    (I ⊃ I.2 ⊃ I.2.10), so every code listed and its ancestors become concepts; "M.*"
    codes (SymTax's additions for areas ACM 1998 lacks) are kept as they are. The file
    (40 rows) is read whole first because a code's label may come from a later row than
    the one that first mentions it: J.5 is first listed by cs.SD, whose names do not pair
    up with its codes, and named by cs.SI.
    """
    rows = list(table(file, MAP_COLUMNS, _CSV))
    labels: dict[str, str] = {}
    for _, row in rows:
        if isinstance(row, dict):
            with suppress(BadField):  # items() below reports it in its place
                for code, label in _mapping(row)[1].items():
                    labels.setdefault(code, label)
    emitted: set[str] = set()

    def parse(row: dict[str, str]) -> list[CategoryMapping | AcmConcept]:
        mapping, _ = _mapping(row)
        lineage = dict.fromkeys(ancestor for code in mapping.acm_codes for ancestor in _lineage(code))
        new = [code for code in lineage if code not in emitted]
        emitted.update(new)
        return [mapping, *(_acm1998_concept(code, labels) for code in new)]

    yield from items(rows, parse)


def _mapping(row: dict[str, str]) -> tuple[CategoryMapping, dict[str, str]]:
    """The row's mapping, and the labels it gives its codes.

    ``ACM_subject_names`` is '; '-separated and lists a name per code in the same order,
    except in rows that have fewer names than codes (cs.ET, cs.GT, cs.LG, cs.SD and cs.SY
    in the bundled copy); those rows name none, as which name belongs to which code is a guess.
    """
    category = text(row, "Category_code", required=True)
    codes = [code.strip() for code in text(row, "ACM_subject_classes", required=True).split(",")]
    for code in codes:
        if not _ACM1998_CODE.fullmatch(code):
            raise BadField("ACM_subject_classes", f"{code!r} is not an ACM 1998 code (like I.2.7)")
    names = [name.strip() for name in (text(row, "ACM_subject_names") or "").split(";")]
    labels = {code: name for code, name in zip(codes, names) if name} if len(names) == len(codes) else {}
    return CategoryMapping(category, unique_strings(codes)), labels


def _lineage(code: str) -> list[str]:
    """The code's ancestors, top first, then the code: I, I.2, I.2.10."""
    parts = code.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts) + 1)]


def _acm1998_concept(code: str, labels: dict[str, str]) -> AcmConcept:
    parent = code.rpartition(".")[0]
    return AcmConcept(code, labels.get(code) or ACM1998_TOP.get(code), "acm1998", (parent,) if parent else ())
