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
DEMO_LIBRARY = Path(__file__).parents[1] / "citegraph" / "data" / "demo" / "library.bib"
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


@pytest.mark.parametrize(
    "text, line, field, reason",
    [
        ("@article{a, title = {A}, doi = {not-a-doi}}", 1, "doi", "'not-a-doi' is not a DOI"),
        ("@article{a,\n  title = {A},\n  year = {19x9}\n}", 3, "year", "'19x9' is not a year"),
        (
            "@article{a, title = {A}, title = {B}}",
            1,
            None,
            "not a BibTeX entry: Duplicate field keys on entry: 'title'",
        ),
        (
            "@article{ok, title = {Fine}}\n\n@article{a,\n  title = {A}\n@misc{b, title = {B}}",
            3,
            None,
            "not a BibTeX entry: Unexpected block start: `@misc`",
        ),
    ],
)
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
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "citegraph.cli",
            "ingest",
            "bibtex",
            str(BIB),
            "--no-progress",
            "--entry-types",
            "article,inproceedings,misc",
        ],
        capture_output=True,
        text=True,
        env=server_env,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert f"duplicate id {COHEN}: {ACM}:21, {IEEE}:1" in result.stdout
    assert {r["label"]: r["count"] for r in store.run("stats/labels")}["Paper"] == 3
    wrong = subprocess.run(
        [sys.executable, "-m", "citegraph.cli", "ingest", "jsonl", str(BIB), "--entry-types", "article"],
        capture_output=True,
        text=True,
        env=server_env,
        timeout=300,
        check=False,
    )
    assert wrong.returncode != 0 and "format 'jsonl' has no setting entry_types" in wrong.stderr


# -- LaTeX decoded where there is some, as bibtexparser's middleware decodes it (issue 23 §3) -------
LATEX_VALUES = [
    r"Sch{\"u}tze",
    r"{\'E}mile and {\v{C}}apek",
    r"\c{c}a and \c c",
    r"{BERT}: Pre-training of {Deep} Transformers",
    r"An $O(n \log n)$ algorithm for $k$-means",
    r"{\em Emphasis across words} and \emph {spaced} text",
    r"\textbf{Bold} start, then plain words, then Fig.~3 and pp.~1--2",
    r"Caf\' e and na\"{\i}ve",
    r"``Quoted'' --- dash",
    r"Unclosed {group runs to the end",
    r"Sch{\"o}lkopf, {\'E}mile{\"e}s and Pion{\"u}es-{\c c}a",
    r"{\em x}y and a{\bf b}c{d}e",
    r"{GPU}-accelerated $k$-means for {SIMD}",
    r"${x}_i$ and {$y$} then {\"o}",
    r"\bf declared words follow",
    r"Escaped \{braces\} and 5\% and \$",
    r"\url{https://example.org/a_b}",
    r"Nested {{Case}} and {a {b} c} groups",
    "Long " + " ".join(f"w{i}" for i in range(400)) + r" with {\"o} at the end",
]


