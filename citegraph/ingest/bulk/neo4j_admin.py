"""Bulk ingest for Neo4j: the built graph as CSV parts for ``neo4j-admin database import full``.

DuckDB writes the parts (``sql/neo4j_csv.sql``: ``COPY … FILE_SIZE_BYTES``), several files per
label set and relationship type, which neo4j-admin reads as one input each.

The headers come from the graph model (:data:`citegraph.graph.model.GRAPH`): a property
declared there is a column here, as it is a property of the streaming and ArcadeDB paths.
After the import, :func:`citegraph.ingest.bulk.complete_import` applies the schema and the
prefilter over Bolt (``citegraph complete-import``).
"""

from __future__ import annotations

import csv
import shlex
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from ...errors import CitegraphError
from ...graph import Neo4jBackend, model
from ..formats import Format
from ..pipeline import IngestOptions, IngestSummary, NoProgress, Progress
from .duckdb_build import DEFAULT_MEMORY, BuiltGraph, VertexGroup, build, memory_limit, statements

ARRAY_DELIMITER = "\x1f"  # ASCII unit separator: between array elements in the CSV files (sql/neo4j_csv.sql)
PART_BYTES = 1 << 30  # a CSV part is closed once it holds this much (DuckDB's FILE_SIZE_BYTES)
#: ... or this share of the memory limit, if less. DuckDB 2.0.1 keeps a buffer for every
#: batch it writes into a part after the first until that part is closed: about 1.35x the part's
#: bytes, counted against the limit (1 GiB parts ran out of 250MB at 2M papers, whose papers take 3).
PART_MEMORY_SHARE = 1 / 16


@dataclass(frozen=True, slots=True)
class Neo4jAdminExport:
    """CSV files for ``neo4j-admin database import full`` and how to run it."""

    summary: IngestSummary
    database: str
    nodes: list[tuple[str, Path, list[Path]]] = field(default_factory=list)  # labels 'A:B', header, parts
    relationships: list[tuple[str, Path, list[Path]]] = field(default_factory=list)  # type, header, parts

    def command_for(self, mounted_at: str | None = None) -> list[str]:
        """The Neo4j 5 command; the database must not exist yet. Afterwards create it, and run
        :func:`~citegraph.ingest.bulk.complete_import` against it (schema and prefilter).

        ``mounted_at``: where the export folder is seen by neo4j-admin, e.g. ``/import`` in
        the docker-compose container (the files are named relative to it).
        """
        root = self.nodes[0][1].parent if self.nodes else None

        def seen(path: Path) -> str:
            return f"{mounted_at.rstrip('/')}/{path.relative_to(root)}" if mounted_at and root else str(path)

        def files(header: Path, parts: list[Path]) -> str:
            return ",".join(seen(f) for f in (header, *parts))

        return Neo4jBackend.import_command(
            self.database,
            [(labels, files(header, parts)) for labels, header, parts in self.nodes],
            [(kind, files(header, parts)) for kind, header, parts in self.relationships],
            ARRAY_DELIMITER,
        )

    @property
    def command(self) -> list[str]:
        return self.command_for()

    @property
    def command_line(self) -> str:
        return shlex.join(self.command)


def export_neo4j_admin(
    fmt: Format,
    paths: list[Path],
    out: Path,
    options: IngestOptions = IngestOptions(),
    progress: Progress | None = None,
    *,
    database: str = "neo4j",
    memory: str = DEFAULT_MEMORY,
    part_bytes: int = PART_BYTES,
) -> Neo4jAdminExport:
    """Write the graph of ``paths`` as neo4j-admin CSV files (a header file and data parts of
    about ``part_bytes`` each, at most :data:`PART_MEMORY_SHARE` of ``memory``, per label
    set and relationship type) into ``out``; ``memory`` is DuckDB's memory_limit.

    The files are RFC 4180 CSV in UTF-8: comma-separated, fields holding a comma, a quote
    or a line break are quoted, quotes doubled; texts keep their line breaks, hence
    ``--multiline-fields=true``. Array elements are separated by U+001F, which no
    citegraph text holds (export refuses one that does). Absent values are empty fields,
    which neo4j-admin leaves unset; so is an empty ``alt_labels`` list, which the
    streaming ingest stores as an empty list. Properties the prefilter sets
    (``eligible``) are not exported: run ``complete_import`` on the imported database.
    """
    progress = progress or NoProgress()
    started = time.perf_counter()
    summary = IngestSummary(format=fmt.name)
    files = [file for path in paths for file in fmt.files(Path(path))]
    summary.files = len(files)
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bulk-", dir=out) as work:
        graph, _ = build(fmt, files, options, progress, summary, Path(work), memory)
        if graph.manifest["merges"]:  # neo4j-admin creates; moving citations is Cypher's
            raise CitegraphError(
                f"{graph.manifest['merges']:,} merged ids among the inputs: export the works "
                "without the merged_ids files, import them and run `citegraph complete-import`, "
                "then `citegraph ingest openalex <the merged_ids folder>` against the database"
            )
        progress.start("writing CSV", None)
        staged = graph.work / "csv"  # then moved into `out`: an export that stops leaves `out` as it was
        try:
            written = _write_csv(graph, staged, summary, database, part_bytes)
        finally:
            progress.finish()
        export = _moved(written, staged, out)
        summary.write = graph.write_stats()
    if options.external == "drop":
        summary.external_dropped = summary.write.external_created
    summary.seconds = time.perf_counter() - started
    return export


