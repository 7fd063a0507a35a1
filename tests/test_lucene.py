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
jvm.crash_reports = Path(sys.argv[1])
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
