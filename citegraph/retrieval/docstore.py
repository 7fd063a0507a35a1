"""The corpus text beside the indexes, so that searching a built index needs no graph.

``citegraph index`` exports the corpus from the graph; on the way, every exported paper
is recorded in ``<indexes>/documents.sqlite`` (id, title, abstract, keywords). A search
shows titles from it, and a re-ranker reads the texts it encodes from it, without
starting the graph server (seconds) for a lookup of a few rows. Rows are upserted, so an
index over a subset (``--eligible-only``, ``--ids``) adds to what earlier exports wrote;
a paper deleted from the graph keeps its row, which nothing ranks any more.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import closing
from pathlib import Path

from .base import Document

FILE = "documents.sqlite"
_BATCH = 10_000


class DocStore:
    def __init__(self, indexes: Path):
        self.path = Path(indexes) / FILE

    def exists(self) -> bool:
        return self.path.is_file()

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)  # generators may move threads
        db.execute("CREATE TABLE IF NOT EXISTS doc (id TEXT PRIMARY KEY, title TEXT, abstract TEXT, keywords TEXT)")
        return db

    def recording(self, docs: Iterable[Document]) -> Iterator[Document]:
        """``docs`` passed through, each recorded (committed in batches, and at the end)."""
        with closing(self._connect()) as db:
            batch: list[tuple[str, str, str, str]] = []
            for doc in docs:
                batch.append((doc.id, doc.title, doc.abstract, doc.keywords))
                if len(batch) >= _BATCH:
                    self._upsert(db, batch)
                yield doc
            self._upsert(db, batch)

    @staticmethod
    def _upsert(db: sqlite3.Connection, batch: list) -> None:
        with db:
            db.executemany("INSERT OR REPLACE INTO doc VALUES (?, ?, ?, ?)", batch)
        batch.clear()

    def get(self, ids: Iterable[str]) -> Mapping[str, Document]:
        """The recorded documents among ``ids`` (absent ones are missing from the result)."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, Document] = {}
        if not wanted or not self.exists():
            return found
        with closing(self._connect()) as db:  # the ids as one JSON parameter: no limit on their number
            rows = db.execute(
                "SELECT id, title, abstract, keywords FROM doc WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(wanted),),
            )
            found.update((row[0], Document(*row)) for row in rows)
        return found
