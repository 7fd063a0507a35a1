"""Exports as faithful as the graph (issue 39 §2): every field the graph has of a paper —
title, authors in order, year, venue and its type, DOI, arXiv id, abstract, keywords — and
the URL its ids imply survive a round trip through the readers a reference manager uses:
bibtexparser and pybtex (BibTeX), rispy (RIS), citeproc-py (CSL-JSON, each record rendered).
Hostile titles inject no field (§4.3): BibTeX counts every brace, escaped or not. One
``--format`` vocabulary for `recommend`, `watch`, `cite` and `paper`; `paper` shows what
HTTP's /paper answers; counts agree with their nouns ("cited by 1 paper")."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from citegraph.formats.latex_text import decode
from citegraph.ingest import formats, ingest
from citegraph.library.export import WRITERS, Exported, exported, to_bibtex

from conftest import citegraph, citegraph_ok, write_jsonl

FIXTURES = Path(__file__).parent / "fixtures"
HOSTILE_TITLE = 'a}}, url = "http://evil.example/", note = 1'
#: Papers whose ids say what they are (ACL Anthology), and one of each hostile kind.
RECORDS = [
    {"id": "J12-1001", "title": "A Journal Paper", "year": 2012, "authors": ["Ada Lovelace", "Charles Babbage"]},
    {"id": "Q13-1001", "title": "A TACL Paper", "year": 2013},
    {"id": "P12-1066", "title": "Selective Sharing for Multilingual Dependency Parsing", "year": 2012},
    {"id": "2020.tacl-1.5", "title": "New-style TACL", "year": 2020},
    {"id": "2020.acl-main.1", "title": "New-style ACL", "year": 2020, "venue": "Proceedings of ACL 2020"},
    {"id": "X1", "title": "Named by its Anthology DOI", "doi": "10.18653/v1/d15-1039"},
    {
        "id": "H1",
        "title": HOSTILE_TITLE,
        "venue": r"x \} y }, note={z",
        "abstract": r"\{ unbalanced { and } 50% $x$ #1 _y_ ~",
        "authors": ["Simon and Schuster", "Acme, Ltd.", "Zoë {Brace", "Back\\slash", "Ludwig van Beethoven"],
    },
]
#: What an ACL id implies: (venue type, venue, URL).
ACL = {
    "J12-1001": ("journal", "Computational Linguistics", "https://aclanthology.org/J12-1001"),
    "Q13-1001": (
        "journal",
        "Transactions of the Association for Computational Linguistics",
        "https://aclanthology.org/Q13-1001",
    ),
    "P12-1066": ("conference", "", "https://aclanthology.org/P12-1066"),
    "2020.tacl-1.5": (
        "journal",
        "Transactions of the Association for Computational Linguistics",
        "https://aclanthology.org/2020.tacl-1.5",
    ),
    "2020.acl-main.1": ("conference", "Proceedings of ACL 2020", "https://aclanthology.org/2020.acl-main.1"),
    "X1": ("conference", "", "https://aclanthology.org/D15-1039"),
}


@pytest.fixture
def graph(store, tmp_path):
    """BibTeX (ACM, IEEE styles), OpenAlex and the records above, in one graph."""
    ingest(store, formats.get("bibtex"), [FIXTURES / "bibtex"])
    ingest(store, formats.get("openalex"), [FIXTURES / "openalex" / "works.jsonl"])
    ingest(store, formats.get("jsonl"), [write_jsonl(tmp_path / "records.jsonl", RECORDS)])
    return store


def _papers(store) -> list[Exported]:
    [corpus] = store.run("library/papers")
    ids = sorted(corpus["ids"])
    return exported(store, ids, notes={"H1": "why: } {", "P12-1066": "cited by 1 paper"})


def _graph_fields(p: Exported) -> dict:
    """What every export must carry of ``p``: the graph's fields and the URL its ids imply."""
    return {
        "title": p.title,
        "authors": list(p.authors),
        "year": p.year,
        "venue": p.venue,
        "venue_type": p.venue_type,
        "doi": p.doi,
        "arxiv": p.arxiv,
        "url": p.urls[0] if p.urls else "",
        "abstract": p.abstract,
        "keywords": list(p.keywords),
        "note": p.note,
    }


