"""Compaction of the ArcadeDB database's LSM-tree indexes after a bulk load, run in its own
process: ``python -m citegraph.ingest.arcadedb_compaction DATABASE_DIR HEAP`` (started by
:func:`citegraph.ingest.bulk.bulk_ingest` through ``load_offline`` once the schema is
applied; prints what it compacted as one JSON line).

An index created over a loaded graph keeps its entries in mutable pages, each sorted on its
own, and a lookup searches them one after the other. ArcadeDB merges them into a compacted
series in the background, past ``arcadedb.indexCompactionMinPagesSchedule`` pages, but
after the 200k and 2M bulk loads here it had not done so for ``Paper(id)``: 16 and 153 pages.
One hundred lookups by id (``recommend/features``) took 1.3 ms at 200k and 5.8 ms at 2M,
and 1.3 ms at 2M once compacted (4.3 s); the enrichment of a top 100 went from 9.0 to 4.3
ms (``benchmarks/README.md``). A process of its own for the reason the loader has one
(:mod:`citegraph.ingest.arcadedb_loader`).
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


if __name__ == "__main__":  # python -m citegraph.ingest.arcadedb_compaction DATABASE_DIR HEAP
    print(json.dumps(compact(Path(sys.argv[1]), sys.argv[2] or None)))
