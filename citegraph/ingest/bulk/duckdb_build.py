"""The bulk path's first half: the graph of the input files, built by DuckDB in a work folder.

The streaming ingest (:func:`citegraph.ingest.pipeline.ingest`) MERGEs batch after batch
over Bolt, which is what makes it resumable and safe on a populated graph. A *fresh* graph
needs none of that: the bulk path (:mod:`citegraph.ingest.bulk`) builds the whole graph
here and hands it to the database's own bulk loader (:mod:`citegraph.ingest.bulk.arcadedb_loader`,
or the CSV parts of :mod:`citegraph.ingest.bulk.neo4j_admin`).

1. **Read once** (Python): the pipeline validates the input with the format's reader (the
   same errors, the same rejects file), and a :class:`Spill` writes every record it reads
   as flat rows to newline-delimited JSON files, one per kind of row, ids as strings, each
   row numbered by its place in the input. The readers' work (field choices, repairs,
   OpenAlex's inverted abstracts, author names) is thus done once, by the code the
   streaming ingest runs; properties are the model's (:data:`citegraph.graph.model.GRAPH`).
   Nothing here grows with the input.
2. **Build** (DuckDB, ``sql/build.sql``): ids resolved, records of one element merged as
   the streaming MERGEs would, self-citations already dropped, ``citation_count`` counted
   and the MDCR prefilter's ``eligible`` decided, into the tables ``vertex`` and ``edge``
   of ``graph.duckdb``. DuckDB works under ``memory_limit`` (:data:`DEFAULT_MEMORY`) and
   spills to ``work/duckdb-tmp``: no id map is held in Python.
"""

from __future__ import annotations

import errno
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from functools import cache, partial
from pathlib import Path
from typing import IO, Any

import duckdb
import orjson

from ...errors import CitegraphError
from ...graph import model
from .. import pipeline
from ..formats import Format
from ..pipeline import ExternalPolicy, IngestOptions, IngestSummary, Prefilter, Progress
from ..records import (
    AcmConcept,
    ArxivCategory,
    CategoryMapping,
    Citation,
    Field,
    Item,
    MergedId,
    Paper,
    Record,
    Reference,
    SnapshotPaper,
    record_type,
)
from ..selection import Selection
from ..writer import WriteStats

#: One spill row as a JSON line. orjson, not `json`: encoding was near half of reading a corpus.
_line = partial(orjson.dumps, option=orjson.OPT_APPEND_NEWLINE)

#: DuckDB's memory_limit for the build, the loader's reads and the CSV export (it spills beyond it).
DEFAULT_MEMORY = "2GB"
#: What one DuckDB thread needs whatever the corpus: read_json's buffers and a vector's JSON
#: parses (200k papers: 250MB ran on 2 threads, 150MB only on 1, 64MB on none).
THREAD_MEMORY = 128 * 2**20
DATABASE = "graph.duckdb"
_SPILLS = ("papers", "authors", "cites", "wrote", "keys", "links", "merges")


@cache
def statements(name: str) -> dict[str, str]:
    """The named statements of ``sql/NAME.sql``: each block after a ``-- name: X`` line."""
    text = (Path(__file__).parent / "sql" / f"{name}.sql").read_text(encoding="utf-8")
    blocks = re.split(r"^-- name: (\w+)\n", text, flags=re.MULTILINE)
    return {blocks[i]: blocks[i + 1].strip() for i in range(1, len(blocks), 2)}


def run(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any]) -> duckdb.DuckDBPyConnection:
    """Each statement of ``sql`` with the parameters it names bound (DuckDB refuses unused ones)."""
    for statement in (s for s in sql.split(";\n") if s.strip()):
        used = {k: v for k, v in params.items() if re.search(rf"\${k}\b", statement)}
        con.execute(statement, used)
    return con


