"""Bulk ingest into an empty graph: ArcadeDB's batch loader, or CSV files for neo4j-admin.

The streaming ingest (:func:`citegraph.ingest.pipeline.ingest`) is resumable and safe on a
populated graph; a *fresh* graph loads about 7x faster in bulk (433 s against about 60 s
for 200k papers / 2M citations into ArcadeDB here, ``benchmarks/ingest.py``):

1. **Read once and build** (:mod:`citegraph.ingest.bulk.duckdb_build`): validated exactly as the
   streaming ingest validates, spilled as flat rows and built by DuckDB into the tables
   the loaders read; bad input raises before anything reaches the database.
2. **Load.** *ArcadeDB* (:func:`bulk_ingest`): the backend closes the database, the loader
   process (:mod:`citegraph.ingest.bulk.arcadedb_loader`) writes it with ``GraphBatch``, the
   backend reopens it. *Neo4j* (:func:`citegraph.ingest.bulk.neo4j_admin.export_neo4j_admin`):
   CSV files and the ``neo4j-admin database import full`` command that loads them.
3. **Complete** over Bolt with the same Cypher as the streaming ingest: the schema of
   ``cypher/schema.cypher``, whose indexes are so built once from the loaded data. The
   ArcadeDB loader has written ``eligible`` (the MDCR prefilter, decided while building)
   with every paper; after neo4j-admin, :func:`complete_import` also marks it over Bolt.
4. **Compact** (ArcadeDB): the backend closes the database again and
   :mod:`citegraph.ingest.bulk.arcadedb_compaction` merges each index's pages, which a lookup
   would otherwise search one by one (Neo4j builds its indexes whole).

``IngestOptions.batch_size`` and ``restart`` do not apply (there are no batches, and an
empty graph has nothing to resume); the CLI refuses them with ``--bulk``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import tempfile
import time
from pathlib import Path

from ...batches import batched
from ...errors import CitegraphError, ServerError
from ...graph import ArcadeDBBackend, GraphStore, Write
from ...graph.schema import apply_schema
from .. import pipeline
from ..formats import Format
from ..pipeline import IngestOptions, IngestSummary, NoProgress, Progress, prefilter
from ..writer import GraphWriter
from . import arcadedb_compaction, arcadedb_loader
from .duckdb_build import DEFAULT_MEMORY, build

BULK_MARKER = "bulk-loading.json"  # in the server's home while a bulk load runs; left by a killed one


def complete_import(store: GraphStore, options: IngestOptions = IngestOptions()) -> dict[str, int]:
    """After a bulk load: the schema, then the MDCR prefilter; returns the prefilter counts.
    Run it on Neo4j too, after ``neo4j-admin``.

    The schema comes first because the prefilter finds its papers by id, in batches (one
    statement over millions of papers deadlocks on ArcadeDB): without the unique index
    every lookup would scan.
    """
    apply_schema(store)
    return prefilter(store, options.prefilter)


def bulk_ingest(
    backend: ArcadeDBBackend,
    store: GraphStore,
    fmt: Format,
    paths: list[Path],
    options: IngestOptions = IngestOptions(),
    progress: Progress | None = None,
    *,
    heap: str | None = None,
    memory: str = DEFAULT_MEMORY,
) -> IngestSummary:
    """Load ``paths`` into the empty graph of the embedded ``backend`` (``store`` speaks to it).

    Produces the graph the streaming :func:`~citegraph.ingest.pipeline.ingest` would,
    marks the files ingested (so a streaming ingest of them skips them) and returns the
    same summary. ``heap`` is the loader's JVM heap (default: the server's, else 4g),
    ``memory`` DuckDB's memory_limit for the build.
    Raises before touching the database if the graph is not empty or the input is bad.
    """
    progress = progress or NoProgress()
    started = time.perf_counter()
    summary = IngestSummary(format=fmt.name)
    files = [file for path in paths for file in fmt.files(Path(path))]
    summary.files = len(files)
    for leftover in backend.work_root.glob("bulk-*"):  # of a killed bulk ingest (the CLI holds the ingest lock)
        if leftover.is_dir():
            shutil.rmtree(leftover, ignore_errors=True)
    if store.value("bulk/any_node"):
        interrupted = interrupted_bulk(backend.work_root)
        raise CitegraphError(
            "the bulk ingest loads an empty graph only, and this one holds nodes: "
            "ingest without --bulk, or start from an empty database" + (f". Note: {interrupted}" if interrupted else "")
        )
    marker = backend.work_root / BULK_MARKER
    with tempfile.TemporaryDirectory(prefix="bulk-", dir=backend.work_root) as work:
        graph, lines = build(fmt, files, options, progress, summary, Path(work), memory)
        marker.write_text(json.dumps({"pid": os.getpid(), "format": fmt.name, "paths": _resolved(paths)}))
        progress.start("loading", None)
        try:
            output = backend.load_offline(
                arcadedb_loader.__name__, str(graph.work), heap=heap, log=graph.work / "loader.log"
            )
        finally:
            progress.finish()
        summary.write = graph.write_stats()
        loaded = json.loads(output.splitlines()[-1])
        expected = {"vertices": summary.write.nodes_created, "edges": summary.write.relationships_created}
        if loaded != expected:
            raise ServerError(
                f"the ArcadeDB bulk loader created {loaded} where the graph has {expected}: "
                "recreate the database and report this"
            )
        for part in batched(graph.merges(), options.batch_size):  # Cypher moves citations; no loader does
            GraphWriter(store).write(part)
    if options.external == "drop":
        summary.external_dropped = summary.write.external_created
    progress.start("indexing", None)
    try:
        if graph.manifest["merges"]:  # moved citations change counts the build marked eligibility by
            summary.eligibility = complete_import(store, options)
        else:  # the loader wrote eligible with every paper, and the build counted it: the indexes are built once
            apply_schema(store)
            summary.eligibility = graph.manifest["eligibility"]
    finally:
        progress.finish()
    store.write(
        *(
            Write(
                "ingest/checkpoint_set",
                {"key": pipeline.checkpoint_key(fmt, file), "file": str(file), "line": lines[file], "done": True},
            )
            for file in files
        )
    )
    progress.start("compacting the indexes", None)
    try:
        backend.load_offline(arcadedb_compaction.__name__, heap=heap, log=backend.work_root / "compaction.log")
    finally:
        progress.finish()
    marker.unlink()
    summary.seconds = time.perf_counter() - started
    return summary


def interrupted_bulk(work_root: Path) -> str | None:
    """What to tell the user while a bulk load is under way or after one was killed (its
    marker file outlives it): the graph may be half-loaded — vertices and edges without
    schema, prefilter or checkpoints — and a streaming ingest of the same input repairs
    it exactly (its MERGEs complete what is there; it adds the rest)."""
    try:
        about = json.loads((work_root / BULK_MARKER).read_text())
    except (FileNotFoundError, ValueError):
        return None
    try:
        os.kill(about["pid"], 0)
        return f"a bulk ingest (pid {about['pid']}) is loading the graph right now"
    except ProcessLookupError:
        pass
    except PermissionError:
        return None
    return f"a bulk ingest (pid {about['pid']}) was interrupted while loading: {half_loaded(about)}"


def half_loaded(about: dict) -> str:
    """What to do with the graph of a bulk load stopped while loading (``about``: its marker)."""
    command = shlex.join(["citegraph", "ingest", about["format"], *about["paths"]])
    return (
        f"the graph may be half-loaded, without schema, prefilter or checkpoints. Run `{command}` (without "
        "--bulk): the streaming ingest completes it exactly. Or empty it with `citegraph clear --yes`."
    )


def _resolved(paths: list[Path]) -> list[str]:
    return [str(Path(p).resolve()) for p in paths]


def repaired_bulk(work_root: Path, fmt: Format, paths: list[Path]) -> None:
    """Forget an interrupted bulk ingest once a streaming ingest of its input has run."""
    marker = work_root / BULK_MARKER
    with contextlib.suppress(FileNotFoundError, ValueError):
        about = json.loads(marker.read_text())
        if about["format"] == fmt.name and about["paths"] == _resolved(paths):
            marker.unlink()
