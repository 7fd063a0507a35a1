"""The graph and Lucene in one Python process: the reason the graph runs in its own.

ArcadeDB's in-process API starts a JVM through JPype and pyserini starts one through
pyjnius; two JVMs in one process crash. citegraph talks Bolt to a server process, so a
process can index and search with pyserini while it reads and writes the graph.
"""

from __future__ import annotations

import pytest

from citegraph.ingest import formats, ingest
from citegraph.retrieval.bm25.jvm import prepare

from conftest import shared

pytestmark = pytest.mark.lucene


@pytest.mark.slow
def test_graph_and_pyserini_in_one_process(store, tmp_path):
    pytest.importorskip("pyserini", reason="needs the [lucene] extra")
    ingest(store, formats.get("s2orc"), [shared("samples/s2orc/metadata_sample.jsonl")])
    prepare()
    from pyserini.index.lucene import LuceneIndexer
    from pyserini.search.lucene import LuceneSearcher

    papers = [store.run("paper", id=pid)[0] for pid in ("2871678", "77490025")]
    indexer = LuceneIndexer(str(tmp_path / "index"))
    indexer.add_batch_dict([{"id": p["id"], "contents": f"{p['title']} {p['abstract'] or ''}"} for p in papers])
    indexer.close()
    hits = LuceneSearcher(str(tmp_path / "index")).search("TRAIL apoptosis resistance", k=2)
    assert [h.docid for h in hits][0] == "2871678"
    assert store.run("most_cited", limit=1)[0]["id"] == "2871678"  # the graph still answers


CRASH = """
import ctypes, sys
from pathlib import Path
from citegraph.retrieval.bm25 import jvm
jvm.log_folder = Path(sys.argv[1])
jvm.prepare()
import jnius  # starts the JVM, which takes over the process's crash signals
print("before the crash", flush=True)
ctypes.string_at(0)  # a read of address 0 in native code: SIGSEGV
"""


def test_a_crash_report_of_the_lucene_jvm_goes_to_the_data_folders_logs(tmp_path):
    """A JVM crash left hs_err_pid*.log in the working folder of the user's command."""
    import subprocess
    import sys

    pytest.importorskip("pyserini", reason="needs the [lucene] extra")
    work, logs = tmp_path / "work", tmp_path / "data" / "logs"
    work.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", CRASH, str(logs)], cwd=work, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode != 0 and "A fatal error has been detected" in done.stdout, done.stderr[-2000:]
    assert list(work.iterdir()) == []
    [report] = logs.glob("hs_err_pid*.log")
    assert "SIGSEGV" in report.read_text(errors="replace")


SEARCH = """
import json, sys
from pathlib import Path
from citegraph.retrieval.bm25 import bm25, jvm
jvm.log_folder = Path(sys.argv[2])
hits = bm25(sys.argv[1]).search(["apoptosis resistance", "graph neural networks"], 5)
from pyserini.pyclass import autoclass
print(json.dumps({"vm": str(autoclass("java.lang.System").getProperty("java.vm.info")),
                  "hits": [[(h.id, h.score) for h in ranking] for ranking in hits]}))
"""


def test_lucenes_classes_are_mapped_from_an_archive_built_once_from_a_record(tmp_path):
    """The first JVM records the classes it loads, the next builds the class-data archive from
    that record and maps them from it ("sharing"), as do the JVMs after it: with the same hits,
    and nothing on the terminal."""
    import json
    import os
    import subprocess
    import sys

    pytest.importorskip("pyserini", reason="needs the [lucene] extra")
    from citegraph.retrieval.base import Document
    from citegraph.retrieval.bm25 import build_bm25

    texts = ["TRAIL-induced apoptosis resistance", "graph neural networks for citations", "apoptosis in cells"]
    build_bm25([Document(f"d{i}", t, "") for i, t in enumerate(texts)], tmp_path / "index", backend="lucene")
    cache, logs = tmp_path / "cache", tmp_path / "logs"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    runs = []
    for _ in range(3):
        done = subprocess.run(
            [sys.executable, "-c", SEARCH, str(tmp_path / "index"), str(logs)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0 and done.stderr == "", done.stderr[-2000:]
        runs.append(json.loads(done.stdout))
        archives = sorted(p.suffix for p in (cache / "citegraph").iterdir() if p.suffix in (".jsa", ".classes"))
        assert archives == ([".classes"] if len(runs) == 1 else [".jsa"])
    assert ["sharing" in run["vm"] for run in runs] == [False, True, True]
    assert runs[0]["hits"] == runs[1]["hits"] == runs[2]["hits"] and runs[0]["hits"][0][0][0] in ("d0", "d2")
    assert (cache / "citegraph").stat().st_mode & 0o777 == 0o700
