"""The unarXive reader on the real unarXive 2022 sample (49 papers of arXiv_src_2212_086)
and on broken copies of its lines: every defect must come back as a located Problem."""

from __future__ import annotations

import gzip
import json
import tarfile
from pathlib import Path

import pytest

from citegraph.ingest import formats
from citegraph.ingest.records import Author, Paper
from citegraph.ingest.sources import unarxive

from conftest import shared

SAMPLE = "samples/unarxive/unarXive_data_sample.tar.gz"
SAMPLE_FILE = "unarXive_data_sample/arXiv_src_2212_086.jsonl"


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    """The sample's JSONL, extracted from the archive (CC BY-SA 4.0, so not kept in the repo)."""
    folder = tmp_path_factory.mktemp("unarxive")
    with tarfile.open(shared(SAMPLE)) as archive:
        archive.extractall(folder, filter="data")
    return folder / SAMPLE_FILE


@pytest.fixture(scope="module")
def papers(sample: Path) -> dict[str, Paper]:
    items = list(unarxive.read(sample))
    assert [str(i.problem) for i in items if i.problem] == []
    return {i.record.id: i.record for i in items}


def sentences(body: str) -> list[str]:
    starts = unarxive.sentence_starts(body)
    return [body[a:b].strip() for a, b in zip(starts, starts[1:] + [len(body)])]


# -- the real sample ----------------------------------------------------------------------
def test_the_sample_reads_as_49_papers_through_the_format_registry(sample: Path):
    fmt = formats.get("unarxive")
    found = fmt.files(sample.parent.parent)  # a folder is searched recursively
    assert found == [sample]
    items = [item for file in found for item in fmt.read(file)]
    assert len(items) == 49
    assert all(isinstance(i.record, Paper) and i.problem is None for i in items)
    assert len({i.record.id for i in items}) == 49


def test_metadata_of_a_known_paper(papers: dict[str, Paper]):
    paper = papers["2212.11867"]
    assert paper.arxiv_id == "2212.11867"
    assert paper.title == "Zeros of a growing number of derivatives of random polynomials with independent roots"
    assert paper.abstract.startswith(
        "Let $X_1,X_2,\\ldots$ be independent and identically distributed random variables in"
    )
    assert "\n" not in paper.abstract and "  " not in paper.abstract
    assert paper.year == 2022
    assert paper.doi is None
    assert paper.categories == ("math.PR", "math.CA", "math.CV")
    assert paper.fields == ("Mathematics",)
    assert paper.authors == (
        Author("name:marcus michelen", "Marcus Michelen"),
        Author("name:xuan-truong vu", "Xuan-Truong Vu"),
    )


def test_fields_are_only_mag_names(papers: dict[str, Paper]):
    # discipline "Electrical Engineering and Systems Science" / "Quantitative Biology" are no MAG fields
    assert papers["2212.11858"].fields == ()
    assert papers["2212.11809"].fields == ()
    assert papers["2212.11861"].fields == ("Physics",)
    assert papers["2212.11861"].doi == "10.1088/1674-1137/ac600c"


def test_references_resolve_by_arxiv_then_openalex(papers: dict[str, Paper]):
    refs = {r.cited_id: r for r in papers["2212.11867"].references}
    # 17 bibliography entries: 15 resolve, 2 carry no ids at all
    assert len(refs) == 15
    # Alazard, Lazar, Nguyen: has both an arXiv and an OpenAlex id; arXiv wins
    assert "2104.06921" in refs and "openalex:W4225968159" not in refs
    # Byun, Lee, Reddy: OpenAlex id and DOI, no arXiv id; cited three times
    byun = refs["openalex:W4283717483"]
    assert byun.n_contexts == len(byun.contexts) == 3
    assert "doi:10.1090/tran/8674" not in refs
    # Kabluchko 2015 is in the bibliography but no marker in the text points at it
    assert refs["1206.6692"].contexts == () and refs["1206.6692"].n_contexts == 0
    # an old-style id with a version suffix (math/0510508v1) is cited by its bare id
    assert "math/0510508" in {r.cited_id for r in papers["2212.11885"].references}


