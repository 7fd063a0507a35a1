"""A real `citegraph serve` on the ACL-200 graph, for the HTTP and explorer tests.

The graph is ACL-200 plus the bundled taxonomies and three small papers with MAG fields
and arXiv categories (ACL-200 has neither), citing ACL papers and each other, so that an
ego network shows every kind of neighbour. The server is the CLI in a child process,
with its own data folder (its BM25 index) and the session's ArcadeDB server as its graph.
"""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from citegraph.graph import open_store
from citegraph.graph.processes import free_port
from citegraph.ingest import formats, ingest
from citegraph.ingest.sources.taxonomy import BUNDLED
from citegraph.retrieval.bm25 import build_bm25
from citegraph.retrieval.corpus import documents
from citegraph.retrieval.spec import BM25
from citegraph.service.serving import wait_serving

from conftest import ACL200, write_jsonl

EXTRA = [
    {
        "id": "X1",
        "title": "Cross-lingual transfer of dependency parsers with typological features",
        "year": 2013,
        "fields": ["Computer Science", "Mathematics"],
        "categories": ["cs.CL"],
        "authors": ["Ada Lovelace"],
        "references": ["P12-1066", "D10-1120", "W06-2920"],
    },
    {
        "id": "X2",
        "title": "Selective parameter sharing for multilingual dependency parsing",
        "year": 2014,
        "fields": ["Computer Science"],
        "categories": ["cs.CL", "cs.LG"],
        "references": ["X1", "P12-1066", "D11-1006"],
    },
    {
        "id": "X3",
        "title": "Retrieval of parsing papers by citation links",
        "year": 2014,
        "fields": ["Computer Science"],
        "categories": ["cs.IR"],
        "references": ["X1", "P07-2045"],
    },
]


class Service(NamedTuple):
    url: str
    process: subprocess.Popen
    data_dir: Path  # its BM25 index is under data_dir/indexes


@contextmanager
def acl_service(arcade_server, server_config, folder: Path):
    """Load the graph, index it, start `citegraph serve`; yields the :class:`Service`."""
    arcade_server.recreate_database()
    extra = write_jsonl(folder / "extra.jsonl", EXTRA)
    data_dir = folder / "data"
    with open_store(server_config) as store:
        ingest(store, formats.get("taxonomy"), [BUNDLED])
        ingest(store, formats.get("acl200"), [ACL200])
        ingest(store, formats.get("jsonl"), [extra])
        build_bm25(list(documents(store)), data_dir / "indexes" / BM25().folder, backend="bm25s")
    env = {
        **os.environ,
        "CITEGRAPH_URI": server_config.uri,
        "CITEGRAPH_USER": server_config.user,
        "CITEGRAPH_PASSWORD": server_config.password,
        "CITEGRAPH_DATABASE": server_config.database,
        "CITEGRAPH_DATA_DIR": str(data_dir),
    }
    with serving(env, folder / "serve.log") as (url, process):
        yield Service(url, process, data_dir)


@contextmanager
def serving(env: dict, log: Path, *args: str):
    """`citegraph serve ARGS` on a free port with ``env``, its output in ``log``: yields (url, process)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "citegraph.cli", "serve", "--port", str(port), *args],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_serving(url, process, log=log)
            yield url, process
        finally:
            process.terminate()
            process.wait(timeout=30)
