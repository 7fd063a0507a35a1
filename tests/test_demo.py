"""The README's first command, as a new user meets it: `citegraph demo` on the embedded default,
printing each step as it is done, importing only what the base install holds, and ending with
commands that show again what it showed. The other commands a base install promises (a library's
recommendations, a draft's citations with its bibliography, a paper's record in every format)
import only the base install too (`.ci/run` also runs the demo in a venv with nothing else)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, packages_distributions, requires
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement

from citegraph.graph import ArcadeServer

ROOT = Path(__file__).resolve().parents[1]
DEMO_DATA = ROOT / "citegraph" / "data" / "demo"

#: citegraph's command line as on a base install: the modules of every distribution outside it
#: (named in the JSON file argv[1]) are hidden from every finder, so that an import of one fails
#: as it would there, and ``find_spec`` says it is absent; at exit, the top-level modules imported
#: since it started are appended to the file argv[2].
AS_ON_A_BASE_INSTALL = """
import atexit, json, sys
hidden = set(json.load(open(sys.argv.pop(1))))
record = sys.argv.pop(1)

class Hiding:
    def __init__(self, finder):
        self.finder = finder
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in hidden:
            return None
        return self.finder.find_spec(name, path, target)
    def __getattr__(self, name):
        return getattr(self.finder, name)

sys.meta_path[:] = [Hiding(f) for f in sys.meta_path]
started_with = set(sys.modules)  # the interpreter's own start (site's .pth hooks among them)
def _write():
    with open(record, "a") as out:
        out.write(json.dumps(sorted({m.split(".")[0] for m in set(sys.modules) - started_with})) + "\\n")
atexit.register(_write)
from citegraph.cli import main
main(prog_name="citegraph")
"""


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    #: seconds from the start at which each line of stdout arrived
    arrived: list[float]


def as_on_a_base_install(args: list[str], modules: Path, env: dict, timeout: float = 600) -> Run:
    """``citegraph ARGS`` in a child process that sees only the base install, its stdout read line
    by line as it comes; the modules it imported appended to ``modules``."""
    hidden = modules.with_name("hidden.json")
    if not hidden.exists():
        hidden.write_text(json.dumps(sorted(outside_the_base_install())), encoding="utf-8")
    started = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-c", AS_ON_A_BASE_INSTALL, str(hidden), str(modules), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines, arrived = [], []
    assert child.stdout is not None
    for line in child.stdout:
        lines.append(line)
        arrived.append(time.monotonic() - started)
    _, stderr = child.communicate(timeout=timeout)
    return Run(child.returncode, "".join(lines), stderr, arrived)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """`citegraph --data-dir D demo` on the embedded default, and the modules it imported."""
    folder = tmp_path_factory.mktemp("demo")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEGRAPH_")}
    env["CITEGRAPH_HEAP"] = "1g"
    modules = folder / "modules.jsonl"
    done = as_on_a_base_install(["--data-dir", str(folder / "data"), "demo", "--no-progress"], modules, env)
    assert done.returncode == 0, done.stderr[-3000:]
    return folder, env, modules, done


@pytest.mark.slow
def test_the_demo_runs_on_the_embedded_default(demo):
    folder, _, _, done = demo
    assert "Using the embedded ArcadeDB graph" in done.stderr
    out = done.stdout
    assert "P07-2045" in out and "Moses: Open Source Toolkit for" in out
    assert "32,865" in out  # ACL-200 citations (32,873 edges less 8 self-citations)
    assert "co-cited with P07-2045" in out
    assert "MAP: MDCR test per field (Table 3)" in out and "cocitation" in out and "bm25" in out
    assert (folder / "data" / "demo" / "evaluation" / "results.json").is_file()
    assert 'recommended citations for P12-1066 "Selective Sharing' in out
    assert re.search(r"\n +1\. P\d\d-\d{4} \(\d{4}\) .+ · score \d", out)
    assert re.search(r"\n +· cited by \d+ of your references: [A-Z]\d\d-\d{4}", out)  # a graph path
    assert re.search(r"\n +· (bm25 rank \d+|cited by \d+ of the top text matches)", out)  # the text side
    assert re.search(r"the held-out citation P05-1012: rank [1-5] of 5", out)
    assert ArcadeServer(folder / "data" / "arcadedb").status() is None  # stopped on exit


@pytest.mark.slow
def test_the_demo_prints_each_step_as_it_is_done(demo):
    """The ingest's table is on the terminal seconds before the benchmark's (it was all printed at the end)."""
    _, _, _, done = demo
    lines = done.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if "ingest taxonomy" in line)
    tables = next(i for i, line in enumerate(lines) if "MAP: MDCR test per field" in line)
    last = len(lines) - 1
    assert done.arrived[tables] - done.arrived[first] > 1.0, (done.arrived[first], done.arrived[tables])
    assert done.arrived[last] - done.arrived[tables] > 1.0, (done.arrived[tables], done.arrived[last])


def ranked(out: str, after: str) -> list[str]:
    """The ids of the numbered list printed after the line holding ``after``."""
    block = out[out.index(after) :].split("\n", 1)[1]
    ids = []
    for line in block.splitlines():
        found = re.match(r" +\d+\. (\S+) ", line)
        if found:
            ids.append(found.group(1))
        elif not line.startswith("      "):
            break
    return ids


@pytest.mark.slow
def test_the_demo_ends_with_commands_that_show_again_what_it_showed(demo):
    """Run as printed (with the data folder the demo was given), each hint gives the demo's list."""
    folder, env, modules, done = demo
    hints = {
        kind: shlex.split(re.search(rf"\n  (citegraph [^\n]* {kind} [^#\n]*)", done.stdout).group(1))
        for kind in ("recommend", "cite")
    }
    for kind, expected_after, shown_after in (
        ("recommend", 'recommended citations for P12-1066 "', "recommended for P12-1066"),
        ("cite", "slot at paragraph.tex:", "slot 1 at "),
    ):
        assert hints[kind][:3] == ["citegraph", "--data-dir", str(folder / "data")]
        again = as_on_a_base_install(hints[kind][1:], modules, env)
        assert again.returncode == 0, again.stderr[-3000:]
        assert ranked(again.stdout, shown_after) == ranked(done.stdout, expected_after), again.stdout
        assert len(ranked(again.stdout, shown_after)) == 5


