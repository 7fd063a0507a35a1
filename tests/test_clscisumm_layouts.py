"""CL-SciSumm as the shared task really shipped it: hand-written fixtures in every layout
(2016 ``_TRAIN`` folders with ``.ann.txt`` beside ``.annv3.txt``, 2017 ``annv3`` text, the
2018 test release with empty-gold CSVs and the gold one CSV per annotator in its own
folder), carrying every defect found in the real files; the repairs counted, strict
reading refusing each, and the train/test protocol scored by hand, the annotators pooled
as the official script pools its gold files. The 2018 release itself, laid out as shipped
(Training-Set-2018/, Test-Set-2018/, Test-Set-2018-Gold/Task1/), with the offset cells that
stopped the reader, runs through `evaluate contextualise` end to end."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.contextualise.annotation import Repairs
from citegraph.contextualise.clscisumm import (
    read_topic,
    read_topics,
    report_unread_gold,
)
from citegraph.contextualise.evaluation import evaluate_clscisumm
from citegraph.errors import CitegraphError, InputError

pytest.importorskip("rouge_score")

FIXTURES = Path(__file__).parent / "fixtures" / "clscisumm"
TRAIN, TEST, GOLD = FIXTURES / "train", FIXTURES / "test", FIXTURES / "gold"
AAKANSHA = GOLD / "Task1" / "C00-3003_aakansha.csv"

REPAIRS = {
    "citance number": 1,
    "citation text": 1,
    "duplicate citance": 1,
    "duplicate gold": 1,
    "encoding": 1,
    "gold without topic": 1,
    "no gold": 6,
    "older version": 1,
    "reference article": 2,
    "row length": 1,
    "unbalanced quote": 2,
    "unknown sentence": 2,
}


def _read_all(repairs: Repairs):
    train, test = read_topics(TRAIN, GOLD, repairs), read_topics(TEST, GOLD, repairs)
    report_unread_gold(GOLD, {t.id for t in [*train, *test]}, repairs)
    return train, test


def test_every_layout_read_and_every_defect_counted_where_it_is():
    repairs = Repairs()
    train, test = _read_all(repairs)
    assert [t.id for t in train] == ["A00-1001", "B00-2002"]  # the 2016 folder A00-1001_TRAIN: id from the XML
    assert [t.id for t in test] == ["C00-3003"]  # D00-4004's gold was never released: left out
    gold = {c.id: c.gold for t in [*train, *test] for c in t.citances}
    assert gold == {
        "A00-1001:1": ("1",),
        "A00-1001:2": ("4",),  # from the annv3 file; the older .ann.txt would not even read
        "B00-2002:1": ("2",),
        "B00-2002:2": ("1",),
        "B00-2002:4": ("4",),
        "B00-2002:5": ("3",),
        "C00-3003:1@aakansha": ("4",),
        "C00-3003:2@aakansha": ("4",),
        "C00-3003:5@aakansha": ("2", "3"),
        "C00-3003:6@aakansha": ("5",),
        "C00-3003:7@aakansha": ("1",),
        "C00-3003:1@swastika": ("4",),
        "C00-3003:2@swastika": ("3",),
        "C00-3003:5@swastika": ("2",),
        "C00-3003:7@swastika": ("1",),
    }
    texts = {c.id: c.text for t in test for c in t.citances}
    assert texts["C00-3003:6@aakansha"] == "We thank the reviewers (Goldberg, 2008)"  # from Citation Text Clean
    assert texts["C00-3003:1@swastika"] == "Goldberg (2008) used character based parseval for “evaluation”"
    assert repairs.counts() == REPAIRS
    found = {(r.kind, f"{r.where.path.relative_to(FIXTURES)}:{r.where.line}") for r in repairs.made}
    assert {
        ("older version", "train/A00-1001_TRAIN/annotation/A00-1001.ann.txt:1"),
        ("unbalanced quote", "train/B00-2002/annotation/B00-2002.annv3.txt:2"),  # 1'
        ("no gold", "train/B00-2002/annotation/B00-2002.annv3.txt:3"),  # NA
        ("duplicate citance", "train/B00-2002/annotation/B00-2002.annv3.txt:4"),
        ("unknown sentence", "train/B00-2002/annotation/B00-2002.annv3.txt:5"),
        ("reference article", "train/B00-2002/annotation/B00-2002.annv3.txt:6"),  # the citing paper's id
        ("duplicate gold", "gold/C00-3003/annotation/C00-3003_aakansha.csv:1"),  # Task1/ is read
        ("unbalanced quote", "gold/Task1/C00-3003_aakansha.csv:3"),  # 4'
        ("no gold", "gold/Task1/C00-3003_aakansha.csv:4"),  # NA
        ("no gold", "gold/Task1/C00-3003_aakansha.csv:5"),  # ???
        ("reference article", "gold/Task1/C00-3003_aakansha.csv:6"),  # (a record of two lines)
        ("citation text", "gold/Task1/C00-3003_aakansha.csv:8"),
        ("citance number", "gold/Task1/C00-3003_aakansha.csv:9"),
        ("row length", "gold/Task1/C00-3003_aakansha.csv:10"),
        ("encoding", "gold/Task1/C00-3003_swastika.csv:2"),
        ("unknown sentence", "gold/Task1/C00-3003_swastika.csv:5"),
        ("no gold", "test/D00-4004/annotation/D00-4004.csv:2"),  # empty gold cells of the test release
        ("no gold", "test/D00-4004:0"),
        ("gold without topic", "gold/Task1/E00-5005_sweta.csv:1"),
    } <= found


def test_a_test_release_without_its_gold_asks_for_it():
    with pytest.raises(CitegraphError, match="give its gold folder with --gold"):
        read_topics(TEST)


def _one_row_topic(root: Path, row: str) -> Path:
    """C00-3003 with a single gold CSV: the header and one row of the fixture."""
    folder = root / "C00-3003"
    shutil.copytree(TEST / "C00-3003" / "Reference_XML", folder / "Reference_XML")
    header = AAKANSHA.read_text(encoding="utf-8").splitlines()[0]
    (folder / "annotation").mkdir()
    (folder / "annotation" / "C00-3003_x.csv").write_text(f"{header}\n{row}\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "number, field, says",
    [
        ("2", "Reference Offset", '"4\'" has a quote on one side only (a defect: unbalanced quote'),
        ("3", "Reference Offset", "'NA' names no sentence (a defect: no gold"),
        ("4", "Reference Offset", "'???' names no sentence (a defect: no gold"),
        (
            "5",
            "Reference Article",
            ("'P11-1005' is not the topic's paper 'C00-3003' (it is the citing paper) (a defect: reference article"),
        ),
        ("6", "Citation Text", "is empty (a defect: citation text"),
        ("", "Citance Number", "'' is not a number (a defect: citance number"),
        ("8", None, "8 cells under a header of 11 (a defect: row length"),
    ],
)
def test_strict_reading_refuses_each_defect_with_file_line_and_field(tmp_path, number, field, says):
    rows = AAKANSHA.read_text(encoding="utf-8").split("\n")
    row = next(r for r in rows if r.startswith((f"{number},C00-3003", f"{number},P11")))
    if row.endswith('"<S sid=""2"" ssid=""2"">Morphological analyzers propose lattices for each token.</S>'):
        row += "\n" + rows[rows.index(row) + 1]  # the record of two lines
    folder = _one_row_topic(tmp_path, row)
    with pytest.raises(InputError) as error:
        read_topic(folder, repairs=Repairs(strict=True))
    where = "C00-3003_x.csv:2:" + (f" field '{field}'" if field else "")
    assert where in str(error.value) and says in str(error.value), str(error.value)
    repairs = Repairs()
    read_topic(folder, repairs=repairs)  # the same row, read leniently: one repair
    assert len(repairs.made) == 1


def test_strict_reading_refuses_folder_level_defects_too():
    with pytest.raises(
        InputError,
        match=r"A00-1001.ann.txt:1: an older version of .*A00-1001.annv3.txt "
        r"\(a defect: older version",
    ):
        read_topics(TRAIN, repairs=Repairs(strict=True))


def test_train_test_protocol_scored_by_hand_annotators_pooled(tmp_path):
    """Tuned on the training topics (every citance perfect at n = 1: each names only its gold
    sentence's words), the test citances are ranked once. Per gold set (topic, annotator):
    aakansha 1 ✓, 2 ✗ (picks 3, gold 4), 5 half (picks 2 of gold 2, 3), 6 ✓, 7 ✓ → TP 4, FP 1,
    FN 2; swastika 1 ✓, 2 ✓, 5 ✓, 7 ✓ → TP 4, FP 0, FN 0."""
    tables, _ = evaluate_clscisumm(
        TRAIN, tmp_path / "out", ["bm25", "lmd"], ontologies=[], acronyms=False, test_dir=TEST, gold=GOLD
    )

    def f1(p: float, r: float) -> float:
        return 2 * p * r / (p + r)

    expected = {
        "P": 8 / 9,
        "R": (8 - 0.5) / 9,
        "F1": (7 + 2 / 3) / 9,  # 9 cases: 8 with one right sentence
        "F1 micro": f1(8 / 9, 8 / 10),
        "F1 macro": f1((4 / 5 + 1) / 2, (4 / 6 + 1) / 2),
    }
    for model in ("BM25", "LMD"):
        for column, value in expected.items():
            assert tables[1].rows[model][column][0] == pytest.approx(value), (model, column)
    assert "test (1 topics, 9 citances; tuned on 2 training topics, 6 citances)" in tables[0].title
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [c["n"] for c in results["config"]["chosen"]["LMD"]] == [1]
    assert results["config"]["chosen"]["LMD"][0]["train c-F"] == 1.0
    c_f = results["per_query"]["LMD"]["c-F"]
    assert set(c_f) == {
        "C00-3003:1@aakansha",
        "C00-3003:2@aakansha",
        "C00-3003:5@aakansha",
        "C00-3003:6@aakansha",
        "C00-3003:7@aakansha",
        "C00-3003:1@swastika",
        "C00-3003:2@swastika",
        "C00-3003:5@swastika",
        "C00-3003:7@swastika",
    }  # no training citance is scored
    assert c_f["C00-3003:2@aakansha"] == 0.0 and c_f["C00-3003:2@swastika"] == 1.0
    assert results["config"]["repairs"]["counts"] == REPAIRS


def test_evaluate_contextualise_cli_train_test(tmp_path):
    args = [
        "evaluate",
        "contextualise",
        "--train",
        str(TRAIN),
        "--test",
        str(TEST),
        "--gold",
        str(GOLD),
        "--models",
        "lmd",
        "--out",
        str(tmp_path / "out"),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "84.21" in result.output and "86.54" in result.output  # F1 micro, macro (above)
    assert "unbalanced quote" in result.output and "B00-2002.annv3.txt:2" in result.output  # the first one
    strict = CliRunner().invoke(main, [*args, "--strict"])
    assert strict.exit_code != 0 and "A00-1001.ann.txt:1" in strict.output and "Traceback" not in strict.output
    both = CliRunner().invoke(main, [*args, "--data", str(TRAIN)])
    assert both.exit_code != 0 and "either --data DIR" in both.output
    same = CliRunner().invoke(
        main,
        [
            "evaluate",
            "contextualise",
            "--train",
            str(TRAIN),
            "--test",
            str(TRAIN),
            "--models",
            "lmd",
            "--out",
            str(tmp_path / "out2"),
        ],
    )
    assert same.exit_code != 0 and "topics both in" in same.output


def test_repeated_cross_validation_refuses_the_shared_task_options(tmp_path):
    """--seeds repeats CV over topics with their own gold: --gold/--strict would be ignored, so they are refused."""
    args = [
        "evaluate",
        "contextualise",
        "--data",
        str(TRAIN),
        "--models",
        "lmd",
        "--seeds",
        "0,1",
        "--out",
        str(tmp_path / "out"),
    ]
    for extra in (["--gold", str(GOLD)], ["--strict"]):
        result = CliRunner().invoke(main, [*args, *extra])
        assert result.exit_code != 0 and "do not apply" in result.output and "Traceback" not in result.output


# -- the 2018 release as shipped: Training-Set-2018/, Test-Set-2018/, Test-Set-2018-Gold/Task1/ ----------
RELEASE = FIXTURES / "release2018"
TRAIN_2018, TEST_2018, GOLD_2018 = (
    RELEASE / "Training-Set-2018",
    RELEASE / "Test-Set-2018",
    RELEASE / "Test-Set-2018-Gold",
)
ABOUT_2018 = GOLD_2018 / "Task1" / "F01-1001_aakansha.csv"
RELEASE_REPAIRS = {"no citation offset": 2, "no gold": 4, "stray character": 2, "unbalanced quote": 1}


def test_the_2018_release_reads_every_offset_defect_counted_where_it_is():
    """NA, ??? and empty offsets, an id with a stray ';' (and a quote on one side), the two
    header layouts (with and without Citation Text Clean): a Reference Offset that names no
    sentence leaves its citance out, and so does offset 0 (the title) with “NA” for its text,
    as the official script skips it; a Citation (Marker) Offset that names none keeps it."""
    repairs = Repairs()
    topics = read_topics(TEST_2018, GOLD_2018, repairs)
    gold = {c.id: c.gold for t in topics for c in t.citances}
    assert gold == {
        "F01-1001:1": ("1",),
        "F01-1001:2": ("2", "3"),
        "F01-1001:5": ("4",),
        "F01-1001:7": ("5",),
        "F01-1001:8": ("3",),
        "F01-1002:1": ("1",),
        "F01-1002:2": ("2",),
        "F01-1002:3": ("3",),
    }
    assert repairs.counts() == RELEASE_REPAIRS
    found = {(r.kind, r.field, f"{r.where.path.name}:{r.where.line}") for r in repairs.made}
    assert found == {
        ("no gold", "Reference Offset", "F01-1001_aakansha.csv:5"),  # NA
        ("no gold", "Reference Offset", "F01-1001_aakansha.csv:6"),  # ???
        ("stray character", "Reference Offset", "F01-1001_aakansha.csv:7"),  # ;4'
        ("no gold", "Reference Offset", "F01-1001_aakansha.csv:8"),  # empty
        ("no citation offset", "Citation Offset", "F01-1001_aakansha.csv:9"),  # NA
        ("no citation offset", "Citation Marker Offset", "F01-1001_aakansha.csv:10"),  # ?
        ("no gold", "Reference Text", "F01-1001_aakansha.csv:11"),  # offset 0 (the title), its text “NA”
        ("unbalanced quote", "Reference Offset", "F01-1002_swastika.csv:3"),  # 2'
        ("stray character", "Reference Offset", "F01-1002_swastika.csv:4"),  # ;'3'
    }


@pytest.mark.parametrize(
    "gold_file, line, field, says",
    [
        ("F01-1001_aakansha.csv", 5, "Reference Offset", "'NA' names no sentence (a defect: no gold"),
        ("F01-1001_aakansha.csv", 6, "Reference Offset", "'???' names no sentence (a defect: no gold"),
        (
            "F01-1001_aakansha.csv",
            7,
            "Reference Offset",
            "\";4'\" has a stray ';' and a quote on one side only (a defect: stray character",
        ),
        ("F01-1001_aakansha.csv", 8, "Reference Offset", "'' names no sentence (a defect: no gold"),
        ("F01-1001_aakansha.csv", 9, "Citation Offset", "'NA' names no sentence (a defect: no citation offset"),
        ("F01-1001_aakansha.csv", 10, "Citation Marker Offset", "'?' names no sentence (a defect: no citation offset"),
        ("F01-1001_aakansha.csv", 11, "Reference Text", "'“NA”' names no sentence (a defect: no gold"),
        ("F01-1002_swastika.csv", 4, "Reference Offset", "\";'3'\" has a stray ';' (a defect: stray character"),
    ],
)
def test_strict_reading_refuses_each_offset_defect_of_the_release(tmp_path, gold_file, line, field, says):
    """Each defective row alone under its file's header, in the release's layout."""
    topic = gold_file.split("_")[0]
    shutil.copytree(TEST_2018 / topic, tmp_path / "Test-Set-2018" / topic)
    header, *rows = (GOLD_2018 / "Task1" / gold_file).read_text(encoding="utf-8").splitlines()
    (tmp_path / "Test-Set-2018-Gold" / "Task1").mkdir(parents=True)
    (tmp_path / "Test-Set-2018-Gold" / "Task1" / gold_file).write_text(
        f"{header}\n{rows[line - 2]}\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as error:
        read_topic(tmp_path / "Test-Set-2018" / topic, tmp_path / "Test-Set-2018-Gold", Repairs(strict=True))
    assert f"{gold_file}:2: field '{field}'" in str(error.value) and says in str(error.value), str(error.value)


def test_evaluate_contextualise_runs_on_the_2018_release_layout(tmp_path):
    args = [
        "evaluate",
        "contextualise",
        "--train",
        str(TRAIN_2018),
        "--test",
        str(TEST_2018),
        "--gold",
        str(GOLD_2018),
        "--models",
        "bm25,lmd",
        "--out",
        str(tmp_path / "out"),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "test (2 topics, 8 citances; tuned on 1 training topics, 3 citances)" in result.output
    assert "9 defects of the input repaired" in result.output
    assert "2 × stray character, first at " in result.output and "F01-1001_aakansha.csv:7" in result.output
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["config"]["repairs"]["counts"] == RELEASE_REPAIRS
    assert any(
        "F01-1001_aakansha.csv:10: field 'Citation Marker Offset'" in r for r in results["config"]["repairs"]["repairs"]
    )
    assert set(results["per_query"]["BM25"]["c-F"]) == {
        "F01-1001:1",
        "F01-1001:2",
        "F01-1001:5",
        "F01-1001:7",
        "F01-1001:8",
        "F01-1002:1",
        "F01-1002:2",
        "F01-1002:3",
    }
    strict = CliRunner().invoke(main, [*args, "--strict"])
    assert strict.exit_code != 0 and "Traceback" not in strict.output
    assert "F01-1001_aakansha.csv:5: field 'Reference Offset' 'NA' names no sentence" in strict.output