def test_the_graph_holds_what_the_exports_need(graph):
    """The fixture is worth testing with: every field occurs, and the ids imply what they should."""
    papers = {p.id: p for p in _papers(graph)}
    for field in ("title", "authors", "year", "venue", "venue_type", "doi", "arxiv", "abstract", "keywords"):
        assert any(getattr(p, field) for p in papers.values()), field
    assert {i: (papers[i].venue_type, papers[i].venue, papers[i].urls[0]) for i in ACL} == ACL
    sigir = papers["10.1145/3397271.3401075"]
    assert (sigir.venue_type, sigir.urls) == ("conference", ("https://doi.org/10.1145/3397271.3401075",))
    vaswani = papers["W2963403868"]
    assert vaswani.authors[0] == "Ashish Vaswani" and vaswani.urls[0] == f"https://arxiv.org/abs/{vaswani.arxiv}"
    assert papers["manning2008"].venue_type == ""  # @book: no venue type


def _bibtex_type(p: Exported) -> str:
    return {"journal": "article", "conference": "inproceedings"}.get(p.venue_type, "misc")


def _venue_field(p: Exported) -> str:
    return {"journal": "journal", "conference": "booktitle"}.get(p.venue_type, "howpublished")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _bibtex_expected(p: Exported) -> dict:
    """The fields a BibTeX entry of ``p`` must have, decoded (on one line: whitespace is one space to BibTeX)."""
    fields = {
        "title": p.title,
        "year": str(p.year or ""),
        _venue_field(p): p.venue,
        "doi": p.doi,
        "eprint": p.arxiv,
        "archiveprefix": "arXiv" if p.arxiv else "",
        "url": p.urls[0] if p.urls else "",
        "abstract": p.abstract,
        "keywords": ", ".join(p.keywords),
        "note": p.note,
        "citegraph-id": p.id,
    }
    return {k: _one_line(v) for k, v in fields.items() if v}


def test_bibtex_round_trips_through_bibtexparser(graph):
    import bibtexparser
    from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names

    papers = _papers(graph)
    library = bibtexparser.parse_string(to_bibtex(papers))
    assert not library.failed_blocks and len(library.entries) == len(papers)
    assert len({e.key.casefold() for e in library.entries}) == len(papers)  # '10.1023/A:…' and '10.1023/a:…' too
    for p, entry in zip(papers, library.entries, strict=True):
        fields = {f.key: decode(f.value)[0] for f in entry.fields if f.key != "author"}
        assert (entry.entry_type, fields) == (_bibtex_type(p), _bibtex_expected(p)), p.id
        names = split_multiple_persons_names(entry.fields_dict["author"].value) if p.authors else []
        read = [decode(parse_single_name_into_parts(n).merge_first_name_first)[0] for n in names]
        assert read == list(p.authors), p.id


def test_bibtex_round_trips_through_pybtex(graph):
    from pybtex.database import parse_string

    papers = _papers(graph)
    entries = list(parse_string(to_bibtex(papers), "bibtex").entries.values())
    assert len(entries) == len(papers)
    for p, entry in zip(papers, entries, strict=True):
        fields = {k.lower(): decode(v)[0] for k, v in entry.fields.items()}
        assert (entry.type, fields) == (_bibtex_type(p), _bibtex_expected(p)), p.id
        read = [
            decode(" ".join([*a.first_names, *a.middle_names, *a.prelast_names, *a.last_names, *a.lineage_names]))[0]
            for a in entry.persons.get("author", [])
        ]
        assert read == list(p.authors), p.id


def test_ris_round_trips_through_rispy(graph):
    import rispy

    papers = _papers(graph)
    records = rispy.loads(WRITERS["ris"](papers))
    assert len(records) == len(papers)
    for p, record in zip(papers, records, strict=True):
        kind = {"journal": "JOUR", "conference": "CPAPER"}.get(p.venue_type, "GEN")
        assert record["type_of_reference"] == kind and record["id"] == p.id, p.id
        expected = _graph_fields(p)
        read = {
            "title": record.get("title", ""),
            # 'Last, First'; a name with a comma of its own is written whole ('Acme, Ltd.')
            "authors": [
                a if a in p.authors else " ".join(reversed(a.split(", ", 1))) for a in record.get("authors", [])
            ],
            "year": int(record["year"]) if "year" in record else None,
            "venue": record.get("secondary_title", ""),
            "venue_type": p.venue_type,  # the record's type, above
            "doi": record.get("doi", ""),
            "arxiv": p.arxiv if f"https://arxiv.org/abs/{p.arxiv}" in record.get("urls", []) else "",
            "url": record.get("urls", [""])[0],
            "abstract": record.get("abstract", ""),
            "keywords": record.get("keywords", []),
            "note": " ".join(record.get("notes", [])),
        }
        assert read == {**expected, **{k: _one_line(expected[k]) for k in ("title", "venue", "abstract", "note")}}, p.id
        assert record.get("urls", []) == list(p.urls)


