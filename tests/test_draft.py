"""A draft read as citation slots (issue 26's input side): a LaTeX paper with an \\input'ed
section and its .bib of ACL papers, a Pandoc Markdown draft with YAML front matter, plain
text, a typed context; exact positions, sentences, neighbours and keys; every bad input a
one-line error."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from citegraph.errors import CitegraphError, InputError
from citegraph.library.draft import (
    MAX_CONTEXT_CHARS,
    MAX_DRAFT_BYTES,
    Slot,
    context_slot,
    read_draft,
)

DRAFTS = Path(__file__).resolve().parent / "fixtures" / "drafts"
PAPER = DRAFTS / "paper"
MAIN, METHOD, BIB = PAPER / "main.tex", PAPER / "sections" / "method.tex", PAPER / "refs.bib"


def rows(slots: tuple[Slot, ...]) -> list[tuple]:
    return [
        (
            s.id,
            s.where,
            s.command,
            s.sentence,
            s.before,
            s.after,
            s.unresolved,
            s.cited_in_sentence,
            s.cited_in_paragraph,
        )
        for s in slots
    ]


def test_a_latex_paper_gives_its_slots_title_abstract_and_references():
    draft = read_draft(MAIN)
    intro_keys = ("koehn2003phrase", "papineni2002bleu")
    moses = "The Moses toolkit [CIT] implements it."
    mert = "Its weights are tuned with minimum error rate training [CIT] on a development set."
    bleu = "Translations are scored with BLEU [CIT], which counts n-gram matches."
    assert rows(draft.slots) == [
        (
            1,
            f"{MAIN}:20:19",
            "\\citep",
            moses,
            ("Phrase-based translation is the standard baseline [REF].",),
            (mert.replace("[CIT]", "[REF]"),),
            (),
            (),
            intro_keys,
        ),
        (
            2,
            f"{MAIN}:21:56",
            "\\citet",
            mert,
            (moses.replace("[CIT]", "[REF]"),),
            (bleu.replace("[CIT]", "[REF]"),),
            (),
            (),
            intro_keys,
        ),
        (
            3,
            f"{MAIN}:22:35",
            "\\cite",
            bleu,
            (mert.replace("[CIT]", "[REF]"),),
            (),
            ("unknownkey",),
            ("papineni2002bleu",),
            intro_keys,
        ),
        (
            4,
            f"{MAIN}:24:36",
            "[CIT]",
            "We follow prior work on small data [CIT] and report BLEU [REF].",
            (),
            (),
            (),
            ("papineni2002bleu",),
            ("papineni2002bleu",),
        ),
        (
            5,
            f"{METHOD}:4:33",
            "\\autocite",
            "Unlike them it needs no lattice [CIT].",
            ("It differs from earlier tuners [REF].",),
            (),
            (),
            (),
            ("och2003mert", "koehn2007moses"),
        ),
        (6, f"{METHOD}:9:41", "\\cite", "Learning curves of the tuner [CIT].", (), (), (), (), ()),  # a caption
        (
            7,
            f"{METHOD}:12:66",
            "\\cite",
            "As in [REF], see [CIT].",
            (),
            (),
            (),
            ("koehn2007moses",),  # a footnote
            ("koehn2007moses",),
        ),
    ]
    assert draft.title == "Tuning Phrase-Based Translation on Small Data"  # \thanks left out
    assert draft.abstract == (
        "We tune a phrase-based system on small data. Our tuner beats MERT on three language pairs."
    )
    assert draft.bibliographies == (BIB,)
    assert {k: (e.title, e.year, e.doi) for k, e in draft.references.items()} == {
        "koehn2007moses": ("Moses: Open Source Toolkit for Statistical Machine Translation", 2007, ""),
        "och2003mert": ("Minimum Error Rate Training in Statistical Machine Translation", 2003, ""),
        "papineni2002bleu": (
            "BLEU: a Method for Automatic Evaluation of Machine Translation",
            2002,
            "10.3115/1073083.1073135",
        ),
        "koehn2003phrase": ("Statistical Phrase-Based Translation", 2003, ""),
    }
    assert draft.references["och2003mert"].where == f"{BIB}:9 (och2003mert)"
    assert draft.warnings == (f"{MAIN}:22:35: key 'unknownkey' is not in the bibliography",)
    assert (draft.source, draft.format) == (str(MAIN), "latex")


def test_comments_display_math_and_float_bodies_hold_no_slot():
    text = " ".join(s.text for s in read_draft(MAIN).slots)
    # the fake cites of comments (line 18, method.tex:3) and \cite{math2000} in an equation
    assert all(s.line not in (18, 26) for s in read_draft(MAIN).slots if s.file == MAIN)
    assert "ignore" not in text and "argmax" not in text and "curve.pdf" not in text and "graphics" not in text


@pytest.mark.parametrize(
    "window,before,after",
    [
        (0, (), ()),
        (
            2,
            ("Phrase-based translation is the standard baseline [REF].", "The Moses toolkit [REF] implements it."),
            ("Translations are scored with BLEU [REF], which counts n-gram matches.",),
        ),
    ],
)
def test_the_window_of_neighbours_is_the_callers(window, before, after):
    slot = read_draft(MAIN, window=window).slots[1]
    assert (slot.before, slot.after) == (before, after)
    assert slot.text == " ".join((*before, slot.sentence, *after))


def test_without_a_bibliography_only_empty_and_unknown_citations_are_slots(tmp_path):
    shutil.copytree(PAPER, tmp_path / "paper")
    main = tmp_path / "paper" / "main.tex"
    main.write_text(main.read_text(encoding="utf-8").replace("\\bibliography{refs}", ""), encoding="utf-8")
    draft = read_draft(main)
    assert [s.command for s in draft.slots] == ["\\citep", "\\citet", "[CIT]", "\\autocite", "\\cite", "\\cite"]
    assert draft.references == {} and all(s.cited_in_paragraph == () for s in draft.slots)
    assert draft.warnings == (
        (
            f"{main}: no bibliography: cited keys are not checked, only empty and '?' citations "
            "are slots (give one with --bib)"
        ),
    )
    assert [s.line for s in read_draft(main, bib=BIB).slots] == [20, 21, 22, 24, 4, 9, 12]  # bib= given instead


def test_a_missing_input_file_and_an_input_loop_are_warnings(tmp_path):
    main = tmp_path / "main.tex"
    main.write_text("A claim \\cite{}.\n\\input{gone}\n\\input{main}\n", encoding="utf-8")
    draft = read_draft(main)
    assert [s.where for s in draft.slots] == [f"{main}:1:9"]
    assert draft.warnings == (
        f"{main}:2: \\input{{gone}}: no such file {tmp_path / 'gone.tex'}; not read",
        f"{main}:3: \\input{{main}}: includes a file being read; not read",
    )


def test_a_pandoc_draft_gives_front_matter_and_pandoc_citations():
    draft = read_draft(DRAFTS / "pandoc.md")
    md = DRAFTS / "pandoc.md"
    as_show = "As [REF] show, the toolkit is open source; write to me@example.org."
    keys = ("koehn2003phrase", "koehn2007moses", "papineni2002bleu")
    assert rows(draft.slots) == [
        (
            1,
            f"{md}:11:61",
            "[@?]",
            "Phrase-based systems [REF] are tuned with MERT [CIT].",
            (),
            (as_show,),
            (),
            ("koehn2003phrase",),
            keys,
        ),
        (
            2,
            f"{md}:13:20",
            "[see @papineni2002bleu, p. 311; @lin2004rouge]",
            "Scores follow BLEU [CIT].",
            (as_show,),
            (),
            ("lin2004rouge",),
            ("papineni2002bleu",),
            keys,
        ),
        (
            3,
            f"{md}:19:43",
            "[CIT]",
            "The literal marker [CIT] is a slot, [@?] in code is not.",
            ("An unmarked paragraph.",),
            ("Its page is https://example.org/@koehn2007moses and cites nothing.",),
            (),
            (),
            (),
        ),
    ]
    assert draft.title == "Citation Recommendation for Drafts"
    assert draft.abstract == (
        "We recommend papers for the sentence being written. The recommender reads the draft's own references."
    )
    assert draft.bibliographies == (BIB,) and len(draft.references) == 4
    assert draft.warnings == (f"{md}:13:20: key 'lin2004rouge' is not in the bibliography",)


def test_plain_text_and_a_format_override():
    notes = DRAFTS / "notes.txt"
    assert rows(read_draft(notes).slots) == [
        (
            1,
            f"{notes}:3:40",
            "[CIT]",
            "Graph methods use the citation network [CIT].",
            (),
            ("They also use co-citation.",),
            (),
            (),
            (),
        ),
        (
            2,
            f"{notes}:4:32",
            "[CIT]",
            "Text methods embed the context [CIT] and the candidates.",
            ("They also use co-citation.",),
            (),
            (),
            (),
            (),
        ),
    ]
    as_text = read_draft(MAIN, format="text")  # only the literal marker counts, the LaTeX stays as written
    assert [(s.where, s.sentence) for s in as_text.slots] == [
        (
            f"{MAIN}:24:36",
            (
                "We follow prior work on small data [CIT] and report BLEU~\\citep{papineni2002bleu}. "
                "\\begin{equation} \\hat{w} = \\arg\\max_w \\mathrm{BLEU}(w) \\cite{math2000} \\end{equation}"
            ),
        )
    ]


def test_a_context_is_one_slot_with_or_without_a_marker():
    [slot] = context_slot("Earlier work. Graph methods [CIT] rank papers. They scale.").slots
    assert (slot.where, slot.sentence, slot.before, slot.after) == (
        "context:1:29",
        "Graph methods [CIT] rank papers.",
        ("Earlier work.",),
        ("They scale.",),
    )
    draft = context_slot("Graph methods  rank\npapers.")
    assert draft.format == "context"
    assert rows(draft.slots) == [(1, "context", "", "Graph methods rank papers.", (), (), (), (), ())]


BAD = [  # (case, files, draft, options, error type, message with {tmp} for the folder)
    (
        "no-slot",
        {"d.tex": "No citation here \\citep{a}.\n", "a.bib": "@misc{a, title={A}}\n"},
        "d.tex",
        {"bib": "a.bib"},
        CitegraphError,
        (
            "{tmp}/d.tex: no citation slot: mark one with [CIT], an empty or '?' citation (\\cite{{}}, \\cite{{?}}, [@?]) "
            "or a key the bibliography lacks"
        ),
    ),
    (
        "missing-bib",
        {"d.tex": "X \\cite{}.\n\\bibliography{refs}\n"},
        "d.tex",
        {},
        CitegraphError,
        "{tmp}/d.tex:2: bibliography {tmp}/refs.bib: no such file (give one with --bib)",
    ),
    (
        "missing-bib-option",
        {"d.md": "X [@?].\n"},
        "d.md",
        {"bib": "none.bib"},
        CitegraphError,
        "none.bib: no such bibliography file",
    ),
    (
        "bad-bib",
        {"d.tex": "X \\cite{}.\n", "b.bib": "@article{a, title={A}, year={2001}}\n\n@article{b, title = {x}\n"},
        "d.tex",
        {"bib": "b.bib"},
        InputError,
        "b.bib:3: not a BibTeX entry: Unexpectedly reached end of file.",
    ),
    (
        "bib-not-utf8",
        {"d.tex": "X \\cite{}.\n", "b.bib": b"@misc{a,\n title={Caf\xe9}}\n"},
        "d.tex",
        {"bib": "b.bib"},
        InputError,
        "b.bib:2: not UTF-8 text (byte 0xe9 at column 12)",
    ),
    (
        "bib-without-keys",
        {"d.tex": "X \\cite{}.\n", "b.ris": "TY  - JOUR\nER  - \n"},
        "d.tex",
        {"bib": "b.ris"},
        CitegraphError,
        "b.ris: a bibliography's keys come from a BibTeX (.bib) or CSL-JSON (.json) file",
    ),
    (
        "draft-not-utf8",
        {"d.tex": b"Fine line.\nCaf\xe9 \\cite{}.\n"},
        "d.tex",
        {},
        InputError,
        "{tmp}/d.tex:2: not UTF-8 text (byte 0xe9 at column 4)",
    ),
    ("no-draft", {}, "gone.md", {}, CitegraphError, "{tmp}/gone.md: no such file"),
    (
        "unknown-format",
        {"d.docx": "x"},
        "d.docx",
        {},
        CitegraphError,
        "{tmp}/d.docx: unknown draft format '.docx': name one of latex, markdown, text",
    ),
    (
        "bad-front-matter",
        {"d.md": "---\ntitle: [unclosed\n---\nText [@?].\n"},
        "d.md",
        {},
        InputError,
        "{tmp}/d.md:3: field 'front matter' not YAML: expected ',' or ']', but got '<stream end>'",
    ),
    (
        "deep-braces",
        {"d.tex": "{" * 5000 + "\\cite{}" + "}" * 5000},
        "d.tex",
        {},
        CitegraphError,
        "{tmp}/d.tex: braces or environments nested too deeply to read",
    ),
    (
        "too-large",
        {"d.txt": "[CIT] " + "x" * MAX_DRAFT_BYTES},
        "d.txt",
        {},
        CitegraphError,
        "{tmp}/d.txt: 5.0 MB, over the 5 MB limit of a draft's file",
    ),
]


@pytest.mark.parametrize("case,files,name,options,error,message", BAD, ids=[c[0] for c in BAD])
def test_bad_input_is_one_line_naming_file_and_line(tmp_path, monkeypatch, case, files, name, options, error, message):
    monkeypatch.chdir(tmp_path)
    for file, content in files.items():
        (tmp_path / file).write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(error) as raised:
        read_draft(tmp_path / name, **options)
    assert str(raised.value) == message.format(tmp=tmp_path)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    "text,message",
    [
        (
            "x" * (MAX_CONTEXT_CHARS + 1),
            (f"field 'context': {MAX_CONTEXT_CHARS + 1} characters, over the limit of {MAX_CONTEXT_CHARS}"),
        ),
        (" \n", "field 'context': empty"),
    ],
)
def test_a_bad_context_names_the_field(text, message):
    with pytest.raises(CitegraphError, match=f"^{message}$"):
        context_slot(text)


def test_a_forty_slot_latex_draft_reads_in_well_under_a_second(tmp_path):
    paragraph = (
        "Phrase-based systems \\citep{koehn2003phrase} are tuned with MERT~\\citep[p.~3]{}. "
        "Scores use BLEU \\cite{papineni2002bleu} on $n$-grams, as \\textit{Moses} does \\citet{?}.\n"
        "% an old note \\cite{}\n\\begin{equation} x = \\frac{1}{2} \\end{equation}\n\n"
    )
    body = "".join(f"\\section{{Part {i}}}\n{paragraph}" for i in range(20))
    draft_file = tmp_path / "long.tex"
    draft_file.write_text(
        f"\\title{{Long}}\n\\begin{{document}}\n{body}\\bibliography{{{BIB.with_suffix('')}}}\n\\end{{document}}\n",
        encoding="utf-8",
    )
    started = time.perf_counter()
    draft = read_draft(draft_file)
    elapsed = time.perf_counter() - started
    assert len(draft.slots) == 40 and draft.slots[-1].id == 40
    assert draft.slots[0].cited_in_paragraph == ("koehn2003phrase", "papineni2002bleu")
    assert elapsed < 2, f"{elapsed:.2f} s"


def test_markdown_positions_count_the_prefix_of_quotes_and_list_items(tmp_path):
    md = tmp_path / "d.md"
    md.write_text(
        "> Quoted claims [@?] here.\n\n    indented code [@?]\n\n- An item\n  continued [CIT].\n", encoding="utf-8"
    )
    assert [(s.where, s.sentence) for s in read_draft(md).slots] == [
        (f"{md}:1:17", "Quoted claims [CIT] here."),
        (f"{md}:6:13", "An item continued [CIT]."),
    ]


def test_a_biblatex_draft_with_an_included_chapter(tmp_path):
    shutil.copy(BIB, tmp_path / "refs.bib")
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "one.tex").write_text("\\chapter{One}\nTuning is old \\textcite{}.\n", encoding="utf-8")
    main = tmp_path / "thesis.tex"
    main.write_text(
        "\\documentclass{book}\n\\usepackage{biblatex}\n\\addbibresource{refs.bib}\n\\begin{document}\n"
        "MERT \\parencite[see][12]{och2003mert, missing} is \\emph{the tuner \\Parencite*{?}}.\n"
        "\\include{chapters/one}\n\\printbibliography\n\\end{document}\n",
        encoding="utf-8",
    )
    draft = read_draft(main)
    assert draft.bibliographies == (tmp_path / "refs.bib",)
    assert rows(draft.slots) == [
        (
            1,
            f"{main}:5:6",
            "\\parencite",
            "MERT [CIT] is the tuner [REF].",
            (),
            (),
            ("missing",),
            ("och2003mert",),
            ("och2003mert",),
        ),
        (
            2,
            f"{main}:5:67",
            "\\Parencite",
            "MERT [REF] is the tuner [CIT].",
            (),
            (),
            (),
            ("och2003mert",),
            ("och2003mert",),
        ),
        (3, f"{tmp_path / 'chapters' / 'one.tex'}:2:15", "\\textcite", "Tuning is old [CIT].", (), (), (), (), ()),
    ]


TWO_IN_ONE = r"""\begin{document}
We report BLEU \cite{} and test significance with paired bootstrap resampling \cite{}.
Statistical part-of-speech taggers based on second-order Markov models are fast and accurate \cite{}.
Our parser is trained with the averaged perceptron and large-margin online learning for dependency parsing \citep{}.
Lexicalised models \cite{} \cite{} and \cite{} outperform unlexicalised ones.
\end{document}
"""


def test_each_slot_has_the_clause_that_belongs_to_it(tmp_path):
    """Two slots of one sentence get each its own words; a slot of a sentence its sentence's;
    citations side by side reach back to the words before them; a slot before any word takes
    the words after it."""
    (tmp_path / "d.tex").write_text(TWO_IN_ONE, encoding="utf-8")
    slots = read_draft(tmp_path / "d.tex").slots
    assert [s.clause for s in slots] == [
        "We report BLEU",
        "and test significance with paired bootstrap resampling",
        "Statistical part-of-speech taggers based on second-order Markov models are fast and accurate",
        "Our parser is trained with the averaged perceptron and large-margin online learning for dependency parsing",
        "Lexicalised models",
        "Lexicalised models",
        "and",
    ]
    # both slots of the first sentence share their sentence, not their clause
    assert slots[0].sentence == "We report BLEU [CIT] and test significance with paired bootstrap resampling [REF]."
    assert slots[1].sentence == "We report BLEU [REF] and test significance with paired bootstrap resampling [CIT]."
    opening = context_slot("[CIT] showed that tagging is fast [REF].").slots[0]
    assert opening.clause == "showed that tagging is fast"
    unmarked = context_slot("Tagging  with hidden Markov models.").slots[0]
    assert unmarked.clause == "Tagging with hidden Markov models."


def test_a_slots_query_weighs_its_clause_sentence_and_neighbours():
    """The query repeats each part its weight's times (a weighted multi-part query in one
    BM25 search), without the citation markers; weight 0 leaves a part out."""
    from citegraph.recommend.cite import SlotQuery, model_text, query_text

    first, second = context_slot("Tagging is fast [CIT] and parsing slow [CIT]. Both use Markov models.").slots
    assert query_text(first, SlotQuery(2, 1, 1)) == (
        "Tagging is fast Tagging is fast Tagging is fast and parsing slow . Both use Markov models."
    )
    assert query_text(second, SlotQuery(1, 0, 2)) == (
        "and parsing slow Both use Markov models. Both use Markov models."
    )
    assert query_text(first, SlotQuery(0, 1, 0)) == query_text(second, SlotQuery(0, 1, 0))
    assert query_text(first) != query_text(second)
    # the model encodes each part it weighs once, its clause first
    assert model_text(first) == "Tagging is fast Tagging is fast and parsing slow . Both use Markov models."
    assert model_text(second, SlotQuery(3, 0, 1)) == "and parsing slow Both use Markov models."
