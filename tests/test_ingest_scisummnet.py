"""The ScisummNet reader on three real paper folders (tests/fixtures/scisummnet, copied from
../shared/data/samples/scisummnet/From-ScisummNet-2019 without their annotation files)."""

from __future__ import annotations

import gzip
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from citegraph.contextualise import on_graph
from citegraph.errors import InputError
from citegraph.ingest import IngestOptions, formats, ingest
from citegraph.ingest.records import Citation
from citegraph.ingest.source import BadField
from citegraph.ingest.sources.scisummnet import acl_year, cited_surname, mark

from conftest import ACL200

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "scisummnet"


def read_all(path: Path = FIXTURES):
    fmt = formats.get("scisummnet")
    return [item for file in fmt.files(path) for item in fmt.read(file)]


def citations(items) -> dict[tuple[str, str], tuple[str, ...]]:
    return {
        (i.record.citing_id, i.record.reference.cited_id): i.record.reference.contexts
        for i in items
        if isinstance(i.record, Citation)
    }


def edge(store, citing: str, cited: str):
    return store.run("contextualise/edge_contexts", citing=citing, cited=cited)


@pytest.mark.parametrize(
    "paper_id, year",
    [
        ("P14-2043", 2014),
        ("A00-1031", 2000),
        ("W99-0613", 1999),
        ("J90-1003", 1990),
        ("C65-1001", 1965),
        ("N07-4013", 2007),
        ("2020.acl-main.1", 2020),
    ],
)
def test_the_year_is_read_from_the_acl_id(paper_id, year):
    assert acl_year(paper_id) == year


@pytest.mark.parametrize("bad", ["P1-2043", "p14-2043", "12345", "P14-2043x"])
def test_a_non_acl_id_is_refused(bad):
    with pytest.raises(BadField, match="not an ACL Anthology id"):
        acl_year(bad)


def test_the_cited_authors_name_is_voted_from_the_citing_sentences():
    items = read_all()
    found = {}
    for cited in ("N07-4013", "P00-1056", "W98-0705"):
        raw = json.loads((FIXTURES / cited / "citing_sentences.json").read_text())
        found[cited] = cited_surname((c["clean_text"] or c["raw_text"] for c in raw), acl_year(cited))
    assert found == {"N07-4013": "yates", "P00-1056": "och", "W98-0705": "gonzalo"}
    assert len(items) == 3 + 2 * (4 + 11 + 8)  # cited papers; a citing paper and its edge per citing paper


def test_markers_on_real_sentences():
    contexts = citations(read_all())
    assert contexts["S10-1057", "N07-4013"] == (
        "We turned to TextRunner ([CIT]) as a large source of background "
        "knowledge about pre-existing relations between nominals.",
    )
    # narrative citations, several in one citing paper, one of two same-year citations
    assert contexts["W02-1019", "P00-1056"][1].startswith("The Alignment Error Rate (AER) introduced by [CIT] measures")
    assert (
        contexts["W02-1019", "P00-1056"][3] == "The GIZA++ toolkit ([CIT]) was used for training the IBM-3 "
        "models (as in ([CIT]))."
    )
    assert contexts["H05-1051", "W98-0705"][0].startswith("[CIT] cite this failure to model related senses")
    # "(Gonzaloet al, 1998)": the PDF extraction glued the name to "et al": not found, left as it is
    assert contexts["P14-1115", "W98-0705"] == (
        "Then, following previous studies (e.g., (Gonzaloet al, 1998)), "
        "we use the synsets relations in Word Net for query expansion.",
    )
    unmarked = [c for cs in contexts.values() for c in cs if "[CIT]" not in c]
    assert len(unmarked) == 1