def test_csl_json_round_trips_and_every_record_renders_with_citeproc(graph):
    from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON

    papers = _papers(graph)
    items = json.loads(WRITERS["csl-json"](papers))
    for p, item in zip(papers, items, strict=True):
        kind = {"journal": "article-journal", "conference": "paper-conference"}.get(p.venue_type, "article")
        assert (item["type"], item["citegraph-id"]) == (kind, p.id)
        names = [
            a.get("literal") or " ".join(filter(None, [a.get("given"), a["family"]])) for a in item.get("author", [])
        ]
        read = {
            "title": item["title"],
            "authors": names,
            "year": item["issued"]["date-parts"][0][0] if "issued" in item else None,
            "venue": item.get("container-title", ""),
            "venue_type": p.venue_type,  # the item's type, above
            "doi": item.get("DOI", ""),
            "arxiv": p.arxiv if p.arxiv and p.arxiv in item.get("URL", "") + item.get("number", "") else "",
            "url": item.get("URL", ""),
            "abstract": item.get("abstract", ""),
            "keywords": item["keyword"].split(", ") if "keyword" in item else [],
            "note": item.get("note", ""),
        }
        assert read == _graph_fields(p), p.id
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        source = CiteProcJSON(items)
    assert {str(w.message) for w in said} <= {"The following arguments for Reference are unsupported: citegraph_id"}
    bibliography = CitationStylesBibliography(
        CitationStylesStyle("harvard-cite-them-right", validate=False), source, formatter.plain
    )
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    rendered = [str(r) for r in bibliography.bibliography()]
    assert len(rendered) == len(papers)
    for p, item in zip(papers, items, strict=True):
        text = next(r for r in rendered if p.title in r)
        families = [a.get("literal") or a["family"] for a in item.get("author", [])]
        at = [text.index(f) for f in families if f in text]  # the style names up to 3, else the first "et al."
        assert at == sorted(at) and len(at) == (len(families) if len(families) < 4 else 1), (p.id, text)
        assert not families or text.startswith(families[0]), (p.id, text)  # first author first
        for value in (str(p.year or ""), _one_line(p.venue)):
            assert value in text, (p.id, value, text)
        assert not p.urls or any(u.lower() in text.lower() for u in p.urls), (p.id, text)  # the style prefers the DOI


# -- §4.3: no field injected, whatever the text ------------------------------------------------
INJECTIONS = [
    HOSTILE_TITLE,
    r"x \{ y",
    r"x \} y }, note={z",
    "a\\}, note = {b",
    "{",
    "}}}}",
    "}\n}\n@article{evil,\n  url = {x}",
    '\\"}, url="x',
]


@pytest.mark.parametrize("text", INJECTIONS, ids=range(len(INJECTIONS)))
def test_a_hostile_text_injects_no_field_in_bibtexparser_or_pybtex(text):
    import bibtexparser
    from pybtex.database import parse_string

    written = to_bibtex(
        [Exported("p1", text, 2020, text, authors=(text, "Ada Lovelace"), note=text, venue_type="journal")]
    )
    fields = ["title", "author", "year", "journal", "note", "citegraph-id"]
    [entry] = bibtexparser.parse_string(written).entries
    assert [f.key for f in entry.fields] == fields
    assert all(decode(entry.fields_dict[k].value)[0] == _one_line(text) for k in ("title", "journal", "note"))
    [read] = parse_string(written, "bibtex").entries.values()
    assert sorted(read.fields) == sorted(f for f in fields if f != "author")
    assert all(decode(read.fields[k])[0] == _one_line(text) for k in ("title", "journal", "note"))
    assert len(read.persons["author"]) == 2


