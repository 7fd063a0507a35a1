"""What importing a module costs: BM25 needs no graph driver, and torch, transformers, Faiss
and pyserini are imported through citegraph.heavy on first use only."""

from __future__ import annotations

import subprocess
import sys

import pytest

from citegraph import heavy
from citegraph.errors import CitegraphError

HEAVY = ("torch", "transformers", "faiss", "pyserini")


def loaded_after(*modules: str) -> set[str]:
    """The heavy libraries and the neo4j driver a fresh interpreter holds after importing ``modules``."""
    code = (
        f"import sys\nfor m in {modules!r}: __import__(m)\n"
        f"print(' '.join(m for m in {(*HEAVY, 'neo4j')!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_the_command_line_starts_without_the_graph_driver_or_models():
    """`citegraph --help` imports every command module: none may pull in neo4j or a model library."""
    assert loaded_after("citegraph.cli") == set()


def test_bm25_needs_no_graph_driver():
    assert (
        loaded_after(
            "citegraph.retrieval.bm25",
            "citegraph.retrieval.bm25.kernel",
            "citegraph.retrieval.corpus",
            "citegraph.contextualise.bm25",
        )
        == set()
    )


def test_models_import_their_libraries_on_first_use():
    assert (
        loaded_after(
            "citegraph.retrieval.dense.encoders",
            "citegraph.retrieval.dense.encoder_specs",
            "citegraph.retrieval.dense.ann",
            "citegraph.retrieval.dense.ann_build",
            "citegraph.retrieval.dense.ann_files",
            "citegraph.local.symtax",
            "citegraph.local.encoding",
            "citegraph.local.taxonomy_fusion",
            "citegraph.local.geometry",
        )
        == set()
    )
    assert "torch" in loaded_after("citegraph.local.nets")  # the modules behind the seam


def test_a_missing_library_names_the_extra_that_installs_it(monkeypatch):
    monkeypatch.setitem(heavy.EXTRAS, "citegraph_absent_library", "dense")
    absent = heavy.lazy("citegraph_absent_library")
    with pytest.raises(CitegraphError, match=r"pip install 'citegraph\[dense\]'"):
        _ = absent.anything
    with pytest.raises(ModuleNotFoundError):  # not a heavy library: a plain bug, reported as such
        _ = heavy.lazy("citegraph_no_such_module").anything


def test_the_seam_hands_out_the_library_itself():
    import numpy

    assert heavy.lazy("numpy").ones(2).tolist() == numpy.ones(2).tolist()


#: Libraries citegraph imports that come with one it declares (checked below): the API
#: they are used through is that declared library's.
COMES_WITH = {
    "starlette": "fastapi",
    "pylatexenc": "bibtexparser",
    "jnius": "pyserini",
    "jnius_config": "pyserini",
    "jpype": "arcadedb-embedded",
    "anyio": "mcp",
    "mcp_types": "mcp",
}


def _name(distribution: str) -> str:
    return distribution.lower().replace("_", "-")


def test_every_library_citegraph_imports_is_declared_in_pyproject():
    """A module imported anywhere in citegraph must come from a distribution pyproject.toml
    names (core or an extra): an undeclared one breaks only on a machine that lacks it."""
    import ast
    import tomllib
    from importlib.metadata import packages_distributions, requires
    from pathlib import Path

    from packaging.requirements import Requirement

    root = Path(__file__).resolve().parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    declared = {
        _name(Requirement(r).name)
        for r in [*project["dependencies"], *(r for extra in project["optional-dependencies"].values() for r in extra)]
    }
    imported = set()
    for source in (root / "citegraph").rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
            elif (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", "") in ("lazy", "import_module")
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                imported.add(str(node.args[0].value).split(".")[0])
    distributions = packages_distributions()
    for module, carrier in COMES_WITH.items():
        assert carrier in declared
        assert {_name(d) for d in distributions[module]} & {_name(Requirement(r).name) for r in requires(carrier)}
    undeclared = {
        m: distributions[m]
        for m in imported - set(COMES_WITH) - set(sys.stdlib_module_names)
        if m in distributions and not {_name(d) for d in distributions[m]} & declared
    }
    assert undeclared == {}


def test_no_test_skips_for_want_of_a_core_dependency():
    """A core dependency is installed wherever citegraph is: a test that cannot import one
    must fail (a broken install), not skip."""
    import ast
    import tomllib
    from importlib.metadata import packages_distributions
    from pathlib import Path

    from packaging.requirements import Requirement

    root = Path(__file__).resolve().parents[1]
    core = {
        _name(Requirement(r).name)
        for r in tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    }
    distributions = packages_distributions()
    skipping = []
    for test in sorted((root / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(test.read_text())):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", "") == "importorskip"
                and isinstance(node.args[0], ast.Constant)
            ):
                module = node.args[0].value.split(".")[0]
                if {_name(d) for d in distributions.get(module, [])} & core:
                    skipping.append(f"{test.name}:{node.lineno} {module}")
    assert skipping == []