def _normal(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("value", LATEX_VALUES)
def test_decoding_only_the_latex_gives_what_decoding_it_all_gives(value):
    from bibtexparser.middlewares import LatexDecodingMiddleware

    from citegraph.formats import latex_text

    whole = LatexDecodingMiddleware()._decoder.latex_to_text(value)
    assert _normal(latex_text.decode(value)[0]) == _normal(whole)


def test_fixtures_read_as_the_decoding_middleware_read_them():
    """The fields citegraph reads, on every .bib file of the repository, against the previous
    reader (bibtexparser's LatexDecodingMiddleware and name middlewares over the whole file)."""
    import bibtexparser
    from bibtexparser import middlewares

    from citegraph.formats import bibtex_entries

    for path in (ACM, IEEE, BIB.parent / "trec" / "collection" / "corpus.bib", DEMO_LIBRARY):
        before = bibtexparser.parse_string(
            path.read_text(encoding="utf-8"),
            append_middleware=[
                middlewares.LatexDecodingMiddleware(),
                middlewares.SeparateCoAuthors(),
                middlewares.SplitNameParts(),
            ],
        )
        for old, new in zip(before.entries, bibtex_entries.parse(path), strict=True):
            assert (new.key, new.where.line) == (old.key, old.start_line + 1)
            for f in old.fields:
                if f.key.lower() == "author":
                    assert new.fields["author"] == tuple(_normal(n.merge_first_name_first) for n in f.value)
                elif f.key.lower() in bibtex_entries.READ_FIELDS:
                    assert new.fields[f.key.lower()] == f.value, f.key


def test_bare_percent_and_ampersand_are_characters_not_latex():
    from citegraph.formats import latex_text

    assert latex_text.decode(r"{R\&D} gains 5% & {more} -- text") == ("R&D gains 5% & more – text", [])


# -- what BibTeX resolves, resolved; what it would not, warned with file:line (issue 23 §4.14) -----
ODD = r"""@string{conf = "Conference on " # topic}
@string{topic = {Retrieval}}
@string{loop = "x" # loop}
@proceedings{proc21,
  title = {Proceedings of the } # conf,
  year = 2021,
  publisher = {ACM}
}

@inproceedings{child,
  title = "Joined" # { } # "Title",
  crossref = {proc21},
  doi = {10.1000/child},
  month = feb
}
@article{odd,
  title = {Caf\'},
  journal = nosuchmacro # { Letters},
  abstract = loop,
  author = {Null, A.},
  crossref = {missing},
  keywords = {a, b}
}
"""


def test_concatenation_macros_and_crossref_resolved_the_rest_warned(tmp_path):
    from citegraph.formats import bibtex_entries

    path = tmp_path / "odd.bib"
    path.write_text(ODD.replace("Null, A.", "Nu\x00ll, A."), encoding="utf-8")
    proc, child, odd = bibtex_entries.parse(path)
    assert proc.fields["title"] == "Proceedings of the Conference on Retrieval" and proc.fields["year"] == "2021"
    assert child.fields["title"] == "Joined Title"
    assert child.fields["booktitle"] == "Proceedings of the Conference on Retrieval"  # the parent's title
    assert child.fields["year"] == "2021" and child.fields["publisher"] == "ACM"  # inherited
    assert child.fields["doi"] == "10.1000/child" and child.warnings == ()
    assert odd.fields["title"] == "Caf" and odd.fields["journal"] == " Letters" and odd.fields["abstract"] == "x"
    assert odd.fields["author"] == ("A. Null",)
    warned = sorted(str(w) for w in odd.warnings)
    assert warned == sorted(
        [
            f"{path}:17: field 'title' a LaTeX accent with no letter after it (dropped)",
            f"{path}:18: field 'journal' undefined @string macro 'nosuchmacro'; BibTeX's empty text used",
            f"{path}:19: field 'abstract' @string macro 'loop' is defined by itself (loop → loop); BibTeX's empty "
            "text used",
            f"{path}:20: field 'author' control characters (a NUL, …) dropped",
            f"{path}:21: field 'crossref' no entry 'missing' in this file to take fields from",
        ]
    ), warned
    fmt, survey = formats.get("bibtex").surveyed([path])
    assert [n for n in survey.notes() if n.startswith("warning: ")] == [f"warning: {w}" for w in odd.warnings]
    assert {i.record.id: i.record.venue for i in fmt.read(path)}[
        "10.1000/child"
    ] == "Proceedings of the Conference on Retrieval"


@pytest.mark.parametrize(
    "authors, names",
    [
        ("{ and  and }", ()),
        ("{and}", ()),
        ("{Smith, J. and  and Doe, A.}", ("J. Smith", "A. Doe")),
        ("{ and Smith, J.}", ("J. Smith",)),
        ("{Smith, J. and }", ("J. Smith",)),
        ("{Smith, J. and and and Doe, A. and {Simon and Schuster}}", ("J. Smith", "A. Doe", "Simon and Schuster")),
        ("{Anderson, Andy and Sandy Andrews}", ("Andy Anderson", "Sandy Andrews")),
    ],
)
def test_empty_names_between_ands_are_dropped(store, tmp_path, authors, names):
    """`author = { and  and }` is no author (it was stored as one named 'and and'), and an
    empty name between two ``and``s does not swallow the next name's first word."""
    path = tmp_path / "ands.bib"
    path.write_text(f"@article{{k,\n  title = {{T}},\n  author = {authors}\n}}\n", encoding="utf-8")
    [item] = formats.get("bibtex").read(path)
    assert tuple(a.name for a in item.record.authors) == names
    ingest(store, formats.get("bibtex"), [path])
    assert store.run("paper", id="k")[0]["authors"] == list(names)


def test_the_entry_type_is_the_venue_type():
    papers = _papers(_surveyed()[0])
    assert {i: (p.venue_type, p.venue) for i, p in papers.items()} == {
        SIGIR: ("conference", "Proceedings of the 43rd International ACM SIGIR Conference"),
        COHEN: ("journal", "Machine Learning"),
        "manning2008": (None, "Cambridge University Press"),  # @book: its publisher, no venue type
        "lovelace1843": (None, None),
    }


def test_a_field_past_the_limit_is_refused_at_its_line_at_once(tmp_path):
    import time

    from citegraph.formats import bibtex_entries

    path = tmp_path / "big.bib"
    path.write_text(
        "@article{a,\n  title = {T},\n  abstract = {" + r"M{\"u}ller " * 95_326 + "}\n}\n", encoding="utf-8"
    )  # 1 MiB of LaTeX: half a minute to decode whole
    started = time.perf_counter()
    [entry] = bibtex_entries.parse(path)
    assert str(entry.problem) == (
        f"{path}:3: field 'abstract' 1,048,586 characters; citegraph reads at most 100,000 of a field"
    )
    assert time.perf_counter() - started < 5
    lots = '{\\"u}ber ' * 11_000  # under the limit, LaTeX throughout: decoded by the word, cached
    started = time.perf_counter()
    assert (
        bibtex_entries.parse_text("@misc{b, abstract = {" + lots + "}}", path)[0].fields["abstract"] == "über " * 11_000
    )
    assert time.perf_counter() - started < 5


def string_bomb(levels: int) -> str:
    """@string macros each twice the last: 2^levels characters from a few hundred bytes."""
    lines = ['@string{m0 = "ab"}', *(f"@string{{m{n} = m{n - 1} # m{n - 1}}}" for n in range(1, levels + 1))]
    return "\n".join([*lines, f"@article{{a, title = m{levels}, year = 2001}}", "@misc{b, title = {Fine}}", ""])


def test_a_string_macro_bomb_stops_at_the_field_limit(tmp_path):
    """Doubling @string macros (a sent bibliography reaches POST /cite): 625 bytes once grew to
    546 MB before the field limit refused the entry; a few more lines would exhaust memory."""
    import resource
    import time

    from citegraph.formats import bibtex_entries

    text = string_bomb(40)  # 2^41 characters expanded
    assert len(text) < 1200
    path = tmp_path / "bomb.bib"
    path.write_text(text, encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    bomb, fine = bibtex_entries.parse(path)
    assert time.perf_counter() - started < 2
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50_000  # KiB
    assert str(bomb.problem) == (
        f"{path}:42: field 'title' its @string macros expand past 100,000 characters, the most citegraph reads of a field"
    )
    assert fine.problem is None and fine.fields["title"] == "Fine"
    small = bibtex_entries.parse_text(string_bomb(3), path)[0]  # under the limit: expanded as BibTeX does
    assert small.problem is None and small.fields["title"] == "ab" * 8


def test_each_file_is_parsed_once_the_survey_read_is_kept(tmp_path):
    import os

    path = tmp_path / "one.bib"
    path.write_text("@article{k, title = {Kept}, doi = {10.1000/kept}}\n", encoding="utf-8")
    fmt, _ = formats.get("bibtex").surveyed([path])
    stat = path.stat()
    path.write_text("@article{k, title = {Gone}, doi = {10.1000/gone}}\n", encoding="utf-8")  # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert (
        [i.record.title for i in fmt.read(path)] * 2
        == [i.record.title for _ in "ab" for i in fmt.read(path)]
        == ["Kept", "Kept"]
    )  # not parsed again: the survey's items
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    assert [i.record.title for i in fmt.read(path)] == ["Gone"]  # changed since the survey: parsed again


def test_the_survey_in_worker_processes_finds_what_it_finds_alone(monkeypatch):
    from citegraph.ingest.sources import bibtex

    alone_fmt, alone = _surveyed()
    monkeypatch.setattr(bibtex, "PARALLEL_FROM_BYTES", 0)  # two small files: parsed by two workers
    workers_fmt, workers = _surveyed()
    assert (workers.spellings, workers.duplicates, workers.entries, workers.without_doi) == (
        alone.spellings,
        alone.duplicates,
        alone.entries,
        alone.without_doi,
    )
    assert _papers(workers_fmt) == _papers(alone_fmt)
