"""Faults an ingest meets and what it says about them (issue 39 §4.6, §4.9): a work with
tens of thousands of references, a disk that fills during a bulk build, ^C, a record over
citegraph's own statement limit."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_bulk import cited_ids_unlike_the_edges, dump

from citegraph.ingest import IngestOptions, formats, ingest

from conftest import citegraph, citegraph_ok, small_disk

OPENALEX = Path(__file__).parent / "fixtures" / "openalex" / "works.jsonl"


def citing_50000(folder: Path) -> Path:
    """An OpenAlex work citing 50,000 works (none in the graph), as a works file."""
    work = json.loads(OPENALEX.read_text(encoding="utf-8").splitlines()[0])
    work["referenced_works"] = [f"https://openalex.org/W{4_000_000_000 + i}" for i in range(50_000)][::-1]
    path = folder / "works.jsonl"
    path.write_text(json.dumps(work) + "\n", encoding="utf-8")
    return path


def test_a_work_with_50000_references_ingests_and_ingests_again(store, tmp_path):
    """Its second write failed on ArcadeDB ("Query heap budget exceeded") once the paper held
    the list of its 50,000 cited ids: the ORDER BY of cited_ids held the citing paper's
    record in every row; run again, it failed the same way."""
    path = citing_50000(tmp_path)
    for options in (IngestOptions(), IngestOptions(restart=True)):
        started = time.monotonic()
        summary = ingest(store, formats.get("openalex"), [path], options)
        assert summary.write.citations == 50_000
        assert time.monotonic() - started < 120
    graph = dump(store)
    assert not cited_ids_unlike_the_edges(graph)
    [paper] = [json.loads(props) for labels, props in graph[0] if "External" not in labels and "Paper" in labels]
    assert len(paper["cited_ids"]) == 50_000


@pytest.mark.slow
def test_the_50000_stubs_of_a_work_are_dropped_and_its_list_set_again(store, tmp_path):
    """`--external drop` sorted the list again in ingest/drop_external, and was refused as
    the re-run was (10,000 stubs a transaction, its list of the 40,000 left in every row)."""
    path = citing_50000(tmp_path)
    summary = ingest(store, formats.get("openalex"), [path], IngestOptions(external="drop"))
    assert summary.external_dropped == 50_000
    graph = dump(store)
    assert not cited_ids_unlike_the_edges(graph) and not [r for r in graph[1] if r[0] == "CITES"]


def test_a_record_over_the_statement_limit_names_citegraphs_own_cap(store, server_env, tmp_path):
    """A 9 MB record was said to be over "the graph server's message limit" of 8 MiB: the cap
    is citegraph's own (half of ArcadeDB's 16 MiB)."""
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps({"id": "P1", "title": "big", "abstract": "word " * 1_900_000}) + "\n")
    done = citegraph("ingest", "jsonl", str(path), "--no-progress", env=server_env)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.strip().splitlines()[-1:]
    assert line.startswith(f"Error: {path}: a record of lines 1-1 alone is too large to write"), line
    assert "over citegraph's own limit of 8 MiB a statement (half of ArcadeDB's 16 MiB Bolt message limit)" in line
    assert "graph server's message limit" not in line


def test_a_first_interrupt_stops_the_ingest_between_batches_in_one_line(store, server_env, tmp_path):
    """^C (SIGINT) to a real `citegraph ingest` while it writes: it stops between two batches,
    says in one line where it stands and what to run, exits 130; run again, it resumes there.
    Raised wherever the main thread was, the KeyboardInterrupt was swallowed in a destructor of
    the graph driver ("Exception ignored in ... Workspace.__del__") and the ingest went on to
    exit 0, or ended in "Aborted!" (exit 1)."""
    corpus = tmp_path / "corpus.jsonl"
    citegraph_ok("synth", "--papers", "6000", "--out", str(corpus), env=server_env)
    ingesting = subprocess.Popen(
        [sys.executable, "-m", "citegraph.cli", "ingest", "s2orc", str(corpus), "--no-progress", "--batch-size", "250"],
        env=server_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while papers(store) < 500 and ingesting.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    ingesting.send_signal(signal.SIGINT)
    _, stderr = ingesting.communicate(timeout=120)
    assert ingesting.returncode == 130, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    [said] = stderr.strip().splitlines()
    match = re.fullmatch(
        rf"Error: interrupted; the ingest of {re.escape(str(corpus))} is committed up to line ([\d,]+): run the "
        r"same command again and it resumes after line \1",
        said,
    )
    assert match, said
    committed = int(match.group(1).replace(",", ""))
    assert 500 <= committed < 6000 and committed % 250 == 0
    assert papers(store) == committed  # nothing of the batch being read was written
    again = citegraph_ok("ingest", "s2orc", str(corpus), "--no-progress", env=server_env)
    assert f"resumed {corpus} after line {committed:,}" in again.stdout, again.stdout
    assert papers(store) == 6000


def papers(store) -> int:
    """The corpus papers in the graph (stubs of cited papers not counted)."""
    labels = {r["label"]: r["count"] for r in store.run("stats/labels")}
    return labels.get("Paper", 0) - labels.get("External", 0)


@pytest.mark.server  # the command starts the embedded graph server (a JVM)
@pytest.mark.slow
@pytest.mark.parametrize(
    "size",
    [pytest.param("40m", id="the spill files (ENOSPC)"), pytest.param("100m", id="DuckDB's database (FatalException)")],
)
def test_a_disk_full_during_the_bulk_build_is_one_line(tmp_path, size):
    """The embedded graph on a small tmpfs (root only: mount), 20,000 papers loaded in bulk:
    the build fills the disk first (at 40 MiB writing its spill files, at 100 MiB DuckDB's
    database), which gave a raw traceback of either; the graph is left untouched."""
    with small_disk(tmp_path, size) as (disk, env):
        corpus = tmp_path / "corpus.jsonl"
        citegraph_ok("synth", "--papers", "20000", "--out", str(corpus), env=env)
        full = citegraph("ingest", "s2orc", str(corpus), "--bulk", "--no-progress", env=env, timeout=600)
        assert full.returncode == 1 and "Traceback" not in full.stderr, full.stderr[-3000:]
        [said] = [line for line in full.stderr.splitlines() if line.startswith("Error: ")]
        assert said == (
            f"Error: the disk holding {disk / 'data' / 'arcadedb'} filled up while the bulk ingest built the graph "
            "in a work folder there (removed again); nothing was loaded: free space on that disk (or give a "
            "--data-dir on another) and run the same command again"
        ), said
        assert not list((disk / "data" / "arcadedb").glob("bulk-*"))
        stats = json.loads(citegraph_ok("stats", "--json", env=env).stdout)
        assert not stats["labels"] and "bulk" not in json.dumps(stats).lower(), stats
