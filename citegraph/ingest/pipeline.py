"""Streaming ingest: validate everything, then write in batches that can be resumed.

1. **Validate** every input file in one streaming pass. Bad input stops the ingest before
   anything is written, with the file, line and field; with ``skip_bad`` the bad lines are
   written to a rejects file (:mod:`.rejects`; never one of the inputs) and left out.
   Papers given more than once (within or across files) are counted, and ``on_duplicate``
   says which of their records are written (:mod:`.duplicates`). Good lines a reader
   leaves out (an S2AG abstract of a paper the release lacks) are counted by why.
2. **Write** each file in batches of whole lines, one transaction per batch. The batch's
   transaction also moves the file's checkpoint (an ``:IngestCheckpoint`` node) to its last
   line, so a killed ingest, run again, continues after the last committed batch; a file
   that was ingested completely is skipped (and not validated again) unless ``restart``
   is set. Writes are MERGEs, so re-reading a line is harmless.
3. Recount ``citation_count`` of every paper the input cites, once (the batches do not
   touch it: rewriting a cited paper's record per new edge was most of the write time),
   and only then mark the files done, so a killed ingest run again recounts too.
4. Apply the external-paper policy, then the MDCR prefilter, and report the counts.

With ``--include-referenced`` a first read of all files comes before step 1: the works the
selected works reference (:meth:`~citegraph.ingest.formats.Format.widened`).

Memory: lines are read lazily and only one batch is held at a time; the ids of the
papers read (to find duplicates) and of the papers cited (to recount) are what grows
with the input.

If the graph server goes away or refuses a write (its disk full) while writing, the error
says which line was committed last and that running the same command again resumes there.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Literal, Protocol

from neo4j.exceptions import Neo4jError

from ..errors import CitegraphError, InputError, Interrupted, Location, Problem, ServerError
from ..graph import GraphStore, MessageTooLarge, Write
from ..graph.schema import apply_schema
from .duplicates import Duplicates
from .formats import Format
from .records import Citation, DuplicatePolicy, Item, Paper
from .rejects import Rejects
from .selection import Selection
from .writer import GraphWriter, WriteStats, utc_today

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
    rejects: Path | None = None  # where skip_bad lists the bad lines (required with it)
    external: ExternalPolicy = "keep"
    restart: bool = False
    prefilter: Prefilter = Prefilter()
    selection: Selection = Selection()
    on_duplicate: DuplicatePolicy = "merge"
    #: The run's date, read once per run, for the papers' ``ingested`` (tests set their own).
    clock: Callable[[], date] = utc_today


@dataclass
class IngestSummary:
    format: str
    files: int = 0
    lines: int = 0
    rejected: int = 0
    rejects_file: Path | None = None
    duplicates: int = 0  # paper records whose id an earlier record of the ingest had
    #: good lines a reader left out, by why (its words): how many, and where the first was
    left_out: dict[str, tuple[int, Location]] = field(default_factory=dict)
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
        store.write(Write("prefilter/mark", {"ids": ids[start : start + batch], **params}))
    return eligibility(store, thresholds)


def eligibility(store: GraphStore, thresholds: Prefilter = Prefilter()) -> dict[str, int]:
    """How many papers pass each prefilter criterion, as marked."""
    return store.run("prefilter/counts", min_abstract=thresholds.min_abstract, min_citations=thresholds.min_citations)[
        0
    ]


def widened(fmt: Format, files: list[Path], options: IngestOptions, progress: Progress) -> IngestOptions:
    """With ``include_referenced``: the options whose selection holds the works its criteria
    admit reference, read from all ``files`` (the ingest's, ingested or not, so a resumed
    ingest admits the same works)."""
    if not options.selection.include_referenced:
        return options
    progress.start("finding the referenced works", None)
    try:
        return replace(options, selection=fmt.widened(files, options.selection))
    finally:
        progress.finish()


def cited_ids(record) -> Iterator[str]:
    """The papers a record cites (whose citation_count its CITES edges change)."""
    if isinstance(record, Paper):
        return (ref.cited_id for ref in record.references)
    if isinstance(record, Citation):
        return iter((record.reference.cited_id,))
    return iter(())


class Reader(Protocol):
    """What validation reads with: a format, or a stand-in that also hands each record on."""

    def read(self, file: Path, selection: Selection = ...) -> Iterator[Item]: ...


def validate(
    fmt: Reader,
    files: list[Path],
    options: IngestOptions,
    progress: Progress,
    summary: IngestSummary,
    duplicates: Duplicates | None = None,
    cited: set[str] | None = None,
    stop: threading.Event | None = None,
) -> dict[Path, int]:
    """Read every file once; returns each file's line count. Raises on the first problem
    unless ``skip_bad``, in which case problems go to the rejects file. Repeated paper ids
    are counted in ``summary`` (and noted in ``duplicates`` for the write); the ids the
    records cite are added to ``cited`` (whose citation_count the ingest recounts). A set
    ``stop`` (^C) ends it with :class:`Interrupted` before the next line."""
    rejects = None
    if options.skip_bad:
        if options.rejects is None:
            raise CitegraphError("skip_bad lists the bad lines in a rejects file: give IngestOptions.rejects")
        Rejects.refuse_unwritable(Path(options.rejects), files)
        rejects = Rejects(Path(options.rejects))
    duplicates = duplicates or Duplicates(options.on_duplicate)
    lines: dict[Path, int] = {}

    def refuse(problem: Problem) -> None:
        if rejects is None:
            raise InputError(problem)
        rejects.write(problem)
        summary.rejects_file = rejects.path
        summary.rejected += 1

    progress.start("validating", None)
    try:
        for file in files:
            last = 0
            for item in fmt.read(file, options.selection):
                if stop is not None and stop.is_set():
                    raise Interrupted("interrupted while reading the input, before this run wrote anything")
                if item.where.line != last:
                    progress.advance(item.where.line - last)
                    last = item.where.line
                problem = item.problem
                if item.left_out:
                    count, first = summary.left_out.get(item.left_out, (0, item.where))
                    summary.left_out[item.left_out] = (count + 1, first)
                if cited is not None and item.record is not None:
                    cited.update(cited_ids(item.record))
                problems = [problem] if problem else []
                if duplicates.tracks(item.record):
                    problems += duplicates.see(item.record, item.where)
                for problem in problems:
                    refuse(problem)
            lines[file] = last
        for problem in duplicates.flush():
            refuse(problem)
    finally:
        progress.finish()
        summary.duplicates = duplicates.count
        if rejects is not None:
            rejects.close()
    return lines


class WriteRefused(CitegraphError):
    """The graph server refused a write it was sent (its disk full, ...): the message says
    what it said and where the ingest stands."""

    @staticmethod
    def said(exc: Neo4jError) -> str:
        return f"the graph server refused to write: {' '.join(str(exc.message or exc).split())[:300]}"


def _committed_up_to(file: Path, committed: int) -> str:
    return (
        f"The ingest of {file} is committed up to line {committed:,} and nothing after it was written; once "
        f"the graph is back or can write again, run the same command again: it resumes after line {committed:,}"
    )


def _write_file(
    fmt: Format,
    file: Path,
    key: str,
    start_after: int,
    writer: GraphWriter,
    options: IngestOptions,
    progress: Progress,
    stats: WriteStats,
    duplicates: Duplicates,
    stop: threading.Event | None = None,
) -> None:
    batch: list = []
    last_line = committed = start_after

    def flush(done: bool) -> None:
        nonlocal committed
        checkpoint = Write("ingest/checkpoint_set", {"key": key, "file": str(file), "line": last_line, "done": done})
        try:
            stats.add(writer.write(batch, extra=[checkpoint]))
        except MessageTooLarge as exc:
            raise CitegraphError(
                f"{file}: a record of lines {committed + 1}-{last_line} alone is too large to write: {exc}"
            ) from None
        except ServerError as exc:
            raise ServerError(f"{exc}. {_committed_up_to(file, committed)}") from exc
        except Neo4jError as exc:
            raise WriteRefused(f"{WriteRefused.said(exc)}. {_committed_up_to(file, committed)}") from None
        committed = last_line
        batch.clear()

    item: Item
    for item in fmt.read(file, options.selection):
        line = item.where.line
        if line <= start_after:
            continue
        if line != last_line:
            if stop is not None and stop.is_set():  # between two batches: nothing half-written
                raise Interrupted(
                    f"interrupted; the ingest of {file} is committed up to line {committed:,}: run the same "
                    f"command again and it resumes after line {committed:,}"
                )
            if len(batch) >= options.batch_size:
                flush(done=False)
            progress.advance(line - last_line)
            last_line = line
        if item.record is not None and (
            not duplicates.tracks(item.record) or duplicates.write(item.record, item.where)
        ):
            batch.append(item.record)
    flush(done=False)  # done once the cited papers are recounted (ingest)


def ingest(
    store: GraphStore,
    fmt: Format,
    paths: list[Path],
    options: IngestOptions = IngestOptions(),
    progress: Progress | None = None,
    stop: threading.Event | None = None,
) -> IngestSummary:
    """Ingest ``paths`` read as ``fmt`` into the graph; see the module docstring. A set
    ``stop`` (the CLI's first ^C) ends it at the next line read or between two batches, with
    :class:`Interrupted` saying where it stands."""
    progress = progress or NoProgress()
    started = time.perf_counter()
    summary = IngestSummary(format=fmt.name)
    files = [file for path in paths for file in fmt.files(Path(path))]
    summary.files = len(files)
    options = widened(fmt, files, options, progress)
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
    duplicates = Duplicates(options.on_duplicate, store, resume_after)
    cited: set[str] = set()
    line_counts = validate(fmt, todo, options, progress, summary, duplicates, cited, stop)
    summary.lines = sum(line_counts.values())

    writer = GraphWriter(store, options.clock(), recounted=cited)
    progress.start("writing", summary.lines)
    try:
        for file in todo:
            if resume_after[file]:
                summary.resumed[str(file)] = resume_after[file]
                progress.advance(resume_after[file])
            _write_file(
                fmt, file, keys[file], resume_after[file], writer, options, progress, summary.write, duplicates, stop
            )
    finally:
        progress.finish()
    if stop is not None and stop.is_set():
        raise Interrupted(
            "interrupted once every line was written: run the same command again and it finishes the ingest "
            "(citation counts, prefilter)"
        )
    try:
        progress.start("recounting citations", None)
        writer.recount(cited)
        progress.finish()
        if todo:
            store.write(
                *(
                    Write(
                        "ingest/checkpoint_set",
                        {"key": keys[file], "file": str(file), "line": line_counts[file], "done": True},
                    )
                    for file in todo
                )
            )
        if options.external == "drop":
            summary.external_dropped = writer.drop_external()
        progress.start("marking eligibility", None)
        summary.eligibility = prefilter(store, options.prefilter)
        progress.finish()
    except Neo4jError as exc:
        raise WriteRefused(
            f"{WriteRefused.said(exc)}. Every line of the input is written; once the graph can write "
            "again, run the same command again: it finishes the ingest"
        ) from None
    summary.seconds = time.perf_counter() - started
    return summary