@pytest.mark.parametrize(
    "sentence, surname, year, expected",
    [
        ("TnT (Brants, 2000; Collins, 2000) is fast.", "brants", 2000, "TnT ([CIT]; Collins, 2000) is fast."),
        ("As Brants (2000) and Collins (2000) show", "collins", 2000, "As Brants (2000) and [CIT] show"),
        ("Och and Ney (2003, pp. 5-10) define AER.", "och", 2003, "[CIT] define AER."),
        ("Brants et al. 2000a is cited here", None, 2000, "[CIT] is cited here"),
        ("We follow the tagger of [12] here.", "brants", 2000, "We follow the tagger of [CIT] here."),
        ("Both [3] and [4] do it.", "brants", 2000, None),  # which one: unknown
        ("Collins (2000) and Charniak (2000) do it.", "brants", 2000, None),  # two of that year, neither named
        ("The corpus of 2000 sentences is used.", None, 2000, None),  # a lowercase word before a year is no citation
    ],
)
def test_mark(sentence, surname, year, expected):
    assert mark(sentence, surname, year) == expected


def test_ingest_keeps_full_texts_years_and_acl200_titles(store):
    summary = ingest(store, formats.get("scisummnet"), [FIXTURES])
    assert (summary.write.contexts, summary.write.unmarked_contexts) == (33, 1)
    cited = store.run("paper", id="W98-0705")[0]
    assert (cited["title"], cited["year"]) == ("Indexing With WordNet Synsets Can Improve Text Retrieval", 1998)
    citing = store.run("paper", id="P14-1115")[0]
    assert citing["year"] == 2014 and citing["title"].startswith("Abstractive Summarization of Spoken")
    assert store.run("paper", id="H05-1051")[0]["title"] is None  # not in ACL-200
    reference = on_graph.cited_reference(store, "W98-0705")  # the full text, sentence ids as the XML's sids
    xml = ET.parse(FIXTURES / "W98-0705" / "Reference_XML" / "W98-0705.xml").getroot()
    by_sid = {s.get("sid"): " ".join("".join(s.itertext()).split()) for s in xml.iter("S")}
    assert len(reference.sentences) == len(by_sid) > 100
    assert all(by_sid[s.sid] == s.text for s in reference.sentences if "&" not in by_sid[s.sid])
    assert edge(store, "W02-1019", "P00-1056")[0]["contexts"][3].endswith("(as in ([CIT])).")


def _merged(store) -> tuple:
    rows = [edge(store, c, "P00-1056") for c in ("W02-1019", "P03-1012", "P01-1067")]
    labels = {r["label"]: r["count"] for r in store.run("stats/labels") if r["label"] != "IngestCheckpoint"}
    return rows, labels, store.run("stats/relationships"), store.run("paper", id="P03-1012")[0]


@pytest.mark.slow
def test_merge_with_acl200_in_either_order_and_idempotent(store):
    acl200, scisummnet = formats.get("acl200"), formats.get("scisummnet")
    ingest(store, acl200, [ACL200], IngestOptions(batch_size=5000))
    before = {r["type"]: r["count"] for r in store.run("stats/relationships")}["CITES"]
    summary = ingest(store, scisummnet, [FIXTURES])
    pairs = set(citations(read_all()))
    with gzip.open(ACL200 / "edges.tsv.gz", "rt") as f:
        shared_edges = {tuple(line.split("\t")[:2]) for line in f} & pairs
    assert len(pairs) == 23 and len(shared_edges) == 7  # these are merged, not doubled
    assert summary.write.relationships_created == 23 - 7
    assert {r["type"]: r["count"] for r in store.run("stats/relationships")}["CITES"] == before + 16
    merged = edge(store, *sorted(shared_edges)[0])[0]["contexts"]
    assert merged and all("[CIT]" in c for c in merged)
    first = _merged(store)
    (w02,), (p03,), (p01,) = first[0]
    assert len(w02["contexts"]) == 6 and len(p03["contexts"]) == 5 and len(p01["contexts"]) == 1
    again = ingest(store, scisummnet, [FIXTURES], IngestOptions(restart=True))
    assert again.write.nodes_created == 0 and again.write.relationships_created == 0
    assert _merged(store) == first


@pytest.mark.slow
def test_scisummnet_first_then_acl200_gives_the_same_edges(store, arcade_server, server_config):
    from citegraph.graph import open_store

    ingest(store, formats.get("scisummnet"), [FIXTURES])
    ingest(store, formats.get("acl200"), [ACL200], IngestOptions(batch_size=5000))
    scisummnet_first = _merged(store)
    arcade_server.recreate_database()
    with open_store(server_config) as fresh:
        ingest(fresh, formats.get("acl200"), [ACL200], IngestOptions(batch_size=5000))
        ingest(fresh, formats.get("scisummnet"), [FIXTURES])
        assert _merged(fresh) == scisummnet_first