def test_the_explorer_export_and_paper_write_through_the_same_writer(graph, server_env):
    """`paper --format bibtex` and POST /explore/export of the hostile record re-parse with pybtex as written."""
    from fastapi.testclient import TestClient
    from pybtex.database import parse_string

    from citegraph.recommend import Recommender
    from citegraph.service.http import create_app

    service = TestClient(create_app(Recommender(graph)), base_url="http://127.0.0.1")
    answer = service.post("/explore/export", json={"papers": ["H1"], "notes": {"H1": "why"}, "format": "bibtex"})
    shown = citegraph_ok("paper", "H1", "--format", "bibtex", env=server_env).stdout
    for text in (answer.text, shown):
        [entry] = parse_string(text, "bibtex").entries.values()
        assert "url" not in entry.fields and decode(entry.fields["title"])[0] == HOSTILE_TITLE


# -- `citegraph paper` and the one --format vocabulary ---------------------------------------------
def test_paper_shows_what_http_answers(graph, server_env):
    from fastapi.testclient import TestClient

    from citegraph.recommend import Recommender
    from citegraph.service.http import create_app

    paper_id = "10.1145/3397271.3401075"
    http = TestClient(create_app(Recommender(graph)), base_url="http://127.0.0.1").get(f"/paper/{paper_id}").json()
    shown = json.loads(citegraph_ok("paper", paper_id, "--format", "json", env=server_env).stdout)
    assert {k: shown[k] for k in http} == http
    assert (shown["doi"], shown["url"], shown["venue_type"]) == (paper_id, f"https://doi.org/{paper_id}", "conference")
    text = " ".join(citegraph_ok("paper", paper_id, env={**server_env, "COLUMNS": "400"}).stdout.split())
    for value in (
        "Sean MacAvaney; Franco Maria Nardini; Raffaele Perego",
        "Proceedings of the 43rd International ACM SIGIR Conference (conference)",
        f"https://doi.org/{paper_id}",
        "The identification of relevance",
        "│ cited by │ 0 papers",
    ):
        assert value in text, (value, text)


def test_every_command_that_prints_records_takes_the_same_formats(server_env):
    """One vocabulary, declared once: each command's --help lists the same values, and `recommend --json` is gone."""
    from citegraph.cli.flags import record_formats

    assert record_formats() == ["text", "json", "bibtex", "ris", "csl-json", "jsonl"]
    for command in ("recommend", "watch", "cite", "paper", "works"):
        shown = " ".join(citegraph_ok(command, "--help", env=server_env).stdout.split())
        assert "[text|json|bibtex|ris|csl-json|jsonl]" in shown, command
    assert citegraph("recommend", "--paper", "X", "--json", env=server_env).returncode == 2


def test_recommend_and_cite_print_each_format(graph, server_env, tmp_path):
    """A tiny graph where P is cited once: recommend for S (which cites R, co-cited with P) in
    every format, and cite on a sentence; the reasons agree with their counts."""
    ingest(
        graph,
        formats.get("jsonl"),
        [
            write_jsonl(
                tmp_path / "tiny.jsonl",
                [
                    {"id": "R", "title": "Reference paper", "year": 2000},
                    {"id": "P", "title": "Parsing paper", "year": 2001, "authors": ["Ada Lovelace", "Alan Turing"]},
                    {"id": "X", "title": "Citing both", "year": 2002, "references": ["R", "P"]},
                    {"id": "S", "title": "Seed paper", "year": 2003, "references": ["R"]},
                ],
            )
        ],
    )
    asked = ("recommend", "--paper", "S", "--with", "", "-k", "5")
    found = json.loads(citegraph_ok(*asked, "--format", "json", env=server_env).stdout)["recommendations"]
    [p] = [r for r in found if r["id"] == "P"]
    assert "cited by 1 paper in the corpus" in p["explanation"]
    assert "co-cited with your references 1 time" in p["explanation"]
    assert not any("1 papers" in e or "1 times" in e for r in found for e in r["explanation"])
    ris = citegraph_ok(*asked, "--format", "ris", env=server_env).stdout
    assert "AU  - Lovelace, Ada\nAU  - Turing, Alan" in ris and "cited by 1 paper in the corpus" in ris
    text = citegraph_ok(*asked, "--explain", env={**server_env, "COLUMNS": "400"}).stdout
    assert "cited by 1 paper in the corpus" in text and "1 papers" not in text
    cited = citegraph_ok(
        "cite", "--context", "As shown for parsing [CIT].", "--with", "", "--format", "csl-json", env=server_env
    )
    assert all("citegraph-id" in item for item in json.loads(cited.stdout))
