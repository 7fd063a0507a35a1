"""The ArcadeDB bulk loader, run in its own process: ``python -m citegraph.ingest.arcadedb_loader
DATABASE_DIR HEAP WORK`` (started by :meth:`citegraph.graph.ArcadeDBBackend.load_offline`
while the server has the database closed; prints what it created as one JSON line).

It opens the database files with the ``arcadedb-embedded`` wheel and creates every vertex
and edge of the graph built in ``WORK`` (:mod:`citegraph.ingest.build`) through
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

from ..errors import CitegraphError
from ..graph.backend import EXPLAINED_EXIT
from .build import BuiltGraph, statements

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
                rows = con.cursor().execute(sql["vertex_rows"], {"grp": group.name})
                while chunk := rows.fetchmany(_CHUNK):
                    rids = vertex_batcher.createVerticesJson(
                        batch, vertex_type(group.labels), f"[{','.join(row for _, row in chunk)}]"
                    )
                    con.execute(sql["add_rids"], {"idx": [i for i, _ in chunk], "rid": str(rids).split(";")})
                    created += len(chunk)
            for edge in edges:
                rows = con.execute(sql["edge_rows" if edge.props else "edge_ends"], {"grp": edge.name})
                while chunk := rows.fetchmany(_CHUNK):
                    if edge.props:
                        edge_batcher.newEdgesJson(batch, edge.type, f"[{','.join(row for (row,) in chunk)}]")
                    else:
                        sources, targets = zip(*chunk)
                        edge_batcher.newEdgesJoined(batch, ";".join(sources), edge.type, ";".join(targets))
            batch.close()
    finally:
        db.close()
    return {"vertices": created, "edges": int(batch.getTotalEdgesCreated())}


if __name__ == "__main__":  # python -m citegraph.ingest.arcadedb_loader DATABASE_DIR HEAP WORK
    try:
        print(json.dumps(load(Path(sys.argv[3]), Path(sys.argv[1]), sys.argv[2] or None)))
    except CitegraphError as exc:  # the caller says this line alone (EXPLAINED_EXIT)
        print(f"\n{exc}", file=sys.stderr)
        sys.exit(EXPLAINED_EXIT)
