"""The saved-model condition (`cite-saved-model`) reads figures of three runs: the repro runner
lets a score name its own results file beside the condition's."""

from __future__ import annotations

import json

from citegraph import repro

TWO_RUNS = """\
conditions:
  - name: two-runs
    description: A trained run and its reloaded model, each with its results file.
    commands:
      - [synth, --papers, "10", --out, "{work}/c.jsonl"]
    results: "{work}/reloaded/results.json"
    scale: 100
    tolerance: 0.005
    scores:
      - {table: Local, row: "model", column: MRR, expected: 23.77}
      - {table: Local, row: "trained", column: MRR, expected: 23.77, results: "{work}/trained/results.json"}
      - {key: config.topics, expected: 50, tolerance: 0, results: "{work}/trec/results.json"}
"""


def _results(path, tables, config=None):
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"tables": tables, "config": config or {}}), encoding="utf-8")


def test_a_score_reads_the_results_file_it_names(tmp_path):
    (tmp_path / "cite.yaml").write_text(TWO_RUNS, encoding="utf-8")
    [condition] = repro.load(tmp_path).values()
    work = tmp_path / "work"
    _results(work / "reloaded" / "results.json", [{"title": "Local x", "rows": {"model": {"MRR": [0.237694]}}}])
    _results(work / "trained" / "results.json", [{"title": "Local x", "rows": {"trained": {"MRR": [0.2377]}}}])
    _results(work / "trec" / "results.json", [], {"topics": 50})
    measured = repro.measure(condition, "", work)
    assert [round(m.value, 4) for m in measured if m.value is not None] == [23.7694, 23.77, 50.0]
    assert all(m.ok for m in measured)