def connect(work: Path, memory: str = DEFAULT_MEMORY, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """The work folder's DuckDB database, bounded to ``memory`` and spilling into the work folder,
    with at most one thread per :data:`THREAD_MEMORY` of it."""
    (work / "duckdb-tmp").mkdir(exist_ok=True)
    con = duckdb.connect(str(work / DATABASE), read_only=read_only)
    try:
        con.execute("SET memory_limit = $m", {"m": memory})
    except duckdb.Error as exc:
        con.close()
        raise CitegraphError(
            f"the build's memory limit {memory!r} is not a size DuckDB takes (e.g. 2GB): {exc}"
        ) from None
    con.execute("SET temp_directory = $t", {"t": str(work / "duckdb-tmp")})
    con.execute("SET preserve_insertion_order = false")
    # no more threads than the limit feeds: each core's own thread would overrun a small one
    [(threads,)] = con.execute("SELECT current_setting('threads')").fetchall()
    con.execute("SET threads = $n", {"n": max(1, min(threads, memory_limit(con) // THREAD_MEMORY))})
    return con


def memory_limit(con: duckdb.DuckDBPyConnection) -> int:
    """The connection's memory limit in bytes."""
    [(limit,)] = con.execute("SELECT parse_formatted_bytes(current_setting('memory_limit'))").fetchall()
    return limit


@contextmanager
def out_of_memory_said(phase: str, work: Path, memory: str) -> Iterator[None]:
    """DuckDB running out of ``memory`` while doing ``phase`` (e.g. "building the graph"), said
    as one line with the remedy: its own message is a traceback ending in SQL settings."""
    try:
        yield
    except duckdb.OutOfMemoryException as exc:
        why = str(exc).splitlines()[0].removeprefix("Out of Memory Error: ")
        raise CitegraphError(
            f"DuckDB ran out of its memory limit, {memory}, while {phase} ({why}): run again with a "
            f"larger --build-memory; beyond the limit it spills to disk under {work.parent}, which "
            "needs free space too"
        ) from None


@contextmanager
def disk_full_said(work: Path) -> Iterator[None]:
    """The disk filling up while the graph is built, said as one line naming the folder and
    what to do: the errors themselves were Python's ENOSPC (writing the spill files) or
    DuckDB's "No space left on device" (its database, its log, its spill), in a traceback.
    The build comes before anything is loaded: the graph is untouched."""
    try:
        yield
    except (OSError, duckdb.Error) as exc:
        if getattr(exc, "errno", None) != errno.ENOSPC and "No space left on device" not in str(exc):
            raise
        raise CitegraphError(
            f"the disk holding {work.parent} filled up while the bulk ingest built the graph in a work folder "
            "there (removed again); nothing was loaded: free space on that disk (or give a --data-dir on "
            "another) and run the same command again"
        ) from None


@dataclass(frozen=True, slots=True)
class VertexGroup:
    """Nodes of one label set: rows ``vertex.grp = name``, keyed in ``space``."""

    name: str
    space: str
    labels: tuple[str, ...]
    count: int


@dataclass(frozen=True, slots=True)
class EdgeGroup:
    """Relationships of one type: rows ``edge.grp = name``; ``props``: whether they carry any."""

    name: str
    type: str
    source: str
    target: str
    count: int
    props: bool


_VERTICES = (
    ("paper", "Paper", ("Paper",)),
    ("stub", "Paper", ("Paper", model.GRAPH.stub_label)),
    ("author", "Author", ("Author",)),
    ("Field", "Field", ("Field",)),
    ("ArxivCategory", "ArxivCategory", ("ArxivCategory",)),
    ("AcmConcept", "AcmConcept", ("AcmConcept",)),
    ("Topic", "Topic", ("Topic",)),
)
_EDGES = (
    ("cites", "CITES", False),
    ("cites_with_contexts", "CITES", True),
    ("wrote", "WROTE", True),
    ("in_field", "IN_FIELD", False),
    ("in_category", "IN_CATEGORY", False),
    ("broader", "BROADER", False),
    ("maps_to", "MAPS_TO", False),
    ("broader_topic", "BROADER_TOPIC", False),
    ("in_topic", "IN_TOPIC", True),
)


@dataclass(frozen=True, slots=True)
class BuiltGraph:
    """A finished graph in a work folder: what a loader reads, in whichever process."""

    work: Path
    manifest: dict

    @classmethod
    def open(cls, work: Path) -> BuiltGraph:
        return cls(Path(work), json.loads((Path(work) / "manifest.json").read_text(encoding="utf-8")))

    def connect(self, read_only: bool = True) -> duckdb.DuckDBPyConnection:
        return connect(self.work, self.manifest["memory"], read_only)

    def out_of_memory_said(self, phase: str):
        """:func:`out_of_memory_said` with this graph's work folder and memory limit."""
        return out_of_memory_said(phase, self.work, self.manifest["memory"])

    def vertices(self) -> list[VertexGroup]:
        counts = self.manifest["counts"]
        return [VertexGroup(n, space, labels, counts[n]) for n, space, labels in _VERTICES if counts.get(n)]

    def edges(self) -> list[EdgeGroup]:
        counts, graph = self.manifest["counts"], model.GRAPH
        return [
            EdgeGroup(n, kind, graph.relationship(kind).source, graph.relationship(kind).target, counts[n], props)
            for n, kind, props in _EDGES
            if counts.get(n)
        ]

    def merges(self) -> Iterator[MergedId]:
        """OpenAlex's merged ids among the inputs, in input order: Cypher applies them after the load."""
        with open(self.work / "merges.jsonl", encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                yield MergedId(row["old"], row["into"])

    def write_stats(self) -> WriteStats:
        stats = self.manifest["stats"]
        return WriteStats(
            nodes_created=sum(g.count for g in self.vertices()),
            relationships_created=sum(g.count for g in self.edges()),
            external_created=self.manifest["stubs_found"],
            self_citations=stats["self_citations"],
            citations=stats["citations"],
            records=Counter(stats["records"]),
        )


class Spill:
    """Writes every record as flat rows (string ids, numbered in input order) for ``build.sql``."""

    def __init__(self, work: Path, ingested: date):
        self.work = work
        graph = model.GRAPH  # read when building, so that a property added to the model arrives
        self.paper, self.author, self.category, self.concept, self.topic = map(
            graph.node, ("Paper", "Author", "ArxivCategory", "AcmConcept", "Topic")
        )
        self.reference, self.in_topic = graph.relationship("CITES"), graph.relationship("IN_TOPIC")
        # every paper is new to the empty graph: it gets the run's date (papers.cypher: ON CREATE)
        self.run_props = {p.name: ingested.isoformat() for p in self.paper.properties if p.set_by == "run"}
        self.stats = WriteStats()
        self.seq = 0
        self.out: dict[str, IO[bytes]] = {name: open(work / f"{name}.jsonl", "wb") for name in _SPILLS}
        self._add: dict[type, Callable[[Any], None]] = {
            Paper: self._paper,
            Citation: lambda c: self._cite(c.citing_id, c.reference),
            Field: lambda f: self._key("Field", f.name),
            ArxivCategory: lambda c: self._key("ArxivCategory", c.code, self.category.values(c), merge=False),
            AcmConcept: self._concept,
            CategoryMapping: self._mapping,
            MergedId: lambda m: self._row("merges", old=m.old_id, into=m.into_id),
        }

    def _row(self, spill: str, **row: Any) -> None:
        self.seq += 1
        self.out[spill].write(_line({"s": self.seq, **row}))

    def add(self, record: Record) -> None:
        kind = record_type(record)
        self.stats.records[kind.__name__] += 1
        self._add[kind](record)

    def _paper(self, paper: Paper) -> None:
        values = self.paper.values(paper)
        self._row(
            "papers",
            id=paper.id,
            snapshot=isinstance(paper, SnapshotPaper),
            p={"id": paper.id, **values, **self.run_props},
            # what prefilter/mark reads, as Python and Cypher see it (trim(): whitespace at either end)
            year=True if "year" in values else None,
            title=values["title"].strip() != "" if "title" in values else None,
            abstract=len(values["abstract"]) if "abstract" in values else None,
        )
        for name in paper.fields:
            self._link("IN_FIELD", paper.id, name, "Field")
        for code in paper.categories:
            self._link("IN_CATEGORY", paper.id, code, "ArxivCategory")
        for link in paper.topics:
            for topic in link.lineage:
                self._key("Topic", topic.id, self.topic.values(topic))
                if topic.broader:
                    self._link("BROADER_TOPIC", topic.id, topic.broader, "Topic")
            self._row("links", type="IN_TOPIC", source=paper.id, target=link.topic_id, p=self.in_topic.values(link))
        for position, author in enumerate(paper.authors):  # paper_authors.cypher: ON CREATE SET name
            self._row("authors", id=author.id, p={"id": author.id, **self.author.values(author)})
            self._row("wrote", author=author.id, paper=paper.id, position=position)
        for ref in paper.references:
            self._cite(paper.id, ref)

    def _cite(self, citing_id: str, ref: Reference) -> None:
        if ref.cited_id == citing_id:
            self.stats.self_citations += 1
            return
        self.stats.citations += 1
        props = self.reference.values(ref)
        self._row("cites", citing=citing_id, cited=ref.cited_id, **({"p": props} if props else {}))

    def _key(self, space: str, key: str, props: dict | None = None, merge: bool = True) -> None:
        self._row("keys", space=space, key=key, p=props, merge=merge)

    def _link(self, kind: str, source: str, target: str, target_space: str) -> None:
        self._key(target_space, target)
        self._row("links", type=kind, source=source, target=target)

    def _concept(self, c: AcmConcept) -> None:
        self._key("AcmConcept", c.code, self.concept.values(c))
        for code in c.broader:
            self._link("BROADER", c.code, code, "AcmConcept")

    def _mapping(self, m: CategoryMapping) -> None:
        self._key("ArxivCategory", m.category, merge=False)
        for code in m.acm_codes:
            self._link("MAPS_TO", m.category, code, "AcmConcept")

    def close(self) -> None:
        for f in self.out.values():
            f.close()

    def finish(self, external: ExternalPolicy, prefilter: Prefilter, memory: str) -> BuiltGraph:
        """Build the graph in ``graph.duckdb`` from the spill files; write the manifest."""
        self.close()
        sql = statements("build")
        params: dict[str, Any] = {name: str(self.work / f"{name}.jsonl") for name in _SPILLS}
        params |= {
            "keep_stubs": external == "keep",
            "min_abstract": prefilter.min_abstract,
            "min_citations": prefilter.min_citations,
        }
        with connect(self.work, memory) as con:
            run(con, sql["read"], params)
            run(con, sql["papers"], params)
            if restated := con.execute(sql["restated"]).fetchone():
                raise CitegraphError(
                    f"work {restated[0]} is stated twice (a newer partition restates it): load the "
                    "older partitions with --bulk, then ingest the newer ones without it"
                )
            for step in ("repeated", "cites", "vertices", "edges"):
                run(con, sql[step], params)
            counts = dict(con.execute(sql["counts"]).fetchall())
            [(stubs_found,)] = con.execute(sql["stubs_found"]).fetchall()
            counted = run(con, sql["eligibility"], params)
            [row] = counted.fetchall()
            eligibility = dict(zip((c[0] for c in counted.description), row))
            con.execute("DROP TABLE paper_rec; DROP TABLE cite_rec; DROP TABLE repeated_rec; CHECKPOINT")
        for name in _SPILLS:
            if name != "merges":
                (self.work / f"{name}.jsonl").unlink()
        manifest = {
            "memory": memory,
            "counts": counts,
            "stubs_found": stubs_found,
            # the prefilter's counts as the loaded graph will answer them, unless merges move citations
            "eligibility": eligibility,
            "merges": self.stats.records.get("MergedId", 0),
            "stats": {
                "records": dict(self.stats.records),
                "citations": self.stats.citations,
                "self_citations": self.stats.self_citations,
            },
        }
        (self.work / "manifest.json").write_bytes(orjson.dumps(manifest))
        return BuiltGraph(self.work, manifest)


class _Tee:
    """Stands in for the format in the pipeline's validation, handing every record read
    to the spill, so that one read both validates and spills."""

    def __init__(self, fmt: Format, spill: Spill):
        self.fmt, self.spill = fmt, spill

    def read(self, file: Path, selection: Selection = Selection()) -> Iterator[Item]:
        for item in self.fmt.read(file, selection):
            if item.record is not None:
                self.spill.add(item.record)
            yield item


def build(
    fmt: Format,
    files: list[Path],
    options: IngestOptions,
    progress: Progress,
    summary: IngestSummary,
    work: Path,
    memory: str = DEFAULT_MEMORY,
) -> tuple[BuiltGraph, dict[Path, int]]:
    """Validate ``files`` as the streaming ingest does (same errors, same rejects file with
    ``skip_bad``) and build their graph in ``work``; also returns each file's line count.
    Bad input raises before anything reaches a database."""
    building = partial(out_of_memory_said, "building the graph", work, memory)
    with building():
        connect(work, memory).close()  # a memory limit DuckDB refuses stops the build before the read
    options = pipeline.widened(fmt, files, options, progress)
    with disk_full_said(work):
        spill = Spill(work, options.clock())
        try:
            lines = pipeline.validate(_Tee(fmt, spill), files, options, progress, summary)
        finally:
            spill.close()
        summary.lines = sum(lines.values())
        progress.start("building", None)
        try:
            with building():
                return spill.finish(options.external, options.prefilter, memory), lines
        finally:
            progress.finish()
