"""Papers given more than once in an ingest (``on_duplicate``): which record of each to write.

Within or across files, the records of one paper merge as the MERGEs do (``merge``), the
first or the last one is kept, or the ingest stops at the second (``error``); for ``first``
and ``error`` a paper the graph holds from an earlier ingest is the first.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeGuard

from ..errors import Location, Problem
from ..graph import GraphStore
from .records import DuplicatePolicy, Paper, Record, SnapshotPaper


class Duplicates:
    """The paper ids an ingest has read, to count repeats and pick the record to write.

    Each id maps to one int (file number and line) rather than a :class:`Location`: this
    dict is the one thing that grows with the input.

    With ``graph`` (policies ``first`` and ``error``) a paper the graph already holds from an
    earlier ingest is a repeat too: ``first`` keeps the graph's record (every record of it in
    the input is skipped and counted), ``error`` refuses the first one. The graph is asked
    about an id at its first record in the input, ``batch`` ids a query; records at or
    before ``committed`` (a file's resume point) were written by this same ingest's earlier
    run, so their ids are not asked about.
    """

    _GRAPH = -1  # the occurrence to write of an id the graph holds: none

    def __init__(
        self,
        policy: DuplicatePolicy,
        graph: GraphStore | None = None,
        committed: dict[Path, int] | None = None,
        batch: int = 10_000,
    ):
        self.policy = policy
        self.count = 0
        self._files: dict[Path, int] = {}
        self._first: dict[str, int] = {}
        self._kept: dict[str, int] = {}  # repeated ids: the occurrence to write
        self._graph = graph if policy in ("first", "error") else None
        self._committed = committed or {}
        self._batch = batch
        self._unasked: dict[str, int] = {}  # first records whose ids the graph is yet to be asked about

    @staticmethod
    def tracks(record: Record | None) -> TypeGuard[Paper]:
        """Papers are; a snapshot's restatement of a paper replaces it by design, so is not."""
        return isinstance(record, Paper) and not isinstance(record, SnapshotPaper)

    def _pack(self, where: Location) -> int:
        return self._files.setdefault(where.path, len(self._files)) << 40 | where.line

    def _unpack(self, packed: int) -> Location:
        return Location(list(self._files)[packed >> 40], packed & (1 << 40) - 1)

    def see(self, paper: Paper, where: Location) -> list[Problem]:
        """Note ``paper`` read at ``where``; the Problems of the repeats that are errors (one
        the graph holds may be found a batch later: :meth:`flush` ends the reading)."""
        here = self._pack(where)
        first = self._first.setdefault(paper.id, here)
        if first == here:
            if self._graph is not None and where.line > self._committed.get(where.path, 0):
                self._unasked[paper.id] = here
                if len(self._unasked) >= self._batch:
                    return self.flush()
            return []
        self.count += 1
        earlier = self.flush() if paper.id in self._unasked else []  # the graph's record comes first
        if self._kept.get(paper.id) == self._GRAPH:
            return earlier
        self._kept[paper.id] = here if self.policy == "last" else first
        if self.policy == "error":
            return [*earlier, Problem(where, None, f"duplicate paper id {paper.id!r} (first at {self._unpack(first)})")]
        return earlier

    def flush(self) -> list[Problem]:
        """Ask the graph about the ids not asked about yet: none of their records is written;
        with policy ``error`` each is a Problem at its first record."""
        asked, self._unasked = self._unasked, {}
        if not asked or self._graph is None:
            return []
        present = sorted(
            (asked[row["id"]], row["id"]) for row in self._graph.rows("ingest/papers_present", ids=list(asked))
        )
        for _, paper_id in present:
            self._kept[paper_id] = self._GRAPH
        self.count += len(present)
        if self.policy != "error":
            return []
        return [
            Problem(
                self._unpack(here),
                None,
                f"duplicate paper id {paper_id!r} (already in the graph from an earlier ingest)",
            )
            for here, paper_id in present
        ]

    def write(self, paper: Paper, where: Location) -> bool:
        """Whether to write this record of ``paper`` (all of them with policy ``merge``)."""
        if self.policy == "merge" or paper.id not in self._kept:
            return True
        return self._kept[paper.id] == self._pack(where)
