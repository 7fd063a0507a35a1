"""`citegraph ingest bibtex`: hand-written exports in the styles of the ACM and IEEE digital
libraries (a folder with a subfolder), read through bibtexparser 2, written to a real
ArcadeDB server; DOIs compared case-insensitively with their first spelling kept; bad
entries located at file:line:field; keywords stored and in the indexed text."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from citegraph.errors import CitegraphError, InputError
from citegraph.ingest import IngestOptions, formats, ingest
from citegraph.retrieval.corpus import documents

BIB = Path(__file__).parent / "fixtures" / "bibtex"
ACM, IEEE = BIB / "acm.bib", BIB / "ieee" / "export.bib"
SIGIR = "10.1145/3397271.3401075"
COHEN = "10.1023/A:1007412011789"  # as acm.bib spells it; ieee/export.bib writes 10.1023/a:…


def _surveyed(**settings):
    fmt = formats.get("bibtex").configured(**settings)
    return fmt.surveyed(fmt.files(BIB))


def _papers(fmt) -> dict:
    return {item.record.id: item.record for file in fmt.files(BIB) for item in fmt.read(file)}


def test_reader_ids_fields_and_the_survey():
    fmt, survey = _surveyed()
    assert fmt.files(BIB) == [ACM, IEEE]
    papers = _papers(fmt)
    assert sorted(papers) == sorted([SIGIR, COHEN, "manning2008", "lovelace1843"])  # one Cohen paper, first spelling
    sigir = papers[SIGIR]
    assert sigir.title == "Expansion via Prediction of Importance with Contextualization" and sigir.year == 2020
    assert sigir.venue == "Proceedings of the 43rd International ACM SIGIR Conference"
    assert sigir.keywords == ("neural ranking", "passage retrieval", "document expansion")
    assert [a.name for a in sigir.authors] == ["Sean MacAvaney", "Franco Maria Nardini", "Raffaele Perego"]
    assert sigir.abstract.startswith("The identification of relevance")
    assert papers[COHEN].doi == COHEN and papers[COHEN].year == 1999  # the later record's values win, as MERGE does
    assert papers["manning2008"].authors[2].name == "Hinrich Schütze" and papers["manning2008"].doi is None
    assert papers["lovelace1843"].title == "Notes on the Analytical Engine" and papers["lovelace1843"].year is None
    assert survey.spellings == {COHEN.casefold(): COHEN, SIGIR: SIGIR}
    assert survey.duplicates == {COHEN: [f"{ACM}:21", f"{IEEE}:1"]}
    assert survey.without_doi == 2
    # read alone, the IEEE file keeps its own spelling; with the survey's spellings, the ACM one
    alone = formats.get("bibtex")
    assert [i.record.id for i in alone.read(IEEE)][0] == "10.1023/a:1007412011789"


def test_entry_types_and_ids_from_keys():
    fmt, survey = _surveyed(entry_types=("article", "inproceedings"))
    assert sorted(_papers(fmt)) == sorted([SIGIR, COHEN])
    assert survey.left_out == {"book": 1, "misc": 1}
    assert {"entries": "@book", "count": 1, "read": False} in survey.rows()
    keyed, survey = _surveyed(id_from="key")
    assert sorted(_papers(keyed)) == sorted([SIGIR, "Cohen1998", "cohen-singer", "manning2008", "lovelace1843"])
    assert survey.duplicates == {}
    assert keyed.key == "bibtex[id_from=key]" and formats.get("bibtex").key == "bibtex"
    with pytest.raises(CitegraphError, match="format 'jsonl' has no setting entry_types"):
        formats.get("jsonl").configured(entry_types=("article",))


@pytest.mark.parametrize("text, line, field, reason", [
    ("@article{a, title = {A}, doi = {not-a-doi}}", 1, "doi", "'not-a-doi' is not a DOI"),
    ("@article{a,\n  title = {A},\n  year = {19x9}\n}", 3, "year", "'19x9' is not a year"),
    ("@article{a, title = {A}, title = {B}}", 1, None, "not a BibTeX entry: Duplicate field keys on entry: 'title'"),
    ("@article{ok, title = {Fine}}\n\n@article{a,\n  title = {A}\n@misc{b, title = {B}}", 3, None,
     "not a BibTeX entry: Unexpected block start: `@misc`"),
])
def test_bad_entries_are_located_and_nothing_is_written(store, tmp_path, text, line, field, reason):
    path = tmp_path / "bad.bib"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(InputError) as error:
        ingest(store, formats.get("bibtex"), [path])
    where = f"bad.bib:{line}:" + (f" field '{field}'" if field else "")
    assert where in str(error.value) and reason in str(error.value), str(error.value)
    assert store.run("stats/labels") == [] or all(r["label"] == "IngestCheckpoint" for r in store.run("stats/labels"))


def test_bibtex_in_the_graph_idempotent_keywords_indexed(store):
    fmt, _ = _surveyed()
    summary = ingest(store, fmt, [BIB])
    assert summary.write.records["Paper"] == 5  # the Cohen paper twice, one node
    assert {r["label"]: r["count"] for r in store.run("stats/labels")}["Paper"] == 4
    paper = store.run("paper", id=COHEN)[0]
    assert paper["title"] == "Context-sensitive learning methods for text categorization"
    docs = {d.id: d for d in documents(store)}
    assert docs[SIGIR].keywords == "neural ranking; passage retrieval; document expansion"
    assert docs[SIGIR].text.endswith("passage retrieval. neural ranking; passage retrieval; document expansion")
    again = ingest(store, fmt, [BIB])
    assert again.skipped_files == [str(ACM), str(IEEE)]
    forced = ingest(store, fmt, [BIB], IngestOptions(restart=True))
    assert forced.write.nodes_created == 0 and forced.write.relationships_created == 0
    filtered = formats.get("bibtex").configured(entry_types=("book",))
    assert ingest(store, filtered, [BIB]).skipped_files == []  # other settings: not the same checkpoint


def test_cli_ingest_bibtex_prints_the_survey(store, server_env):
    result = subprocess.run([sys.executable, "-m", "citegraph.cli", "ingest", "bibtex", str(BIB), "--no-progress",
                             "--entry-types", "article,inproceedings,misc"], capture_output=True, text=True,
                            env=server_env, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert f"duplicate id {COHEN}: {ACM}:21, {IEEE}:1" in result.stdout
    assert {r["label"]: r["count"] for r in store.run("stats/labels")}["Paper"] == 3
    wrong = subprocess.run([sys.executable, "-m", "citegraph.cli", "ingest", "jsonl", str(BIB), "--entry-types",
                            "article"], capture_output=True, text=True, env=server_env, timeout=300, check=False)
    assert wrong.returncode != 0 and "format 'jsonl' has no setting entry_types" in wrong.stderr
