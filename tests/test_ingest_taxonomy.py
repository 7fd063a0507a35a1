"""The taxonomy reader on the bundled files, on broken copies of them, and into the graph."""

from __future__ import annotations

import gzip
import shutil
from collections import Counter
from pathlib import Path

import pytest

from citegraph.errors import CitegraphError
from citegraph.ingest import IngestOptions, formats, ingest
from citegraph.ingest.records import AcmConcept, ArxivCategory, CategoryMapping, Field
from citegraph.ingest.sources.taxonomy import BUNDLED, files, read
from citegraph.vocabulary import MAG_FIELDS

FIELDS, CATEGORIES, CCS2012, MAP = files(BUNDLED)
CCS_TOP = {
    "10002944",
    "10002950",
    "10002951",
    "10002978",
    "10003033",
    "10003120",
    "10003456",
    "10003752",
    "10010147",
    "10010405",
    "10010520",
    "10010583",
    "10011007",
}


def records(file: Path, kind: type | None = None) -> list:
    found = []
    for item in read(file):
        assert item.problem is None, str(item.problem)
        if kind is None or isinstance(item.record, kind):
            found.append(item.record)
    return found


def problems(file: Path) -> list:
    return [item.problem for item in read(file) if item.problem is not None]


def concepts_1998() -> dict[str, AcmConcept]:
    concepts = records(MAP, AcmConcept)
    assert len({c.code for c in concepts}) == len(concepts), "each ACM 1998 concept is emitted once"
    return {c.code: c for c in concepts}


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A writable copy of the bundled folder."""
    return Path(shutil.copytree(BUNDLED, tmp_path / "taxonomy"))


def replace_line(file: Path, number: int, new: str | None) -> None:
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[number - 1 : number] = [] if new is None else [new + "\n"]
    file.write_text("".join(lines), encoding="utf-8")


# -- files -------------------------------------------------------------------------------
def test_files_are_bundled_in_reading_order():
    assert [f.name for f in files(BUNDLED)] == [
        "mag_fields.txt",
        "arxiv_categories.tsv",
        "acm_ccs2012.xml.gz",
        "arxiv_cs_to_acm1998.csv",
    ]
    assert formats.get("taxonomy").files(BUNDLED) == files(BUNDLED)


def test_a_missing_file_is_named(copy: Path):
    (copy / "arxiv_cs_to_acm1998.csv").unlink()
    with pytest.raises(
        CitegraphError, match=r"arxiv_cs_to_acm1998\.csv \(or arxiv_cs_to_acm1998\.csv\.gz\) is missing"
    ):
        files(copy)


def test_a_file_is_not_a_taxonomy_folder():
    with pytest.raises(CitegraphError, match="reads a folder"):
        files(FIELDS)


def test_plain_xml_reads_like_the_gzipped_copy(copy: Path):
    gzipped = copy / "acm_ccs2012.xml.gz"
    (copy / "acm_ccs2012.xml").write_bytes(gzip.decompress(gzipped.read_bytes()))
    gzipped.unlink()
    plain = files(copy)[2]
    assert plain.name == "acm_ccs2012.xml"
    assert [(i.where.line, i.record) for i in read(plain)] == [(i.where.line, i.record) for i in read(CCS2012)]


# -- the bundled data ----------------------------------------------------------------------
def test_mag_fields():
    fields = records(FIELDS)
    assert len(fields) == 19
    assert fields[0] == Field("Art") and Field("Computer Science") in fields
    assert tuple(f.name for f in fields) == MAG_FIELDS  # the constant the readers check against


def test_arxiv_categories():
    items = list(read(CATEGORIES))
    categories = [i.record for i in items]
    assert len(categories) == 185
    assert sum(c.active for c in categories) == 155
    (ai,) = [i for i in items if i.record.code == "cs.AI"]
    assert ai.where.line == 29
    assert ai.record == ArxivCategory("cs.AI", "Artificial Intelligence", "cs", "grp_cs", "Computer Science", True)
    assert next(c for c in categories if c.code == "acc-phys").active is False


def test_ccs2012_concepts():
    items = list(read(CCS2012))
    concepts = {i.record.code: i.record for i in items}
    assert len(items) == len(concepts) == 2113
    assert {c.scheme for c in concepts.values()} == {"ccs2012"}
    assert {code for code, c in concepts.items() if not c.broader} == CCS_TOP
    assert all(len(c.broader) == 1 and c.broader[0] in concepts for c in concepts.values() if c.broader)
    assert items[0].where.line == 18 and items[0].record.label == "General and reference"
    nlp = next(i for i in items if i.record.code == "10010147.10010178.10010179")
    assert nlp.where.line == 2931
    assert nlp.record == AcmConcept(
        "10010147.10010178.10010179", "Natural language processing", "ccs2012", broader=("10010147.10010178",)
    )
    assert concepts["10010147.10010178"].label == "Artificial intelligence"
    assert concepts["10010147.10010178"].broader == ("10010147",)


def test_category_mappings():
    items = [i for i in read(MAP) if isinstance(i.record, CategoryMapping)]
    mappings = {i.record.category: i.record.acm_codes for i in items}
    assert len(items) == len(mappings) == 40
    assert mappings["cs.AI"] == ("I.2", "I.2.1", "I.2.3", "I.2.4", "I.2.8", "I.2.11")
    assert mappings["cs.MA"] == ("I.2.11",)
    assert mappings["cs.CL"] == ("I.2.7",)
    assert mappings["cs.LG"] == ("M.3", "M.3.1", "M.3.2", "M.3.3", "M.3.4")
    assert sum(len(codes) for codes in mappings.values()) == 173
    assert [i.where.line for i in items] == list(range(2, 42))


def test_acm1998_tree_is_spelled_by_its_codes():
    concepts = concepts_1998()
    assert len(concepts) == 162
    assert {c.scheme for c in concepts.values()} == {"acm1998"}
    assert concepts["I"] == AcmConcept("I", "Computing Methodologies", "acm1998")
    assert concepts["I.2"] == AcmConcept("I.2", "Artificial Intelligence", "acm1998", broader=("I",))
    assert concepts["I.2.11"] == AcmConcept(
        "I.2.11", "Distributed Artificial Intelligence", "acm1998", broader=("I.2",)
    )
    assert concepts["I.2.10"].broader == ("I.2",)
    assert all(parent in concepts for c in concepts.values() for parent in c.broader)
    tops = {code for code, c in concepts.items() if not c.broader}
    assert tops == {"A", "C", "D", "E", "F", "G", "H", "I", "J", "K", "M"}
    mapped = {code for m in records(MAP, CategoryMapping) for code in m.acm_codes}
    assert len(mapped) == 146 and mapped <= concepts.keys()


def test_acm1998_concepts_follow_their_first_mention_ancestors_first():
    items = list(read(MAP))
    lines = {i.record.code: i.where.line for i in items if isinstance(i.record, AcmConcept)}
    assert lines["I"] == lines["I.2"] == lines["I.2.11"] == 2  # cs.AI, the first row
    assert lines["J.5"] == 38  # cs.SD
    order = [i.record.code for i in items if isinstance(i.record, AcmConcept)]
    assert order[:3] == ["I", "I.2", "I.2.1"]
    assert all(order.index(parent) < order.index(c.code) for c in records(MAP, AcmConcept) for parent in c.broader)


def test_acm1998_labels_come_from_the_csv_where_names_pair_with_codes():
    concepts = concepts_1998()
    assert concepts["I.2.7"].label == "Natural Language Processing"
    assert concepts["M.5"].label == "Miscellaneous"  # cs.OH
    # cs.SD lists 9 codes and 8 names: its own codes stay unnamed, unless a later row names them
    assert concepts["K.4.2"].label is None
    assert concepts["J.5"].label == "Arts and Humanities"  # from cs.SI
    # cs.ET lists M.1 and M.1.1–M.1.7 with 7 names: no guess
    assert concepts["M.1"].label is None and concepts["M.1.1"].label is None
    # implied ancestors: top classes are named, the others are not; "M" is no ACM 1998 class
    assert concepts["A"].label == "General Literature" and concepts["J"].label == "Computer Applications"
    assert concepts["I.6"].label is None and concepts["M"].label is None
    # the first row to name a code wins (cs.DB spells it so, cs.DS capitalises)
    assert concepts["E.2"].label == "Data Storage representations"
    assert sum(c.label is not None for c in concepts.values()) == 122


# -- broken copies ---------------------------------------------------------------------------
def test_tsv_row_with_wrong_number_of_columns(copy: Path):
    file = copy / "arxiv_categories.tsv"
    replace_line(file, 3, "adap-org\tAdaptation\tadap-org\tgrp_physics\tFalse")
    (problem,) = problems(file)
    assert (problem.where.path, problem.where.line, problem.field) == (file, 3, None)
    assert problem.reason == "expected 6 columns, got 5"
    assert sum(1 for i in read(file) if i.record) == 184


def test_tsv_is_active_must_be_true_or_false(copy: Path):
    file = copy / "arxiv_categories.tsv"
    replace_line(file, 29, "cs.AI\tArtificial Intelligence\tcs\tgrp_cs\tComputer Science\tyes")
    (problem,) = problems(file)
    assert (problem.where.path, problem.where.line, problem.field) == (file, 29, "is_active")
    assert "expected True or False, got 'yes'" in str(problem)


def test_tsv_with_another_header_is_not_read(copy: Path):
    file = copy / "arxiv_categories.tsv"
    replace_line(file, 1, "code\tname\tarchive\tgroup\tgroup_name\tis_active")
    items = list(read(file))
    assert len(items) == 1 and items[0].where.line == 1 and "expected the header" in items[0].problem.reason


def test_malformed_xml_is_reported_at_the_parsers_line(copy: Path):
    file = copy / "acm_ccs2012.xml"
    file.write_bytes(gzip.decompress((copy / "acm_ccs2012.xml.gz").read_bytes()))
    replace_line(file, 155, '    <skos:prefLabel xml:lang="en">Document types</skos:prefLabl>')
    items = list(read(file))
    assert [i.where.line for i in items if i.record][-1] == 147  # the concepts before it are read
    problem = items[-1].problem
    assert (problem.where.path, problem.where.line, problem.field) == (file, 155, None)
    assert problem.reason.startswith("malformed XML: mismatched tag")


def test_concept_without_preflabel(copy: Path):
    file = copy / "acm_ccs2012.xml"
    file.write_bytes(gzip.decompress((copy / "acm_ccs2012.xml.gz").read_bytes()))
    replace_line(file, 155, None)
    (problem,) = problems(file)
    assert (problem.where.path, problem.where.line, problem.field) == (file, 154, "skos:prefLabel")
    assert problem.reason == "is missing"
    assert len([i for i in read(file) if i.record]) == 2112


def test_truncated_gzip_xml(copy: Path):
    file = copy / "acm_ccs2012.xml.gz"
    data = file.read_bytes()
    file.write_bytes(data[: len(data) // 2])
    items = list(read(file))
    assert items[-1].problem is not None and "truncated or corrupt" in items[-1].problem.reason
    assert 0 < sum(1 for i in items if i.record) < 2113


def test_csv_row_without_category_code(copy: Path):
    file = copy / "arxiv_cs_to_acm1998.csv"
    replace_line(file, 26, ",Multiagent Systems,I.2.11,Distributed Artificial Intelligence")
    (problem,) = problems(file)
    assert (problem.where.path, problem.where.line, problem.field) == (file, 26, "Category_code")
    assert problem.reason == "is empty"
    items = [i for i in read(file) if i.record]
    assert sum(isinstance(i.record, CategoryMapping) for i in items) == 39


def test_csv_row_with_a_code_that_is_no_acm_1998_code(copy: Path):
    file = copy / "arxiv_cs_to_acm1998.csv"
    replace_line(file, 26, "cs.MA,Multiagent Systems,I.2.11 I.2.9,Distributed Artificial Intelligence")
    (problem,) = problems(file)
    assert (problem.where.line, problem.field) == (26, "ACM_subject_classes")
    assert "'I.2.11 I.2.9' is not an ACM 1998 code" in problem.reason


def test_csv_row_with_an_unclosed_quote(copy: Path):
    file = copy / "arxiv_cs_to_acm1998.csv"
    replace_line(file, 26, 'cs.MA,Multiagent Systems,"I.2.11,Distributed Artificial Intelligence')
    (problem,) = problems(file)
    assert problem.where.line == 26 and problem.reason.startswith("malformed row")


# -- into the graph ----------------------------------------------------------------------------
def test_ingest_bundled_taxonomy(store):
    summary = ingest(store, formats.get("taxonomy"), [BUNDLED])
    assert summary.files == 4 and summary.rejected == 0
    assert summary.write.records == Counter(Field=19, ArxivCategory=185, AcmConcept=2113 + 162, CategoryMapping=40)
    expected_nodes = {"Field": 19, "ArxivCategory": 185, "AcmConcept": 2113 + 162}
    expected_edges = {"BROADER": 2100 + 162 - 11, "MAPS_TO": 173}

    def graph() -> tuple[dict, dict]:
        nodes = {r["label"]: r["count"] for r in store.run("stats/labels")}
        edges = {r["type"]: r["count"] for r in store.run("stats/relationships")}
        return {k: nodes.get(k) for k in expected_nodes}, {k: edges.get(k) for k in expected_edges}

    assert graph() == (expected_nodes, expected_edges)
    again = ingest(store, formats.get("taxonomy"), [BUNDLED], IngestOptions(restart=True))
    assert again.write.relationships_created == 0
    assert graph() == (expected_nodes, expected_edges)
