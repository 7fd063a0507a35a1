"""The resident graph: a command without --uri attaches, over Bolt, to the server its data folder
already runs — the one `citegraph graph start` keeps, or the one `citegraph serve` keeps — and
starts its own only when none runs; and no line of an engine (the ArcadeDB server, the Lucene
JVM inside a command) reaches a command's stdout or stderr."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from citegraph.graph import ArcadeServer
from citegraph.graph.processes import free_port
from citegraph.service.serving import wait_serving

from conftest import citegraph, shared

pytestmark = [pytest.mark.slow, pytest.mark.lucene]

#: What the engines print: ArcadeDB's log lines, Java's logging (log4j2, SLF4J, java.util.logging's
#: two-line records, the unified log's ``[0.006s][warning]``), class names of their packages.
ENGINE = re.compile(
    r"com\.arcadedb|<ArcadeDB_|org\.apache|io\.anserini|SLF4J|log4j"
    r"|^(WARNING|INFO|SEVERE|FINE):|^\[\d+\.\d+s\]\["
    r"|^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d{4} "
    r"|^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[.,]\d{3} +(INFO|WARN|WARNING|ERROR|SEVERE)"
)
CONTEXT = "TRAIL-induced apoptosis resistance in cancer cells [CIT]."
STARTED = "ArcadeDB Server started"  # the server's log line when one starts


def engine_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if ENGINE.search(line)]


def assert_no_engine_line(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, done.stderr[-2000:]
    assert engine_lines(done.stdout) == [], done.args
    assert engine_lines(done.stderr) == [], done.args


class Folder:
    """A data folder with the S2ORC sample in its embedded graph and a Lucene index, and the
    output of the commands that made it."""

    def __init__(self, root: Path):
        pytest.importorskip("pyserini", reason="needs the [lucene] extra")
        self.data = root / "data"
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("CITEGRAPH_")}
        # a cache of its own: the Lucene JVM records its classes, then builds its archive, then uses it
        self.env |= {"CITEGRAPH_DATA_DIR": str(self.data), "CITEGRAPH_HEAP": "512m", "XDG_CACHE_HOME": str(root)}
        sample = str(shared("samples/s2orc/metadata_sample.jsonl"))
        self.made = [self.run("ingest", "s2orc", sample, "--no-progress"), self.run("index", "bm25")]
        self.home = ArcadeServer(self.data / "arcadedb")

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return citegraph(*args, env=self.env)

    def servers_started(self) -> int:
        return self.home.log_file.read_text(errors="replace").count(STARTED)

    def serve(self, port: int, out: Path) -> subprocess.Popen:
        with open(out.with_suffix(".out"), "wb") as stdout, open(out.with_suffix(".err"), "wb") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-m", "citegraph.cli", "serve", "--port", str(port)],
                env=self.env,
                stdout=stdout,
                stderr=stderr,
            )
        wait_serving(f"http://127.0.0.1:{port}", process, log=out.with_suffix(".err"))
        return process


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Folder:
    return Folder(tmp_path_factory.mktemp("resident"))


def test_commands_attach_to_the_resident_graph_and_start_one_only_when_none_runs(folder):
    assert folder.home.status() is None  # the ingest and the index stopped the servers they started
    started = folder.run("graph", "start", "--port", str(free_port()))
    assert started.returncode == 0, started.stderr
    try:
        resident = folder.home.status()
        assert resident is not None and resident.detached
        assert "resident" in folder.run("graph", "status").stdout
        assert folder.run("server", "status").stdout == folder.run("graph", "status").stdout  # the earlier name
        before = folder.servers_started()
        kept = folder.data / "cache" / "citing-sentences.npz"
        assert not kept.exists()  # no command that started its own server kept the citing sentences
        for args in (("paper", "77490025"), ("stats", "--json"), ("cite", "--context", CONTEXT)):
            done = folder.run(*args)
            assert done.returncode == 0, done.stderr[-2000:]
        assert folder.servers_started() == before  # each attached to the resident server
        assert kept.is_file()  # cite on the resident graph kept them (the sample has none: that it has none)
        assert f"its running server, pid {resident.pid}" in folder.run("paper", "77490025").stderr
        assert folder.home.status() == resident  # and left it running
    finally:
        assert folder.run("graph", "stop").stdout.strip() == "stopped"
    before = folder.servers_started()
    alone = folder.run("paper", "77490025")
    assert alone.returncode == 0 and "its running server" not in alone.stderr
    assert folder.servers_started() == before + 1  # none ran: the command started its own …
    assert folder.home.status() is None  # … and stopped it


def test_commands_attach_to_the_graph_that_serve_keeps(folder, tmp_path):
    service = folder.serve(free_port(), tmp_path / "serve")
    try:
        kept = folder.home.status()
        assert kept is not None and not kept.detached
        assert "kept by the command that started it" in folder.run("graph", "status").stdout
        before = folder.servers_started()
        for args in (("paper", "77490025"), ("cite", "--context", CONTEXT)):
            done = folder.run(*args)
            assert done.returncode == 0, done.stderr[-2000:]
        assert folder.servers_started() == before
        assert folder.home.status() == kept
    finally:
        service.terminate()
        service.wait(timeout=60)
    assert folder.home.status() is None  # the service stopped the server it had started


def test_no_engine_line_reaches_a_commands_output(folder, tmp_path):
    """ArcadeDB's log goes to ``<data dir>/arcadedb/server.log``; the Lucene JVM's (Anserini's
    log4j2, Lucene's java.util.logging, SLF4J) to ``<data dir>/logs/lucene.log``: never to the
    terminal, whether a command starts the graph server, attaches to one or serves."""
    for done in folder.made:
        assert_no_engine_line(done)
    for args in (("stats",), ("search", "apoptosis resistance"), ("paper", "77490025"), ("cite", "--context", CONTEXT)):
        assert_no_engine_line(folder.run(*args))
    started = folder.run("graph", "start", "--port", str(free_port()))
    try:
        assert_no_engine_line(started)
        assert_no_engine_line(folder.run("graph", "status"))
        assert_no_engine_line(folder.run("search", "apoptosis resistance"))
        service = folder.serve(free_port(), tmp_path / "serve")
        service.terminate()
        service.wait(timeout=60)
        for stream in ("out", "err"):
            assert engine_lines((tmp_path / f"serve.{stream}").read_text(errors="replace")) == [], stream
    finally:
        assert_no_engine_line(folder.run("graph", "stop"))
    assert STARTED in folder.home.log_file.read_text(errors="replace")
    lucene_log = (folder.data / "logs" / "lucene.log").read_text(errors="replace")
    assert "MemorySegmentIndexInput" in lucene_log  # Lucene's java.util.logging record, routed there