def test_a_known_context_has_its_neighbouring_sentences(papers: dict[str, Paper]):
    ref = next(r for r in papers["2212.11867"].references if r.cited_id == "2104.06921")
    assert ref.sections == ("Introduction",)
    assert ref.contexts == (
        "In the case when the underlying measure [MATH] is radial, O'Rourke and Steinerberger conjecture "
        "that the logarithmic potentials of the limiting measure [MATH] satisfy a certain partial "
        "differential equation. This partial differential equation has been studied by analysts [CIT], "
        "[REF], and O'Rourke and Steinerberger's conjecture was proven in the special case when [MATH] "
        "has real support [REF] (see also [REF], [REF]). In the [MATH] case, the prediction of O'Rourke "
        "and Steinerberger suggests that the limiting measure should be the same as the underlying "
        "measure [MATH] .",
    )


def test_every_context_has_exactly_one_cit_and_no_placeholder(papers: dict[str, Paper]):
    contexts = [c for p in papers.values() for r in p.references for c in r.contexts]
    assert len(contexts) == 1217  # of 3042 markers; the rest point at unresolvable entries
    for c in contexts:
        assert c.count("[CIT]") == 1, c
        assert "{{" not in c and "\n" not in c
    assert any("[FIGURE]" in c for c in contexts) and any("[TABLE]" in c for c in contexts)


# -- the sentence splitter ------------------------------------------------------------------
def test_splitter_keeps_abbreviations_and_initials():
    assert sentences(
        "As shown by Smith et al. [1], e.g. in Fig. 2 and Eq. 3, it holds. "
        "J.-P. Serre and A. Weil (cf. Sec. 4, i.e. below) agree! Does it? Yes, etc. and so on."
    ) == [
        "As shown by Smith et al. [1], e.g. in Fig. 2 and Eq. 3, it holds.",
        "J.-P. Serre and A. Weil (cf. Sec. 4, i.e. below) agree!",
        "Does it?",
        "Yes, etc. and so on.",
    ]


def test_splitter_treats_placeholders_as_words_and_keeps_trailing_citations():
    body = (
        "We use {{formula:0a1b-2c}}. {{formula:3d4e-5f}} is positive. "
        "This is known. {{cite:abc}} {{cite:def}} But 3.5 is no end. (Next sentence.) Last"
    )
    assert sentences(body) == [
        "We use {{formula:0a1b-2c}}.",
        "{{formula:3d4e-5f}} is positive.",
        "This is known. {{cite:abc}} {{cite:def}}",
        "But 3.5 is no end.",
        "(Next sentence.)",
        "Last",
    ]


def test_splitter_limits_are_as_documented():
    assert sentences("It was cooled to 300 K. Then it broke.") == ["It was cooled to 300 K. Then it broke."]
    assert sentences("This holds. iPhones differ.") == ["This holds. iPhones differ."]


# -- hand-made records ----------------------------------------------------------------------
def _line(**overrides) -> dict:
    record = {
        "paper_id": "2101.00001v2",
        "discipline": "Geology",
        "metadata": {
            "title": "A\n  title",
            "categories": "physics.geo-ph",
            "versions": [],
            "update_date": "2021-01-05",
            "authors_parsed": [["Curie", "Marie", ""], ["King", "Martin Luther", "Jr"]],
        },
        "body_text": [
            {
                "section": "Intro",
                "text": "First one. See {{cite:a}} and {{cite:a}} for {{formula:x-1}}. Also {{cite:b}}. "
                "Then {{cite:c}} in {{table:t-1}}. Unknown {{cite:d}}. End.",
                "cite_spans": [],
            }
        ],
        "bib_entries": {
            "a": {
                "ids": {"arxiv_id": "arXiv:2104.06921v3", "open_alex_id": "https://openalex.org/W1", "doi": "10.1/x"}
            },
            "b": {"ids": {"arxiv_id": "", "open_alex_id": "https://openalex.org/W42", "doi": "10.1/y"}},
            "c": {"ids": {"arxiv_id": "", "open_alex_id": "", "doi": "10.1103/PhysRevD.1"}},
            "d": {"bib_entry_raw": "an entry nobody matched"},
            "e": {"ids": {"arxiv_id": "hep-th/9402147"}},
        },
    }
    paragraph = record["body_text"][0]
    for key in "aabcd":
        marker = f"{{{{cite:{key}}}}}"
        after = paragraph["cite_spans"][-1]["end"] if paragraph["cite_spans"] else 0
        start = paragraph["text"].index(marker, after)
        paragraph["cite_spans"].append({"start": start, "end": start + len(marker), "ref_id": key})
    record.update(overrides)
    return record


