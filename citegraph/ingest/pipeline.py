"""Streaming ingest: validate everything, then write in batches that can be resumed.

1. **Validate** every input file in one streaming pass. Bad input stops the ingest before
   anything is written, with the file, line and field; with ``skip_bad`` the bad lines are
   written to a rejects file (JSONL: file, line, field, reason) and left out.
2. **Write** each file in batches of whole lines, one transaction per batch. The batch's
   transaction also moves the file's checkpoint (an ``:IngestCheckpoint`` node) to its last
   line, so a killed ingest, run again, continues after the last committed batch; a file
   that was ingested completely is skipped (and not validated again) unless ``restart``
   is set. Writes are MERGEs, so re-reading a line is harmless.
3. Apply the external-paper policy, then the MDCR prefilter, and report the counts.

Memory stays constant: lines are read lazily and only one batch is held at a time.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from ..errors import InputError
from ..graph import GraphStore, Write
from ..graph.schema import apply_schema
from .formats import Format
from .records import Item
from .selection import Selection
from .writer import GraphWriter, WriteStats

ExternalPolicy = Literal["keep", "drop"]


class Progress(Protocol):
    """What the pipeline reports while it works (the CLI draws a progress bar)."""

    def start(self, description: str, total: int | None) -> None: ...
    def advance(self, lines: int) -> None: ...
    def finish(self) -> None: ...


class NoProgress:
    def start(self, description: str, total: int | None) -> None: ...
    def advance(self, lines: int) -> None: ...
    def finish(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Prefilter:
    """The MDCR prefilter thresholds (Medić & Šnajder 2022, §3)."""

    min_abstract: int = 30
    min_citations: int = 3


@dataclass(frozen=True, slots=True)
class IngestOptions:
    batch_size: int = 2000
    skip_bad: bool = False
    rejects: Path = Path("citegraph-rejects.jsonl")
    external: ExternalPolicy = "keep"
    restart: bool = False
    prefilter: Prefilter = Prefilter()
    selection: Selection = Selection()


@dataclass
class IngestSummary:
    format: str
    files: int = 0
    lines: int = 0
    rejected: int = 0
    rejects_file: Path | None = None
    skipped_files: list[str] = field(default_factory=list)
    resumed: dict[str, int] = field(default_factory=dict)
    write: WriteStats = field(default_factory=WriteStats)
    external_dropped: int = 0
    eligibility: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def checkpoint_key(fmt: Format, file: Path) -> str:
    stat = file.stat()
    return f"{fmt.key}:{file.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"


def prefilter(store: GraphStore, thresholds: Prefilter = Prefilter(), batch: int = 10_000) -> dict[str, int]:
    """Mark eligible papers, ``batch`` per transaction, and return how many pass each criterion.

    The ids are read in full before the first write: a read cursor held open across
    writes to the same records is what ArcadeDB's lock manager deadlocks on.
    """
    params = {"min_abstract": thresholds.min_abstract, "min_citations": thresholds.min_citations}
    ids = [row["id"] for row in store.rows("prefilter/ids")]
    for start in range(0, len(ids), batch):
        store.write(Write("prefilter/mark", {"ids": ids[start:start + batch], **params}))
    return store.run("prefilter/counts", **params)[0]


def validate(fmt: Format, files: list[Path], options: IngestOptions, progress: Progress,
              summary: IngestSummary) -> dict[Path, int]:
    """Read every file once; returns each file's line count. Raises on the first problem
    unless ``skip_bad``, in which case problems go to the rejects file."""
    lines: dict[Path, int] = {}
    rejects = None
    progress.start("validating", None)
    try:
        for file in files:
            last = 0
            for item in fmt.read(file, options.selection):
                if item.where.line != last:
                    progress.advance(item.where.line - last)
                    last = item.where.line
                if item.problem is None:
                    continue
                if not options.skip_bad:
                    raise InputError(item.problem)
                if rejects is None:
                    rejects = open(options.rejects, "w", encoding="utf-8")
                    summary.rejects_file = options.rejects
                problem = item.problem
                rejects.write(json.dumps({"file": str(problem.where.path), "line": problem.where.line,
                                          "field": problem.field, "reason": problem.reason}) + "\n")
                summary.rejected += 1
            lines[file] = last
    finally:
        progress.finish()
        if rejects is not None:
            rejects.close()
    return lines


def _write_file(fmt: Format, file: Path, key: str, start_after: int, writer: GraphWriter,
                options: IngestOptions, progress: Progress, stats: WriteStats) -> None:
    batch: list = []
    last_line = start_after

    def flush(done: bool) -> None:
        checkpoint = Write("ingest/checkpoint_set", {"key": key, "file": str(file), "line": last_line, "done": done})
        stats.add(writer.write(batch, extra=[checkpoint]))
        batch.clear()

    item: Item
    for item in fmt.read(file, options.selection):
        line = item.where.line
        if line <= start_after:
            continue
        if line != last_line:
            if len(batch) >= options.batch_size:
                flush(done=False)
            progress.advance(line - last_line)
            last_line = line
        if item.record is not None:
            batch.append(item.record)
    flush(done=True)


def ingest(store: GraphStore, fmt: Format, paths: list[Path], options: IngestOptions = IngestOptions(),
           progress: Progress | None = None) -> IngestSummary:
    """Ingest ``paths`` read as ``fmt`` into the graph; see the module docstring."""
    progress = progress or NoProgress()
    started = time.perf_counter()
    summary = IngestSummary(format=fmt.name)
    files = [file for path in paths for file in fmt.files(Path(path))]
    summary.files = len(files)
    apply_schema(store)
    keys = {file: checkpoint_key(fmt, file) for file in files}
    if options.restart:
        store.run("ingest/checkpoints_clear", keys=list(keys.values()))
    resume_after: dict[Path, int] = {}
    for file in files:
        found = store.run("ingest/checkpoint", key=keys[file])
        if found and found[0]["done"]:
            summary.skipped_files.append(str(file))
        else:
            resume_after[file] = found[0]["line"] if found else 0
    todo = list(resume_after)
    line_counts = validate(fmt, todo, options, progress, summary)
    summary.lines = sum(line_counts.values())

    writer = GraphWriter(store)
    progress.start("writing", summary.lines)
    try:
        for file in todo:
            if resume_after[file]:
                summary.resumed[str(file)] = resume_after[file]
                progress.advance(resume_after[file])
            _write_file(fmt, file, keys[file], resume_after[file], writer, options, progress, summary.write)
    finally:
        progress.finish()

    if options.external == "drop":
        summary.external_dropped = writer.drop_external()
    summary.eligibility = prefilter(store, options.prefilter)
    summary.seconds = time.perf_counter() - started
    return summary
