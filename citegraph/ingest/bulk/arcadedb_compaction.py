"""Compaction of the ArcadeDB database's LSM-tree indexes after a bulk load, run in its own
process: ``python -m citegraph.ingest.bulk.arcadedb_compaction DATABASE_DIR HEAP`` (started by
:func:`citegraph.ingest.bulk.bulk_ingest` through ``load_offline`` once the schema is
applied; prints what it compacted as one JSON line).

An index created over a loaded graph keeps its entries in mutable pages, each sorted on its
own, and a lookup searches them one after the other. ArcadeDB merges them into a compacted
series in the background, past ``arcadedb.indexCompactionMinPagesSchedule`` pages, but
after the 200k and 2M bulk loads here it had not done so for ``Paper(id)``: 16 and 153 pages
(a scratch count). Compacted, the 2M graph's lookups in ``benchmarks/recommend.py`` went
from 2.2 to 0.9 ms, its enrichment of a top 100 from 10.3 to 6.1 ms and the graph server's
CPU per ``/recommend`` from 62.7 to 45.1 ms (``benchmarks/README.md``). A process of its own
for the reason the loader has one (:mod:`citegraph.ingest.bulk.arcadedb_loader`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def compact(database: Path, heap: str | None = None) -> dict[str, list[int]]:
    """Compact every LSM-tree index of the database files at ``database`` (closed by every
    server) that holds more than one mutable page. Returns, per bucket index compacted, its
    mutable pages before and after."""
    import arcadedb_embedded as arcadedb
    import jpype

    db = arcadedb.open_database(str(database), jvm_kwargs={"heap_size": heap} if heap else None)
    lsm_tree = jpype.JClass("com.arcadedb.index.lsm.LSMTreeIndex")  # the JVM runs once a database is open
    compacted = {}
    try:
        for index in db.get_java_database().getSchema().getIndexes():  # a type's, and each of its buckets'
            if isinstance(index, lsm_tree) and (before := _pages(index)) > 1 and index.scheduleCompaction():
                index.compact()
                compacted[str(index.getName())] = [before, _pages(index)]
    finally:
        db.close()
    return compacted


def _pages(index) -> int:
    return int(str(index.getStats().get("pages") or 0))


if __name__ == "__main__":  # python -m citegraph.ingest.bulk.arcadedb_compaction DATABASE_DIR HEAP
    print(json.dumps(compact(Path(sys.argv[1]), sys.argv[2] or None)))
