"""The package's floors: a module never imports a module of a higher floor, nor another unit of
its own floor (docs/architecture.md); and no module imports itself through others (an
import loop), within a unit or across. Every import counts: function-local ones, those under
``TYPE_CHECKING``, modules named to ``heavy.lazy`` or ``importlib.import_module`` as a string,
and ``"package.module:attribute"`` targets (the benchmark registry's catalogue).

A unit is a subpackage (``citegraph/graph/``) or a top-level module (``citegraph/config.py``);
imports within a unit are free of floors, not of loops.
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
    {
        "config",
        "heavy",
        "options",
    },  # flags > environment > TOML file; heavy libraries on first use; options on dataclass fields
    # Bolt, the embedded ArcadeDB server, named Cypher queries; pure parsers of the formats read (BibTeX, LaTeX)
    {"graph", "formats"},
    {"ingest", "retrieval"},  # readers and writers into the graph; text scorers over what it hands out
    # the benchmark harness (pools, MDCR, metrics, reports); synthetic corpora; a user's reference
    # library, read as ingest reads BibTeX and matched to graph papers
    {"evaluation", "synth", "library"},
    # citation-context recommendation and contextualisation, scored by the harness; growing the graph
    # from a library with OpenAlex and Semantic Scholar (the library's matcher, the ingest's readers)
    {"local", "contextualise", "grow"},
    # the recommender (its signals, the contexts signal, held-out learning, its benchmark, the demo)
    {"recommend"},
    # each use case once for every door: its typed request and answer, and the function holding its logic
    {"operations"},
    {"service", "repro"},  # HTTP, the explorer's routes, MCP; the reproduction matrix
    {"cli"},
]
FLOOR = {unit: level for level, units in enumerate(FLOORS) for unit in units}

# (importing file, imported unit) → why it may cross the floors.
ALLOWED = {
    ("__init__.py", "recommend"): "`from citegraph import Recommender` for notebooks: a lazy re-export, run on "
    "first use, never while a lower floor imports `citegraph`",
    **{
        ("evaluation/registry.py", unit): "the catalogue names every benchmark's entry as a 'module:attribute' "
        "target, imported when the benchmark is asked for by name; the entries import evaluation.registered, never "
        "the registry"
        for unit in ("local", "contextualise", "recommend")
    },
}

# Import loops still there (modules, sorted) → why, until they are gone. Empty since issue 24; stays so.
LOOPS_ALLOWED: dict[tuple[str, ...], str] = {}
TARGET = re.compile(r"([A-Za-z_][\w.]*):[A-Za-z_]\w*")  # "package.module:attribute"


def unit_of(package: Path, module: list[str]) -> str:
    """``['graph', 'store']`` → ``graph``; a name imported from the root (``__version__``) → ``__init__``."""
    if not module:
        return "__init__"
    first = module[0]
    return first if (package / first).is_dir() or (package / f"{first}.py").is_file() else "__init__"


def imported(package: Path, path: Path) -> list[list[str]]:
    """What the file at ``path`` imports of ``package``, as dotted paths within it (absolute or
    relative imports anywhere in the file; ``from a import b`` names ``a`` and ``a.b``)."""
    here = list(path.relative_to(package).parent.parts)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            modules = [a.name.split(".") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            else:
                base = node.module.split(".")
            modules = (
                [base, *(base + [a.name] for a in node.names)] if node.module else [base + [a.name] for a in node.names]
            )
            if node.level:
                base = [package.name]
                modules = [base + m for m in modules]
        elif _lazy_import(node):  # heavy.lazy("citegraph.local.nets"), import_module("citegraph.x")
            modules = [node.args[0].value.split(".")]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and TARGET.fullmatch(node.value):
            modules = [node.value.split(":")[0].split(".")]
        else:
            continue
        found += [module[1:] for module in modules if module[0] == package.name]
    return found


def imports(package: Path, path: Path) -> set[str]:
    """The units of ``package`` that the file at ``path`` imports."""
    return {unit_of(package, module) for module in imported(package, path)}


def module_of(package: Path, dotted: list[str]) -> str | None:
    """The file a dotted path names, as a path within ``package``: its longest prefix that is a
    module or a package (whose ``__init__.py``); None for the root alone."""
    for end in range(len(dotted), 0, -1):
        folder = package.joinpath(*dotted[:end])
        for candidate in (folder.with_suffix(".py"), folder / "__init__.py"):
            if candidate.is_file():
                return candidate.relative_to(package).as_posix()
    return None


def loops(package: Path) -> list[tuple[str, ...]]:
    """Groups of modules that import each other in a loop (the strongly connected components of the
    import graph with more than one module), each sorted."""
    graph = {}
    for path in sorted(package.rglob("*.py")):
        own = path.relative_to(package).as_posix()
        graph[own] = {m for m in (module_of(package, d) for d in imported(package, path)) if m and m != own}
    order, low, stack, found = {}, {}, [], []

    def visit(module: str) -> None:  # Tarjan's algorithm
        order[module] = low[module] = len(order)
        stack.append(module)
        for other in graph[module]:
            if other not in order:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], order[other])
        if low[module] == order[module]:
            group = []
            while not group or group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(tuple(sorted(group)))

    for module in graph:
        if module not in order:
            visit(module)
    return sorted(found)


def _lazy_import(node: ast.AST) -> bool:
    if not (
        isinstance(node, ast.Call)
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
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
        shown[int(floor)] = {
            u.removeprefix("citegraph/").removesuffix("/").removesuffix(".py") for u in re.findall(r"`([^`]+)`", units)
        }
    assert shown == dict(enumerate(FLOORS))


def test_no_floor_imports_a_higher_one():
    assert violations(PACKAGE, FLOOR, ALLOWED) == []


#: The product — the recommender and the doors serving it — against the research code it must not
#: import (docs/architecture.md): citation-context models, contextualisation, a benchmarks script.
PRODUCT = ("recommend", "service")
RESEARCH = {"local", "contextualise"}


def research_imports(package: Path, units=PRODUCT) -> dict[str, list[str]]:
    """Per product unit, its modules' imports of research units or of the ``benchmarks`` scripts
    (outside the package: imported by name, as a lazy import or a registry target)."""
    found: dict[str, list[str]] = {unit: [] for unit in units}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        own = unit_of(package, list(relative.with_suffix("").parts))
        if own in found:
            crossing = (imports(package, path) & RESEARCH) | ({"benchmarks"} if _names_benchmarks(path) else set())
            found[own] += [f"{relative.as_posix()} imports {unit}" for unit in sorted(crossing)]
    return found


def _names_benchmarks(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] if not node.level else []
        elif _lazy_import(node):
            names = [node.args[0].value]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and TARGET.fullmatch(node.value):
            names = [node.value]
        else:
            continue
        if any(name.split(".")[0].split(":")[0] == "benchmarks" for name in names):
            return True
    return False


def test_the_product_imports_no_research_code():
    assert research_imports(PACKAGE) == {unit: [] for unit in PRODUCT}


def test_the_product_boundary_is_seen_through_every_kind_of_import(tmp_path):
    package = tmp_path / "pkg"
    for folder in ("service", "recommend", "local", "contextualise"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "service" / "a.py").write_text("def f():\n    from ..contextualise import x\n")
    (package / "service" / "b.py").write_text("import benchmarks.rerank\n")
    (package / "recommend" / "c.py").write_text(
        "from importlib import import_module\nm = import_module('pkg.local.y')\n"
    )
    (package / "recommend" / "d.py").write_text("TARGETS = {'t': 'benchmarks.rerank:main'}\n")
    (package / "recommend" / "e.py").write_text("from ..service import a\n")  # not research: the floors' concern
    assert research_imports(package) == {
        "recommend": ["recommend/c.py imports local", "recommend/d.py imports benchmarks"],
        "service": ["service/a.py imports contextualise", "service/b.py imports benchmarks"],
    }


def test_no_import_loop():
    assert [group for group in loops(PACKAGE) if group not in LOOPS_ALLOWED] == []
    assert set(LOOPS_ALLOWED) <= set(loops(PACKAGE)), "a loop is gone: take it out of LOOPS_ALLOWED"


def test_loops_are_found_through_local_imports_and_registry_targets(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from .a import f\n")
    (package / "sub" / "a.py").write_text("def f():\n    from .b import g\n")
    (package / "sub" / "b.py").write_text("from pkg.sub import a\n")  # a → b → a, through sub's __init__
    (package / "c.py").write_text("TARGETS = {'x': 'pkg.d:ENTRY'}\n")
    (package / "d.py").write_text("import pkg.c\n")
    (package / "e.py").write_text("from pkg.sub.a import f\n")  # imports, in no loop
    assert loops(package) == [("c.py", "d.py"), ("sub/__init__.py", "sub/a.py", "sub/b.py")]


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
    assert violations(package, floor, {}) == [
        "low/a.py (floor 1, low) imports high (floor 2)",
        "low/b.py (floor 1, low) imports high (floor 2)",
        "low/d.py (floor 1, low) imports high (floor 2)",
    ]
    assert violations(package, floor, {(f"low/{name}.py", "high"): "why" for name in "abd"}) == []
    with pytest.raises(KeyError):  # a unit without a floor is an error, not a pass
        violations(package, {"__init__": 0, "low": 1}, {})


#: File names that several modules share → why (docs/architecture.md, "Names"): the same role
#: in sibling packages by design. Any other shared name fails.
SHARED_NAMES = {
    "cite.py": "the cite command (cli/) and the use case it runs (recommend/)",
    "demo.py": "the demo command (cli/) and the demo it runs (recommend/)",
    "pools.py": "the pools command (cli/) and the pools it builds (evaluation/large_scale/)",
    "config.py": "citegraph's own configuration at the root; each benchmark's options in its package",
    "score.py": "each benchmark package's scoring (evaluation/mdcr/, evaluation/large_scale/)",
    "measures.py": "each benchmark package's measures (evaluation/csfcube/, contextualise/)",
    "benchmark.py": "each part's benchmark for the harness (local/, contextualise/, recommend/)",
}


def test_no_two_modules_share_a_name_without_a_stated_reason():
    names: dict[str, list[str]] = {}
    for module in PACKAGE.rglob("*.py"):
        if module.name != "__init__.py":
            names.setdefault(module.name, []).append(str(module.relative_to(PACKAGE)))
    shared = {name: sorted(paths) for name, paths in names.items() if len(paths) > 1}
    assert {name: paths for name, paths in shared.items() if name not in SHARED_NAMES} == {}
    assert set(SHARED_NAMES) <= set(shared), "a stated reason for a name no longer shared"
    architecture = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in architecture for name in SHARED_NAMES if name not in ("cite.py", "demo.py", "pools.py"))
