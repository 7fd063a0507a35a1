"""Shared fixtures: one real ArcadeDB Bolt server for the session, a clean graph per test.

Tests marked ``server`` get the graph through Bolt exactly as users do. ``SHARED`` is the
reference data folder of the workplace (real samples of every input format). The helpers
every test file imports from here (``from conftest import …``): ``ACL200`` (the bundled
graph), :func:`shared`, :func:`citegraph` / :func:`citegraph_ok` (the command line in a
child process, as users run it), :func:`write_jsonl` and :func:`begins` (the transactions the
driver began, from its Bolt log).
"""

from __future__ import annotations

import ast
import json
import os
import string
import subprocess
import sys
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import pytest

from citegraph.config import Config
from citegraph.graph import ArcadeServer, GraphStore, open_store
from citegraph.graph.arcadedb import DATABASE, USER

ACL200 = Path(__file__).resolve().parents[1] / "citegraph" / "data" / "acl200"
#: The day the ``acl`` fixture's graph is ingested "on" (its papers' ``ingested``): before the
#: dates the watch tests ask about, so that only papers ingested later count as new.
ACL_INGESTED = date(2013, 12, 1)
SHARED = Path(os.environ.get("CITEGRAPH_SHARED", Path(__file__).resolve().parents[2] / "shared" / "data"))


def shared(relative: str) -> Path:
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"reference data {path} is not available")
    return path


def citegraph(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """``citegraph ARGS`` in a child process (output captured as text); its exit code is the caller's to check."""
    return subprocess.run(
        [sys.executable, "-m", "citegraph.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def citegraph_ok(*args: str, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """:func:`citegraph` that must succeed (the failure shows the end of its stderr)."""
    done = citegraph(*args, env=env, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@contextmanager
def small_disk(folder: Path, size: str):
    """A tmpfs of ``size`` mounted at ``folder/disk`` (root only: the test skips otherwise) and
    the environment of an embedded graph whose data folder is on it: yields (disk, env)."""
    disk = folder / "disk"
    disk.mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(disk)], capture_output=True
    ).returncode:
        pytest.skip("mounting a tmpfs needs root")
    try:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("CITEGRAPH_URI", "CITEGRAPH_PASSWORD", "CITEGRAPH_DATABASE", "CITEGRAPH_USER")
        }
        yield disk, {**env, "CITEGRAPH_DATA_DIR": str(disk / "data"), "CITEGRAPH_HEAP": "512m"}
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def begins(caplog) -> list[dict]:
    """The metadata of each transaction the neo4j driver began, as it logs the Bolt messages
    it sends (``C: BEGIN {...}``, at DEBUG on ``neo4j.io``): ``'mode': 'r'`` for a read, no
    mode for a write, ``tx_timeout`` in milliseconds, ``tx_metadata``."""
    sent = [record.getMessage() for record in caplog.records if record.name == "neo4j.io"]
    return [ast.literal_eval(message.split(" C: BEGIN ", 1)[1]) for message in sent if " C: BEGIN " in message]


def write_jsonl(path: Path, rows: list) -> Path:
    """One row a line: a dict as JSON, a string as it is (a bad line on purpose)."""
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(params=[pytest.param("bm25s"), pytest.param("lucene", marks=pytest.mark.lucene)])
def backend(request) -> str:
    """A BM25 backend: each test that takes it runs on both (Lucene only with the [lucene] extra)."""
    if request.param == "lucene":
        pytest.importorskip("pyserini", reason="needs the [lucene] extra")
    return request.param


@pytest.fixture(scope="session")
def arcade_server(tmp_path_factory) -> ArcadeServer:
    server = ArcadeServer(tmp_path_factory.mktemp("arcadedb"), heap="1g")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def server_config(arcade_server: ArcadeServer, tmp_path_factory) -> Config:
    info = arcade_server.status()
    return Config(
        uri=info.uri,
        user=USER,
        password=arcade_server.password(),
        database=DATABASE,
        data_dir=tmp_path_factory.mktemp("data"),
    )


@pytest.fixture
def store(arcade_server: ArcadeServer, server_config: Config) -> GraphStore:
    """A store on the session server, on a database created afresh for the test."""
    arcade_server.recreate_database()
    with open_store(server_config) as store:
        yield store


@pytest.fixture
def server_env(server_config: Config, monkeypatch) -> dict[str, str]:
    """Environment that points a citegraph subprocess at the session server."""
    env = {
        "CITEGRAPH_URI": server_config.uri,
        "CITEGRAPH_USER": server_config.user,
        "CITEGRAPH_PASSWORD": server_config.password,
        "CITEGRAPH_DATABASE": server_config.database,
        "CITEGRAPH_DATA_DIR": str(server_config.data_dir),
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return {**os.environ, **env}


TINY_BERT_WORDS = (
    "the of and a in to is for on we with by from that this are graph citation citations paper papers "
    "model models neural network networks recommend recommendation retrieval dense sparse text scientific "
    "protein cell cells gene genes cancer patients study results method methods data learning"
).split()


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    """A 2-layer, 32-wide BERT with random weights and a small WordPiece vocabulary."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    folder = tmp_path_factory.mktemp("models") / "tiny-bert"
    folder.mkdir()
    letters = [*string.ascii_lowercase, *string.digits]
    tokens = dict.fromkeys(
        [
            "[PAD]",
            "[UNK]",
            "[CLS]",
            "[SEP]",
            "[MASK]",
            *letters,
            *(f"##{c}" for c in letters),
            *".,;:!?()-'\"",
            *TINY_BERT_WORDS,
        ]
    )
    (folder / "vocab.txt").write_text("\n".join(tokens) + "\n", encoding="utf-8")
    vocab = {t: i for i, t in enumerate((folder / "vocab.txt").read_text(encoding="utf-8").splitlines())}
    BertTokenizer(vocab=vocab).save_pretrained(folder)
    torch.manual_seed(0)
    # initializer_range 0.2 instead of BERT's 0.02: with tiny weights every text maps to nearly the
    # same vector (pairwise cosine > 0.9999) and no test below could tell documents apart
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=64,
        initializer_range=0.2,
    )
    BertModel(config).save_pretrained(folder)
    return folder


def pytest_collection_modifyitems(items):
    """Tests that touch the session server are marked ``server``, those that drive Chromium
    ``browser``, without saying so (``make test-fast`` leaves both out)."""
    for item in items:
        if {"arcade_server", "server_config", "store", "server_env"} & set(item.fixturenames):
            item.add_marker(pytest.mark.server)
        if "browser" in item.fixturenames:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="module")
def acl(arcade_server, server_config):
    """A recommender on ACL-200 in a fresh database, with a BM25 index of its titles in the
    session data dir (test_recommend, test_library)."""
    from citegraph.ingest import IngestOptions, formats, ingest
    from citegraph.recommend import Recommender
    from citegraph.retrieval.bm25 import build_bm25
    from citegraph.retrieval.corpus import documents
    from citegraph.retrieval.spec import BM25

    arcade_server.recreate_database()
    with open_store(server_config) as store:
        ingest(store, formats.get("acl200"), [ACL200], IngestOptions(clock=lambda: ACL_INGESTED))
        bm25 = build_bm25(
            list(documents(store)), Path(server_config.data_dir) / "indexes" / BM25().folder, backend="bm25s"
        )
        yield Recommender(store, [bm25])