def _write(path: Path, *lines: dict | str | bytes) -> Path:
    with open(path, "wb") as f:
        for line in lines:
            data = line if isinstance(line, bytes) else (line if isinstance(line, str) else json.dumps(line)).encode()
            f.write(data + b"\n")
    return path


def test_a_hand_made_record(tmp_path: Path):
    [item] = unarxive.read(_write(tmp_path / "one.jsonl", _line()))
    paper = item.record
    assert (paper.id, paper.arxiv_id, paper.title, paper.year) == ("2101.00001", "2101.00001", "A title", 2021)
    assert paper.fields == ("Geology",) and paper.categories == ("physics.geo-ph",)
    assert [a.name for a in paper.authors] == ["Marie Curie", "Martin Luther King Jr"]
    refs = {r.cited_id: r for r in paper.references}
    assert list(refs) == ["2104.06921", "openalex:W42", "doi:10.1103/physrevd.1", "hep-th/9402147"]
    assert refs["2104.06921"].contexts == (
        "First one. See [CIT] and [REF] for [MATH]. Also [REF].",
        "First one. See [REF] and [CIT] for [MATH]. Also [REF].",
    )
    assert refs["2104.06921"].n_contexts == 2 and refs["2104.06921"].sections == ("Intro",)
    assert refs["doi:10.1103/physrevd.1"].contexts == ("Also [REF]. Then [CIT] in [TABLE]. Unknown [REF].",)
    assert refs["hep-th/9402147"].n_contexts == 0


# -- broken input -------------------------------------------------------------------------
def _problems(path: Path) -> list[tuple[int, str | None, str]]:
    return [(i.problem.where.line, i.problem.field, i.problem.reason) for i in unarxive.read(path) if i.problem]


def test_broken_lines_are_located_problems(tmp_path: Path):
    missing_id = _line()
    del missing_id["paper_id"]
    bad_categories = _line()
    bad_categories["metadata"]["categories"] = 7
    bad_span = _line()
    bad_span["body_text"][0]["cite_spans"][2]["start"] += 1
    bad_ids = _line()
    bad_ids["bib_entries"]["b"]["ids"] = ["W42"]
    bad_date = _line()
    bad_date["metadata"]["versions"] = [{"created": "yesterday"}]
    path = _write(
        tmp_path / "broken.jsonl",
        _line(),
        '{"paper_id": "2101.00002", "metadata": {',
        missing_id,
        bad_categories,
        bad_span,
        bad_ids,
        bad_date,
        _line(paper_id="not-an-id"),
        b'{"paper_id": "2101.00003", "title": "caf\xe9"}',
        _line(),
    )
    items = list(unarxive.read(path))
    assert [i.where.line for i in items if i.record] == [1, 10]
    problems = _problems(path)
    assert [(line, field) for line, field, _ in problems] == [
        (2, None),
        (3, "paper_id"),
        (4, "metadata.categories"),
        (5, "body_text[0].cite_spans[2]"),
        (6, "bib_entries.b.ids"),
        (7, "metadata.versions[0].created"),
        (8, "paper_id"),
        (9, None),
    ]
    reasons = dict((line, reason) for line, _, reason in problems)
    assert reasons[2].startswith("malformed JSON")
    assert reasons[3] == "is missing"
    assert "got int" in reasons[4]
    assert "do not point at the marker of 'b'" in reasons[5]
    assert "not an arXiv id" in reasons[8]
    assert "not valid UTF-8" in reasons[9]


def test_a_truncated_gzip_is_reported_where_it_ends(sample: Path, tmp_path: Path):
    whole = gzip.compress(sample.read_bytes())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    items = list(unarxive.read(path))
    *papers, last = items
    assert len(papers) >= 10 and all(isinstance(i.record, Paper) for i in papers)
    assert last.record is None and last.problem.field is None
    assert last.problem.where.line == len(papers) + 1
    assert "truncated" in last.problem.reason


def test_files_finds_compressed_jsonl_in_folders(tmp_path: Path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    first = _write(tmp_path / "a" / "x.jsonl", _line())
    second = tmp_path / "a" / "b" / "y.jsonl.gz"
    second.write_bytes(gzip.compress(first.read_bytes()))
    (tmp_path / "a" / "notes.txt").write_text("not input")
    assert unarxive.files(tmp_path) == [second, first]
    assert unarxive.files(first) == [first]
    assert [i.record.id for i in unarxive.read(second)] == ["2101.00001"]
