"""Bulk ingest for Neo4j: the compact graph as CSV files for ``neo4j-admin database import full``.

The headers come from the graph model (:data:`citegraph.graph.model.GRAPH`): a property
declared there is a column here, as it is a property of the streaming and ArcadeDB paths.
After the import, :func:`citegraph.ingest.bulk.complete_import` applies the schema and the
prefilter over Bolt (``citegraph complete-import``).
"""

from __future__ import annotations

import csv
import json
import shlex
import tempfile
import time
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path

from ..errors import CitegraphError
from ..graph import Neo4jBackend, model
from .compact import CompactGraph, VertexGroup, build
from .formats import Format
from .pipeline import IngestOptions, IngestSummary, NoProgress, Progress

ARRAY_DELIMITER = "\x1f"  # ASCII unit separator: between array elements in the CSV files


@dataclass(frozen=True, slots=True)
class Neo4jAdminExport:
    """CSV files for ``neo4j-admin database import full`` and how to run it."""

    summary: IngestSummary
    database: str
    nodes: list[tuple[str, Path, Path]] = field(default_factory=list)  # labels 'A:B', header, data
    relationships: list[tuple[str, Path, Path]] = field(default_factory=list)  # type, header, data

    def command_for(self, mounted_at: str | None = None) -> list[str]:
        """The Neo4j 5 command; the database must not exist yet. Afterwards create it, and run
        :func:`~citegraph.ingest.bulk.complete_import` against it (schema and prefilter).

        ``mounted_at``: where the export folder is seen by neo4j-admin, e.g. ``/import`` in
        the docker-compose container (the files are named relative to it).
        """
        root = self.nodes[0][1].parent if self.nodes else None

        def seen(path: Path) -> str:
            return f"{mounted_at.rstrip('/')}/{path.relative_to(root)}" if mounted_at and root else str(path)

        return Neo4jBackend.import_command(
            self.database,
            [(labels, f"{seen(header)},{seen(data)}") for labels, header, data in self.nodes],
            [(kind, f"{seen(header)},{seen(data)}") for kind, header, data in self.relationships],
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
) -> Neo4jAdminExport:
    """Write the graph of ``paths`` as neo4j-admin CSV files (a header file and a data file
    per label set and relationship type) into ``out``.

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
        graph, _ = build(fmt, files, options, progress, summary, Path(work))
        if graph.manifest["merges"]:  # neo4j-admin creates; moving citations is Cypher's
            raise CitegraphError(
                f"{len(graph.manifest['merges']):,} merged ids among the inputs: export the works "
                "without the merged_ids files, import them and run `citegraph complete-import`, "
                "then `citegraph ingest openalex <the merged_ids folder>` against the database"
            )
        progress.start("writing CSV", None)
        try:
            export = _write_csv(graph, out, summary, database)
        finally:
            progress.finish()
        summary.write = graph.write_stats()
    if options.external == "drop":
        summary.external_dropped = summary.write.external_created
    summary.seconds = time.perf_counter() - started
    return export


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        for element in value:
            if ARRAY_DELIMITER in element:
                raise CitegraphError(
                    f"cannot export {element[:80]!r} for neo4j-admin: it holds U+001F, the array delimiter"
                )
        return ARRAY_DELIMITER.join(value)
    return str(value)


def _csv_pair(out: Path, stem: str, header: list[str]):
    header_file, data_file = out / f"{stem}.header.csv", out / f"{stem}.csv"
    with open(header_file, "w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerow(header)
    return header_file, data_file


def node_properties(group: VertexGroup) -> tuple[model.Node, tuple[model.Property, ...]]:
    """The model node of a vertex group and the properties its CSV file has (a stub: only
    those the ingest sets)."""
    graph = model.GRAPH
    node = graph.node(group.space)
    stub = graph.stub_label in group.labels
    return node, graph.stub_properties() if stub else node.written()


def _write_csv(graph: CompactGraph, out: Path, summary: IngestSummary, database: str) -> Neo4jAdminExport:
    export = Neo4jAdminExport(summary, database)
    keys: dict[str, list[str]] = {"Paper": graph.paper_ids()}
    for group in graph.vertices():
        node, props = node_properties(group)
        names = [node.key.name, *(p.name for p in props)]
        header_file, data_file = _csv_pair(out, "_".join(sorted(group.labels)).lower(), node.columns(props))
        space_keys = keys.setdefault(group.space, []) if group.space != "Paper" else None
        with open(data_file, "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            for row in map(json.loads, group.rows):
                if space_keys is not None:
                    space_keys.append(row[node.key.name])
                writer.writerow([_cell(row.get(name)) for name in names])
        export.nodes.append((":".join(group.labels), header_file, data_file))
    for group in graph.edges():
        relationship = model.GRAPH.relationship(group.type)
        props = relationship.written() if group.props is not None else ()
        header_file, data_file = _csv_pair(out, group.name, relationship.columns(props))
        sources, targets = keys[group.source], keys[group.target]
        values = group.props if group.props is not None else repeat({})
        with open(data_file, "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            for s, t, p in zip(group.pairs[0].tolist(), group.pairs[1].tolist(), values):
                writer.writerow([sources[s], targets[t], *(_cell(p.get(prop.name)) for prop in props)])
        export.relationships.append((group.type, header_file, data_file))
    return export
