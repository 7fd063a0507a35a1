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
    code = (f"import sys\nfor m in {modules!r}: __import__(m)\n"
            f"print(' '.join(m for m in {(*HEAVY, 'neo4j')!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_the_command_line_starts_without_the_graph_driver_or_models():
    """`citegraph --help` imports every command module: none may pull in neo4j or a model library."""
    assert loaded_after("citegraph.cli") == set()


def test_bm25_needs_no_graph_driver():
    assert loaded_after("citegraph.retrieval.bm25", "citegraph.retrieval.bm25.kernel", "citegraph.retrieval.corpus",
                        "citegraph.contextualise.bm25") == set()


def test_models_import_their_libraries_on_first_use():
    assert loaded_after("citegraph.retrieval.encoders", "citegraph.retrieval.ann", "citegraph.local.rerank",
                        "citegraph.local.taxonomy", "citegraph.local.geometry") == set()
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
