"""The reproduction matrix: the shipped conditions load and name their data, and a real
condition (``citegraph synth``, no graph) runs to OK, FAIL and SKIPPED through the CLI."""

from __future__ import annotations

import json
import os

import pytest

from citegraph import repro
from citegraph.errors import CitegraphError

from conftest import citegraph

SYNTH = """\
conditions:
  - name: tiny-synth
    description: A tiny synthetic corpus; the generator prints its size.
    fast: true
    commands:
      - [synth, --papers, "60", --seed, "1", --out, "{work}/corpus.jsonl"]
    scores:
      - {label: papers, pattern: 'wrote ([\\d,]+) papers', expected: 60, tolerance: 0}
      - {label: citations, pattern: 'and ([\\d,]+) citations', expected: CITATIONS, tolerance: 0}
  - name: needs-data
    description: Data that is not there.
    needs: ["{shared}/no/such/folder", "{package}/data/acl200"]
    commands:
      - [synth, --papers, "10", --out, "{work}/c.jsonl"]
    scores:
      - {label: papers, pattern: 'wrote (\\d+) papers', expected: 10, tolerance: 0}
"""


@pytest.fixture
def conditions(tmp_path):
    """The synth condition with the citation count the generator really prints."""
    printed = citegraph("synth", "--papers", "60", "--seed", "1", "--out", str(tmp_path / "probe.jsonl")).stdout
    citations = printed.split(" and ")[1].split()[0]
    folder = tmp_path / "conditions"
    folder.mkdir()
    (folder / "synth.yaml").write_text(SYNTH.replace("CITATIONS", citations.replace(",", "")), encoding="utf-8")
    return folder


def test_shipped_conditions_load_and_name_their_data():
    conditions = repro.load()
    assert {"demo-acl200", "clscisumm-cv", "golden-large-scale", "synthetic-mdcr", "recommend-held-out"} <= set(
        conditions
    )
    assert all(c.scores and c.commands and c.description for c in conditions.values())
    assert any(c.fast for c in conditions.values()) and not all(c.fast for c in conditions.values())
    assert conditions["clscisumm-cv"].missing(repro.PACKAGE / "nowhere") == [
        str(repro.PACKAGE / "nowhere" / "samples" / "clscisumm" / "training")
    ]


def test_run_ok_fail_skip_and_report(conditions, tmp_path):
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEGRAPH_") or k == "CITEGRAPH_SHARED"}
    env["CITEGRAPH_DATA_DIR"] = str(data)
    done = citegraph("repro", "run", "--conditions", str(conditions), "--work", str(tmp_path / "work"), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "papers: 60 (expected 60 ± 0) OK" in done.stdout
    assert "SKIPPED: needs " + str(repro.SHARED / "no" / "such" / "folder") in done.stdout
    assert str(repro.PACKAGE / "data" / "acl200") not in done.stdout.split("SKIPPED")[1]  # bundled data is there
    assert done.stdout.rstrip().endswith("1 OK, 0 FAIL, 1 SKIPPED")
    assert (tmp_path / "work" / "tiny-synth" / "corpus.jsonl").is_file()
    measured = json.loads((data / "repro" / "measured.json").read_text())
    assert measured["tiny-synth"]["scores"]["papers"] == 60.0 and "needs-data" not in measured

    report = citegraph("repro", "report", "--conditions", str(conditions), env=env).stdout
    assert "| tiny-synth | yes | present | papers | 60 ± 0 | 60 (OK," in report
    assert "| needs-data |  | missing: " in report

    wrong = conditions / "synth.yaml"
    wrong.write_text(wrong.read_text().replace("expected: 60", "expected: 61"), encoding="utf-8")
    done = citegraph("repro", "run", "tiny-synth", "--conditions", str(conditions), env=env)
    assert done.returncode == 1
    assert "papers: 60 (expected 61 ± 0) FAIL" in done.stdout and "0 OK, 1 FAIL, 0 SKIPPED" in done.stdout


def test_a_failing_command_is_a_fail_with_its_error(tmp_path):
    (tmp_path / "bad.yaml").write_text(
        "conditions:\n  - name: bad\n    description: x\n    commands: [[synth, --papers, '0', --out, '{work}/c']]\n"
        "    scores: [{pattern: '(\\d+)', expected: 1, tolerance: 0}]\n",
        encoding="utf-8",
    )
    outcome = repro.run(repro.load(tmp_path)["bad"], tmp_path / "work", log=lambda _: None)
    assert outcome.status == "FAIL" and "exited with 2" in outcome.note and "--papers" in outcome.note
    assert [m.value for m in outcome.measured] == [None]


@pytest.mark.parametrize(
    "entry, message",
    [
        (
            "{name: a, description: x, commands: [[synth]], scores: [{expected: 1, tolerance: 0}]}",
            "needs one of: table, row and column; key; pattern",
        ),
        (
            "{name: a, description: x, commands: [[synth]], scores: [{key: k, expected: one, tolerance: 0}]}",
            "'expected' and 'tolerance' must be numbers",
        ),
        ("{name: a, description: x, commands: synth, scores: []}", "field 'commands' must be a list"),
        ("{description: x, commands: [[synth]], scores: []}", "field 'name' must be a str"),
        ("{name: a, description: x, commands: [[synth]], scores: [], fastt: true}", "unknown field(s) fastt"),
        (
            "{name: a, description: x, commands: [[synth]], scores: [{key: k, expected: 1, tolerance: 0, tol: 1}]}",
            "unknown field(s) tol",
        ),
    ],
)
def test_bad_conditions_name_file_and_field(tmp_path, entry, message):
    (tmp_path / "c.yaml").write_text(f"conditions:\n  - {entry}\n", encoding="utf-8")
    with pytest.raises(CitegraphError, match="c.yaml: conditions\\[0\\]") as error:
        repro.load(tmp_path)
    assert message in str(error.value)


def test_unknown_names_list_the_known_ones():
    with pytest.raises(CitegraphError, match="unknown condition\\(s\\) nope; known: .*golden-large-scale"):
        repro.select(repro.load(), ["nope"], fast=False)
    assert all(c.fast for c in repro.select(repro.load(), [], fast=True))
