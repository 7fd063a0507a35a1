"""The reproduction matrix: every figure citegraph publishes, re-measured by one command.

In the spirit of pyserini's two-click reproductions, each *condition* is a YAML entry in
``citegraph/repro/conditions/*.yaml``: the ``citegraph`` commands that produce a result
(run as child processes, exactly as a user types them, against a fresh embedded graph in
a work folder), the data they need, where the result lands (an evaluation's
``results.json`` or the printed output) and the expected scores with a tolerance. A
condition whose data is absent is *skipped*, naming the files it needs; a score outside
its tolerance, or a command that fails, is a FAIL.

Placeholders in commands, ``needs`` and ``results``: ``{work}`` (the condition's work
folder; its graph and indexes live in ``{work}/data``), ``{shared}`` (the reference data,
``../shared/data`` beside the checkout or ``$CITEGRAPH_SHARED``) and ``{package}`` (the
installed ``citegraph`` package, for bundled data).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ..errors import CitegraphError

CONDITIONS = Path(str(resources.files("citegraph") / "repro" / "conditions"))
PACKAGE = Path(str(resources.files("citegraph")))
SHARED = Path(os.environ.get("CITEGRAPH_SHARED", PACKAGE.resolve().parents[1] / "shared" / "data"))
STDOUT = "stdout"
# A condition runs on its own embedded graph: nothing of the caller's connection may leak in.
_CONNECTION_ENV = ("URI", "USER", "PASSWORD", "DATABASE", "DATA_DIR", "CONFIG", "HEAP")
_CONDITION_FIELDS = {"name", "description", "commands", "scores", "results", "needs", "fast", "scale", "tolerance"}
_SCORE_FIELDS = {"label", "expected", "tolerance", "table", "row", "column", "key", "pattern", "results"}


@dataclass(frozen=True)
class Score:
    """One expected figure: a cell of a results table, a value of the results file, or a
    number the commands print.

    ``table`` matches a table whose title starts with it; ``key`` is a dotted path into the
    results file (``config.vectors.terms``, ``config.ontology.sources.0.sets``); ``pattern`` is a regular expression over the
    printed output (stdout and stderr) whose first group is the figure. ``results`` names
    another results file than the condition's for this score (e.g. a second run's).
    """

    label: str
    expected: float
    tolerance: float
    table: str | None = None
    row: str | None = None
    column: str | None = None
    key: str | None = None
    pattern: str | None = None
    results: str | None = None


@dataclass(frozen=True)
class Condition:
    name: str
    description: str
    commands: list[list[str]]
    scores: list[Score]
    results: str = STDOUT
    needs: list[str] = field(default_factory=list)
    fast: bool = False
    scale: float = 1.0  # table cells are multiplied by it, e.g. 100 for the percentages the tables print
    source: str = ""

    def missing(self, shared: Path = SHARED) -> list[str]:
        """The needed files or folders that are not there."""
        return [need for need in (_fill(n, Path("."), shared) for n in self.needs) if not Path(need).exists()]


@dataclass
class Measured:
    """What one score measured: ``value`` None when the run failed before it."""

    score: Score
    value: float | None

    @property
    def ok(self) -> bool:
        return self.value is not None and abs(self.value - self.score.expected) <= self.score.tolerance


@dataclass
class Outcome:
    condition: str
    status: str  # OK, FAIL or SKIPPED
    seconds: float = 0.0
    measured: list[Measured] = field(default_factory=list)
    note: str = ""


def load(directory: Path = CONDITIONS) -> dict[str, Condition]:
    """Every condition of every YAML file in ``directory``, by name; bad entries name file and field."""
    conditions: dict[str, Condition] = {}
    for path in sorted(directory.glob("*.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for i, entry in enumerate(document.get("conditions", [])):
            condition = _condition(entry, f"{path.name}: conditions[{i}]")
            if condition.name in conditions:
                raise CitegraphError(f"{path.name}: condition {condition.name!r} is defined twice")
            conditions[condition.name] = condition
    return conditions


def _condition(entry: dict, where: str) -> Condition:
    def required(key: str, kind: type):
        if not isinstance(entry.get(key), kind):
            raise CitegraphError(f"{where}: field '{key}' must be a {kind.__name__}")
        return entry[key]

    name = required("name", str)
    unknown = sorted(set(entry) - _CONDITION_FIELDS)
    if unknown:
        raise CitegraphError(f"{where} ({name}): unknown field(s) {', '.join(unknown)}")
    commands = required("commands", list)
    if not commands or not all(isinstance(c, list) and c and all(isinstance(a, str) for a in c) for c in commands):
        raise CitegraphError(f"{where} ({name}): field 'commands' must be a list of argument lists (strings)")
    scores = []
    for j, raw in enumerate(required("scores", list)):
        tolerance = raw.get("tolerance", entry.get("tolerance"))
        if not isinstance(raw.get("expected"), (int, float)) or not isinstance(tolerance, (int, float)):
            raise CitegraphError(f"{where} ({name}): scores[{j}]: 'expected' and 'tolerance' must be numbers")
        cell = all(raw.get(k) is not None for k in ("table", "row", "column"))
        if cell + ("key" in raw) + ("pattern" in raw) != 1:
            raise CitegraphError(f"{where} ({name}): scores[{j}] needs one of: table, row and column; key; pattern")
        unknown = sorted(set(raw) - _SCORE_FIELDS)
        if unknown:
            raise CitegraphError(f"{where} ({name}): scores[{j}]: unknown field(s) {', '.join(unknown)}")
        shown = " ".join(str(raw[k]) for k in ("table", "row", "column")) if cell else raw.get("key") or raw["pattern"]
        score = Score(
            raw.get("label") or shown,
            float(raw["expected"]),
            float(tolerance),
            raw.get("table"),
            raw.get("row"),
            None if raw.get("column") is None else str(raw["column"]),
            raw.get("key"),
            raw.get("pattern"),
            raw.get("results"),
        )
        scores.append(score)
    return Condition(
        name,
        required("description", str).strip(),
        commands,
        scores,
        entry.get("results", STDOUT),
        list(entry.get("needs", [])),
        bool(entry.get("fast", False)),
        float(entry.get("scale", 1)),
        where.split(":")[0],
    )


def select(conditions: dict[str, Condition], names: Iterable[str], fast: bool) -> list[Condition]:
    names = list(names)
    unknown = [n for n in names if n not in conditions]
    if unknown:
        raise CitegraphError(f"unknown condition(s) {', '.join(unknown)}; known: {', '.join(conditions)}")
    chosen = [conditions[n] for n in names] if names else list(conditions.values())
    return [c for c in chosen if c.fast or not fast]


def _fill(text: str, work: Path, shared: Path) -> str:
    return text.format(work=work, shared=shared, package=PACKAGE)


def run(condition: Condition, work: Path, shared: Path = SHARED, log: Callable[[str], None] = print) -> Outcome:
    """Run the condition's commands in ``work`` and compare its scores; skip it when data is missing."""
    missing = condition.missing(shared)
    if missing:
        return Outcome(condition.name, "SKIPPED", note="needs " + ", ".join(missing))
    work.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k.removeprefix("CITEGRAPH_") not in _CONNECTION_ENV}
    env.update(CITEGRAPH_DATA_DIR=str(work / "data"), CITEGRAPH_CONFIG=str(work / "no-config.toml"))
    started, printed = time.monotonic(), []
    for command in condition.commands:
        args = [_fill(a, work, shared) for a in command]
        log(f"  $ citegraph {' '.join(args)}")
        done = subprocess.run(
            [sys.executable, "-m", "citegraph.cli", *args],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
        printed += [done.stdout, done.stderr]
        (work / "output.txt").write_text("".join(printed), encoding="utf-8")
        if done.returncode:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
            return Outcome(
                condition.name,
                "FAIL",
                time.monotonic() - started,
                [Measured(s, None) for s in condition.scores],
                f"`citegraph {' '.join(args)}` exited with {done.returncode}: {tail}",
            )
    measured = measure(condition, "".join(printed), work)
    status = "OK" if all(m.ok for m in measured) else "FAIL"
    return Outcome(condition.name, status, time.monotonic() - started, measured)


def measure(condition: Condition, printed: str, work: Path) -> list[Measured]:
    """Read each score from its results file or the printed output (None where it is absent)."""
    read: dict[str, dict[str, Any]] = {}

    def results_of(name: str) -> dict[str, Any]:
        if name not in read:
            path = Path(_fill(name, work, SHARED))
            read[name] = json.loads(path.read_text(encoding="utf-8")) if name != STDOUT and path.is_file() else {}
        return read[name]

    measured = []
    for score in condition.scores:
        results = results_of(score.results or condition.results)
        value: Any = None
        if score.pattern is not None:
            found = re.search(score.pattern, printed, re.MULTILINE)
            value = float(found.group(1).replace(",", "")) if found else None
        elif score.key is not None:
            value = results
            for part in score.key.split("."):  # a number indexes a list
                if isinstance(value, list) and part.isdigit() and int(part) < len(value):
                    value = value[int(part)]
                else:
                    value = value.get(part) if isinstance(value, dict) else None
            value = float(value) if isinstance(value, (int, float)) else None
        else:
            cell = next(
                (
                    t["rows"].get(score.row, {}).get(score.column)
                    for t in results.get("tables", [])
                    if t["title"].startswith(score.table)
                ),
                None,
            )
            value = None if cell is None else float(cell[0]) * condition.scale
        measured.append(Measured(score, value))
    return measured


def record(outcomes: list[Outcome], path: Path) -> None:
    """Keep the last measurement of each condition (what ``repro report`` shows)."""
    kept = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    for outcome in outcomes:
        if outcome.status != "SKIPPED":
            kept[outcome.condition] = {
                "status": outcome.status,
                "seconds": round(outcome.seconds, 1),
                "when": time.strftime("%Y-%m-%d %H:%M"),
                "scores": {m.score.label: m.value for m in outcome.measured},
            }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")


def report(conditions: dict[str, Condition], measured: dict, shared: Path = SHARED) -> str:
    """A markdown table: each score of each condition, whether its data is here, expected and last measured."""
    lines = ["| condition | fast | data | score | expected | last measured |", "|---|---|---|---|---:|---:|"]
    for condition in conditions.values():
        missing = condition.missing(shared)
        data = "missing: " + ", ".join(missing) if missing else "present"
        last = measured.get(condition.name, {})
        for score in condition.scores:
            value = last.get("scores", {}).get(score.label)
            verdict = "OK" if Measured(score, value).ok else "FAIL"
            shown = "—" if value is None else f"{value:g} ({verdict}, {last['when']})"
            lines.append(
                f"| {condition.name} | {'yes' if condition.fast else ''} | {data} | {score.label} | "
                f"{score.expected:g} ± {score.tolerance:g} | {shown} |"
            )
    return "\n".join(lines)