def test_bad_citances_are_located_and_skip_bad_writes_the_rest(store, tmp_path):
    folder = tmp_path / "N07-4013"
    shutil.copytree(FIXTURES / "N07-4013", folder)
    citances = folder / "citing_sentences.json"
    raw = json.loads(citances.read_text())
    raw[1]["citing_paper_id"] = "D11 1048"
    raw[2]["clean_text"] = raw[2]["raw_text"] = ""
    citances.write_text(json.dumps(raw, indent=2))
    line = {i: 2 + 9 * i for i in range(len(raw))}  # json.dumps(indent=2): 9 lines per object
    with pytest.raises(InputError, match=rf"citing_sentences.json:{line[1]}: .*not an ACL Anthology id"):
        ingest(store, formats.get("scisummnet"), [folder])
    assert store.run("stats/labels") == [] or all(r["label"] == "IngestCheckpoint" for r in store.run("stats/labels"))
    rejects = tmp_path / "rejects.jsonl"
    summary = ingest(store, formats.get("scisummnet"), [folder], IngestOptions(skip_bad=True, rejects=rejects))
    listed = [json.loads(row) for row in rejects.read_text().splitlines()]
    assert [(r["line"], r["field"]) for r in listed] == [(line[1], "citing_paper_id"), (line[2], "raw_text")]
    assert summary.rejected == 2 and summary.write.citations == 2


def test_malformed_json_and_xml_are_located(tmp_path):
    folder = tmp_path / "N07-4013"
    shutil.copytree(FIXTURES / "N07-4013", folder)
    text = (folder / "citing_sentences.json").read_text().splitlines()
    (folder / "citing_sentences.json").write_text("\n".join(text[:12]) + "\n")  # truncated in the 2nd object
    xml = folder / "Reference_XML" / "N07-4013.xml"
    xml.write_text("\n".join(xml.read_text().splitlines()[:5]) + "\n")
    problems = [str(i.problem) for i in read_all(folder) if i.problem]
    assert len(problems) == 2
    assert "N07-4013.xml:" in problems[0] and "malformed XML" in problems[0]
    assert (
        "citing_sentences.json:13:" in problems[1] and "malformed JSON" in problems[1]
    )  # at the end of the truncated file


def test_a_lone_surrogate_escape_in_a_citing_sentence_is_located(tmp_path):
    folder = tmp_path / "N07-4013"
    shutil.copytree(FIXTURES / "N07-4013", folder)
    citances = folder / "citing_sentences.json"
    text = citances.read_text()
    at = text.index('"raw_text": "', text.index("{", text.index("{") + 1)) + len('"raw_text": "')
    citances.write_text(text[:at] + "\\udc80" + text[at:])  # in the second citing sentence
    [problem] = [i.problem for i in read_all(folder) if i.problem]
    assert (problem.where.path.name, problem.field) == ("citing_sentences.json", "raw_text")
    assert problem.where.line == text.count("\n", 0, text.index("{", text.index("{") + 1)) + 1
    assert "lone UTF-16 surrogate (\\udc80)" in problem.reason


def test_the_local_query_set_leaves_out_contexts_whose_citation_is_not_masked(store, tmp_path):
    from citegraph.local.data import export_contexts, read_contexts, time_split

    ingest(store, formats.get("scisummnet"), [FIXTURES])
    counts = export_contexts(store, tmp_path / "contexts.jsonl")
    assert (counts["contexts"], counts["contexts_unmarked"]) == (32, 1)  # "(Gonzaloet al, 1998)" names its answer
    contexts = read_contexts(tmp_path / "contexts.jsonl")
    assert all("[CIT]" in c.text and "Gonzalo" not in c.text for c in contexts)
    split = time_split(contexts, test=0.25)  # years from the ACL ids order the citing papers
    assert max(c.year for c in split.train) <= min(c.year for c in split.test)
