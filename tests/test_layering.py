"""The package's floors: a module never imports a module of a higher floor, nor another unit of
its own floor (docs/architecture.md). Every import counts: function-local ones, and
modules named to ``heavy.lazy`` or ``importlib.import_module`` as a string.

A unit is a subpackage (``citegraph/graph/``) or a top-level module (``citegraph/config.py``);
imports within a unit are free.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "citegraph"

FLOORS = [
    # __version__ (the root's lazy re-export: ALLOWED), error types, the domain's vocabulary, batching
    {"__init__", "errors", "vocabulary", "batches"},
    {"config", "heavy"},  # flags > environment > TOML file; heavy libraries imported on first use
    {"graph"},  # Bolt, the embedded ArcadeDB server, named Cypher queries
    {"ingest", "retrieval"},  # readers and writers into the graph; text scorers over what it hands out
    # the benchmark harness (pools, MDCR, metrics, reports); synthetic corpora; a user's reference
    # library, read as ingest reads BibTeX and matched to graph papers
    {"evaluation", "synth", "library"},
    # citation-context recommendation and contextualisation, scored by the harness
    {"local", "contextualise"},
    # the recommender (its signals, the contexts signal, held-out learning, its benchmark, the demo)
    {"recommend"},
    {"service", "repro"},  # HTTP, the explorer's routes, MCP; the reproduction matrix
    {"cli"},
]
FLOOR = {unit: level for level, units in enumerate(FLOORS) for unit in units}

# (importing file, imported unit) → why it may cross the floors.
ALLOWED = {
    ("__init__.py", "recommend"): "`from citegraph import Recommender` for notebooks: a lazy re-export, run on "
                                  "first use, never while a lower floor imports `citegraph`",
}


def unit_of(package: Path, module: list[str]) -> str:
    """``['graph', 'store']`` → ``graph``; a name imported from the root (``__version__``) → ``__init__``."""
    if not module:
        return "__init__"
    first = module[0]
    return first if (package / first).is_dir() or (package / f"{first}.py").is_file() else "__init__"


def imports(package: Path, path: Path) -> set[str]:
    """The units of ``package`` that the file at ``path`` imports (absolute or relative, anywhere in it)."""
    here = list(path.relative_to(package).parent.parts)
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            modules = [a.name.split(".") for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level:
            base = here[:len(here) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            modules = [base + [a.name] for a in node.names] if not node.module else [base]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module.split(".")]
        elif _lazy_import(node):  # heavy.lazy("citegraph.local.nets"), import_module("citegraph.x")
            modules = [node.args[0].value.split(".")]
        else:
            continue
        for module in modules:
            if isinstance(node, ast.ImportFrom) and node.level:
                found.add(unit_of(package, module))
            elif module[0] == package.name:
                found.add(unit_of(package, module[1:]))
    return found


def _lazy_import(node: ast.AST) -> bool:
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)):
        return False
    name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
    return name in {"lazy", "import_module"}


def violations(package: Path, floor: dict[str, int], allowed: dict) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        own = unit_of(package, list(relative.with_suffix("").parts))
        for unit in sorted(imports(package, path) - {own}):
            if (relative.as_posix(), unit) in allowed:
                continue
            if floor[unit] >= floor[own]:
                found.append(f"{relative} (floor {floor[own]}, {own}) imports {unit} (floor {floor[unit]})")
    return found


def test_every_unit_has_a_floor():
    units = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    units |= {p.stem for p in PACKAGE.glob("*.py")}
    assert units == set(FLOOR), "place new units in FLOORS (and docs/architecture.md)"


def test_the_architecture_page_shows_these_floors():
    """docs/architecture.md's table is the reader's copy of FLOORS: same floors, same units."""
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    shown = {}
    for floor, units in re.findall(r"^\| (\d+) \| (.*?) \|", page, re.M):
        shown[int(floor)] = {u.removeprefix("citegraph/").removesuffix("/").removesuffix(".py")
                             for u in re.findall(r"`([^`]+)`", units)}
    assert shown == dict(enumerate(FLOORS))


def test_no_floor_imports_a_higher_one():
    assert violations(PACKAGE, FLOOR, ALLOWED) == []


def test_the_walk_sees_relative_absolute_and_local_imports(tmp_path):
    package = tmp_path / "pkg"
    for folder in ("low", "high"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("__version__ = '1'\n")
    (package / "low" / "a.py").write_text("def f():\n    from ..high import x\n")
    (package / "low" / "b.py").write_text("import pkg.high.y\nfrom .. import __version__\nfrom . import a\n")
    (package / "high" / "c.py").write_text("from pkg.low import a\n")
    (package / "low" / "d.py").write_text("from importlib import import_module\nh = import_module('pkg.high.z')\n")
    floor = {"__init__": 0, "low": 1, "high": 2}
    assert violations(package, floor, {}) == ["low/a.py (floor 1, low) imports high (floor 2)",
                                              "low/b.py (floor 1, low) imports high (floor 2)",
                                              "low/d.py (floor 1, low) imports high (floor 2)"]
    assert violations(package, floor, {(f"low/{name}.py", "high"): "why" for name in "abd"}) == []
    with pytest.raises(KeyError):  # a unit without a floor is an error, not a pass
        violations(package, {"__init__": 0, "low": 1}, {})