def base_distributions() -> set[str]:
    """The distributions the base install holds: pyproject's dependencies and theirs, transitively."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    environment = {**default_environment(), "extra": ""}
    wanted = [Requirement(r) for r in project["dependencies"]]
    found: set[str] = set()
    while wanted:
        requirement = wanted.pop()
        name = requirement.name.lower().replace("_", "-")
        if name in found or (requirement.marker and not requirement.marker.evaluate(environment)):
            continue
        found.add(name)
        try:
            wanted.extend(Requirement(r) for r in requires(name) or [])
        except PackageNotFoundError:
            pass  # a marker-less requirement of a platform this is not
    return found


def outside_the_base_install() -> set[str]:
    """The top-level modules of the installed distributions that the base install lacks."""
    base = base_distributions()
    return {
        module
        for module, distributions in packages_distributions().items()
        if module not in sys.stdlib_module_names
        and module != "citegraph"
        and not {d.lower().replace("_", "-") for d in distributions} & base
    }


@pytest.mark.slow
def test_the_base_commands_run_on_the_base_install_alone(demo):
    """The demo (the fixture) and the base commands succeed with every module outside the base
    install hidden, and none of those was imported (this venv has every extra: without the
    hiding, an import outside the base install would pass here and fail on a user's machine)."""
    folder, env, modules, _ = demo
    base = ["--data-dir", str(folder / "data")]
    for args in (
        ["recommend", "--library", str(DEMO_DATA / "library.bib"), "-k", "3"],
        ["cite", "--draft", str(DEMO_DATA / "paragraph.tex"), "--bib", str(DEMO_DATA / "paragraph.bib"), "-k", "3"],
        ["paper", "P07-2045"],
        *(["paper", "P07-2045", "--format", f] for f in ("bibtex", "ris", "csl-json")),
    ):
        done = as_on_a_base_install([*base, *args], modules, env)
        assert done.returncode == 0, (args, done.stderr[-3000:])
    imported = set().union(*(json.loads(line) for line in modules.read_text().splitlines()))
    assert imported & outside_the_base_install() == set()
    assert {"citegraph", "neo4j", "bm25s", "rapidfuzz", "bibtexparser"} <= imported