def _parts(folder: Path) -> list[Path]:
    """The CSV parts DuckDB wrote into ``folder`` (``data_N.csv``), in order."""
    return sorted(folder.glob("data_*.csv"), key=lambda f: int(f.stem.split("_")[1]))


def _header(out: Path, stem: str, header: list[str]) -> Path:
    header_file = out / f"{stem}.header.csv"
    with open(header_file, "w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerow(header)
    return header_file


def _copy(
    graph: BuiltGraph, con, statement: str, names: list[str], group: str, folder: Path, part_bytes: int
) -> list[Path]:
    """Run one COPY of ``neo4j_csv.sql`` into ``folder``; returns the parts written."""
    sql = statement.replace("{cells}", "".join(f", cell(x[{i}])" for i in range(1, len(names) + 1)))
    try:
        with graph.out_of_memory_said(f"writing the CSV parts of {group}"):
            con.execute(sql, [names, group, str(folder), part_bytes])
    except duckdb.InvalidInputException as exc:  # the cell macro's error(): a text holding U+001F
        raise CitegraphError(str(exc).split("Error: ", 1)[-1]) from None
    return _parts(folder)


def node_properties(group: VertexGroup) -> tuple[model.Node, tuple[model.Property, ...]]:
    """The model node of a vertex group and the properties its CSV file has (a stub: only
    those the ingest sets)."""
    graph = model.GRAPH
    node = graph.node(group.space)
    stub = graph.stub_label in group.labels
    return node, graph.stub_properties() if stub else node.written()


def _write_csv(
    graph: BuiltGraph, out: Path, summary: IngestSummary, database: str, part_bytes: int
) -> Neo4jAdminExport:
    export = Neo4jAdminExport(summary, database)
    sql = statements("neo4j_csv")
    out.mkdir(exist_ok=True)
    with graph.connect() as con:
        part_bytes = min(part_bytes, int(memory_limit(con) * PART_MEMORY_SHARE))
        con.execute(sql["cell"])
        for group in graph.vertices():
            node, props = node_properties(group)
            stem = "_".join(sorted(group.labels)).lower()
            header = _header(out, stem, node.columns(props))
            names = [node.key.name, *(p.name for p in props)][1:]  # the key is the vertex's own column
            parts = _copy(graph, con, sql["nodes"], names, group.name, out / stem, part_bytes)
            export.nodes.append((":".join(group.labels), header, parts))
        for edge in graph.edges():
            relationship = model.GRAPH.relationship(edge.type)
            props = relationship.written() if edge.props else ()
            header = _header(out, edge.name, relationship.columns(props))
            names = [p.name for p in props]
            parts = _copy(graph, con, sql["relationships"], names, edge.name, out / edge.name, part_bytes)
            export.relationships.append((edge.type, header, parts))
    return export


def _moved(export: Neo4jAdminExport, staged: Path, out: Path) -> Neo4jAdminExport:
    """``export``, written into ``staged``, moved into ``out``, where it replaces the files and
    folders of the same names that an earlier export left."""
    for written in staged.iterdir():
        target = out / written.name
        if target.is_dir():
            shutil.rmtree(target)
        written.replace(target)

    def there(inputs: list[tuple[str, Path, list[Path]]]) -> list[tuple[str, Path, list[Path]]]:
        return [
            (name, out / h.relative_to(staged), [out / f.relative_to(staged) for f in fs]) for name, h, fs in inputs
        ]

    return Neo4jAdminExport(export.summary, export.database, there(export.nodes), there(export.relationships))
