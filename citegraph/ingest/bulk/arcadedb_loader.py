"""The ArcadeDB bulk loader, run in its own process: ``python -m citegraph.ingest.bulk.arcadedb_loader
DATABASE_DIR HEAP WORK`` (started by :meth:`citegraph.graph.ArcadeDBBackend.load_offline`
while the server has the database closed; prints what it created as one JSON line).

It opens the database files with the ``arcadedb-embedded`` wheel and creates every vertex
and edge of the graph built in ``WORK`` (:mod:`citegraph.ingest.bulk.duckdb_build`) through
ArcadeDB's ``GraphBatch``, the engine's bulk graph API, which its own Neo4j importer uses
too. A process of its own, because the wheel starts a JVM through JPype and pyserini's
JVM (pyjnius) cannot share a process with it. ArcadeDB's ``IMPORT DATABASE`` of the same
graph as Neo4j-export JSONL on the running server is slower (45 s against 33 s for
200k/2M, case ``import`` of ``benchmarks/ingest.py``: it parses the whole file three times;
through the HTTP API it also needs ``autoCommit`` off, or it runs out of a 4 GB heap) and
cannot give the same graph: it sets ``id`` on every vertex and puts every type under a
common supertype with a unique index on ``id``.

The JVM filled a 4 GB heap at 200k papers / 2M citations and needed 8 GB at 2M/20M.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ...errors import CitegraphError
from ...graph.backend import EXPLAINED_EXIT
from ...heavy import lazy
from .duckdb_build import BuiltGraph, statements

pa, pc = lazy("pyarrow"), lazy("pyarrow.compute")
_CHUNK = 100_000  # vertices or edges per GraphBatch call
# GraphBatch commits every this many records: with its default (one commit per flush) the
# update of every vertex's edge-list heads at close ran out of an 8 GB heap at 2M papers /
# 20M citations; with it the load takes 8 GB and scales linearly from 200k/2M.
_COMMIT_EVERY = 50_000


def vertex_type(labels: tuple[str, ...]) -> str:
    """The ArcadeDB type a Cypher CREATE gives a node of these labels: 'External~Paper' for (:Paper:External)."""
    return "~".join(sorted(labels))


def _create_types(schema, label_sets: set[tuple[str, ...]], edge_types: set[str]) -> None:
    """The types a Cypher CREATE would have made: one per label set, a multi-label type under each label."""
    for labels in sorted(label_sets, key=lambda labels: (len(labels), labels)):
        name = vertex_type(labels)
        if len(labels) == 1:
            schema.get_or_create_vertex_type(name)
        elif not schema.exists_type(name):
            created = schema.create_vertex_type(name)
            for parent in sorted(labels):
                schema.get_or_create_vertex_type(parent)
                created.addSuperType(parent)
    for name in sorted(edge_types):
        schema.get_or_create_edge_type(name)


def load(work: Path, database: Path, heap: str | None = None) -> dict[str, int]:
    """Load the built graph in ``work`` into the ArcadeDB database files at ``database``
    (closed by every server) through ``GraphBatch``. Returns how many vertices and edges
    ArcadeDB says it created.

    Rows cross into Java as one JSON text per chunk through the wheel's bridge classes
    (``VertexBatcher``, ``EdgeBatcher``; the wheel is pinned to one version): the
    wheel's Python wrappers would fall back to one JPype call per edge for list-valued
    properties such as ``contexts``. The RIDs GraphBatch gives the vertices go back into
    the graph's DuckDB database, which joins them to the edges (``sql/arcadedb.sql``).
    DuckDB's results stream as Arrow batches whose texts Arrow joins: a Python tuple per
    row and a Python join of them took a quarter of the load at 200k papers.
    """
    import arcadedb_embedded as arcadedb
    import jpype

    graph = BuiltGraph.open(work)
    sql = statements("arcadedb")
    db = arcadedb.open_database(str(database), jvm_kwargs={"heap_size": heap} if heap else None)
    try:
        with graph.out_of_memory_said("reading the graph for the load"), graph.connect(read_only=False) as con:
            vertices, edges = graph.vertices(), graph.edges()
            _create_types(db.schema, {g.labels for g in vertices}, {g.type for g in edges})
            vertex_batcher = jpype.JClass("com.arcadedb.python.VertexBatcher")
            edge_batcher = jpype.JClass("com.arcadedb.python.EdgeBatcher")
            batch = (
                db.get_java_database()
                .batch()
                .withBidirectional(True)
                .withCommitEvery(_COMMIT_EVERY)
                .withExpectedEdgeCount(sum(g.count for g in edges))
                .build()
            )
            con.execute(sql["create"])
            created = 0
            for group in vertices:
                for chunk in _batches(con, sql["vertex_rows"], group.name):
                    rids = vertex_batcher.createVerticesJson(
                        batch, vertex_type(group.labels), f"[{_joined(chunk.column(1), ',')}]"
                    )
                    ridlist = pc.split_pattern(pa.scalar(str(rids)), ";").values
                    con.register("chunk", pa.table({"idx": chunk.column(0), "rid": ridlist}))
                    con.execute(sql["add_rids"])
                    con.unregister("chunk")
                    created += chunk.num_rows
            for edge in edges:
                for chunk in _batches(con, sql["edge_rows" if edge.props else "edge_ends"], edge.name):
                    if edge.props:
                        edge_batcher.newEdgesJson(batch, edge.type, f"[{_joined(chunk.column(0), ',')}]")
                    else:
                        edge_batcher.newEdgesJoined(
                            batch, _joined(chunk.column(0), ";"), edge.type, _joined(chunk.column(1), ";")
                        )
            batch.close()
    finally:
        db.close()
    return {"vertices": created, "edges": int(batch.getTotalEdgesCreated())}


def _batches(con, query: str, group: str):
    """``query``'s rows for ``group`` as Arrow record batches of :data:`_CHUNK` rows, streamed."""
    yield from (b for b in con.cursor().sql(query, params={"grp": group}).to_arrow_reader(_CHUNK) if b.num_rows)


def _joined(texts, separator: str) -> str:
    """An Arrow array of texts joined into one, by Arrow's kernel (no Python string per row)."""
    whole = pa.ListArray.from_arrays(pa.array([0, len(texts)], pa.int32()), texts)
    return pc.binary_join(whole, separator)[0].as_py()


if __name__ == "__main__":  # python -m citegraph.ingest.bulk.arcadedb_loader DATABASE_DIR HEAP WORK
    try:
        print(json.dumps(load(Path(sys.argv[3]), Path(sys.argv[1]), sys.argv[2] or None)))
    except CitegraphError as exc:  # the caller says this line alone (EXPLAINED_EXIT)
        print(f"\n{exc}", file=sys.stderr)
        sys.exit(EXPLAINED_EXIT)
