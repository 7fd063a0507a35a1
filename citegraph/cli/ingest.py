"""citegraph ingest, export neo4j-admin, complete-import, prefilter, synth: getting data in."""

from __future__ import annotations

import json
import shlex
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from ..config import Config, private_folder
from ..errors import CitegraphError, Interrupted
from ..ingest.formats import FORMATS
from ..ingest.records import DUPLICATE_POLICIES
from ..options import from_options, options_of
from ..synth.recipe import SynthSpec
from .app import main, open_graph
from .flags import CommaList, click_option, on_duplicate_option, prefilter_options, selection_options
from .output import RichProgress, print_eligibility, print_summary, print_table

INGEST_HELP = (
    """Ingest PATHS (files or folders) in FORMAT into the graph.

\b
Formats:
"""
    + "\n".join(f"  {f.name:9} {f.summary}" for f in FORMATS.values())
    + """

Input is validated before anything is written; writes are idempotent MERGEs in
batches, and a killed ingest resumes where it stopped when run again.
Without PATHS, 'taxonomy' reads the copy bundled with citegraph.
"""
)


@main.command(help=INGEST_HELP)
@click.argument("format_name", metavar="FORMAT", type=click.Choice(sorted(FORMATS)))
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--batch-size", type=click.IntRange(min=1), default=2000, show_default=True, help="Input lines per transaction."
)
@click.option("--skip-bad", is_flag=True, help="Leave bad lines out (listed in --rejects) instead of stopping.")
@click.option(
    "--rejects",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Where --skip-bad lists the bad lines and why [default: <data dir>/rejects/FORMAT.jsonl].",
)
@click.option(
    "--external",
    type=click.Choice(["keep", "drop"]),
    default="keep",
    show_default=True,
    help="Cited papers absent from the corpus: keep as :Paper:External stubs, or drop them "
    "and their citations after the ingest.",
)
@click.option("--restart", is_flag=True, help="Ignore checkpoints: re-read files already ingested.")
@on_duplicate_option(
    DUPLICATE_POLICIES,
    "merge",
    "A paper id given more than once (counted in the summary): merge "
    "its records as the graph's MERGEs do, keep the first or the last record, or stop with an error. "
    "For first and error a paper the graph holds from an earlier ingest comes first: its record is "
    "kept, or refused.",
)
@prefilter_options
@selection_options
@click.option(
    "--bulk",
    is_flag=True,
    help="Load an empty embedded graph with ArcadeDB's bulk loader "
    "(about 7x faster; for Neo4j use `citegraph export neo4j-admin`).",
)
@click.option(
    "--build-memory",
    default="2GB",
    show_default=True,
    help="DuckDB's memory limit for the bulk build (it spills to disk beyond it), e.g. 4GB.",
)
@click.option(
    "--entry-types",
    type=CommaList(),
    help="bibtex: the entry types to read, comma-separated (e.g. article,inproceedings) [default: all].",
)
@click.option(
    "--id-from",
    type=click.Choice(["doi", "key"]),
    help="bibtex: paper ids from DOIs, the citation key where there is none [default], or always from citation keys.",
)
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a terminal).")
@click.pass_context
def ingest(
    ctx: click.Context,
    format_name: str,
    paths: tuple[Path, ...],
    batch_size,
    skip_bad,
    rejects,
    external,
    restart,
    on_duplicate,
    prefilter,
    selection,
    bulk,
    build_memory,
    entry_types,
    id_from,
    progress,
):
    from .. import ingest as ingest_
    from ..ingest.lock import ingest_lock

    config: Config = ctx.obj
    if bulk:
        _refuse_with_bulk(ctx)
    options = ingest_.IngestOptions(
        batch_size=batch_size,
        skip_bad=skip_bad,
        rejects=rejects
        or (private_folder(config.data_folder("rejects")) / f"{format_name}.jsonl" if skip_bad else None),
        external=external,
        restart=restart,
        prefilter=prefilter,
        selection=selection,
        on_duplicate=on_duplicate,
    )
    paths = _input_paths(format_name, paths)
    fmt = _surveyed(
        ingest_.get(format_name).configured(entry_types=tuple(entry_types) if entry_types else None, id_from=id_from),
        paths,
    )
    show = sys.stderr.isatty() if progress is None else progress
    if bulk and not config.embedded:
        raise click.UsageError(
            "--bulk loads the embedded ArcadeDB graph; for a Neo4j server write the "
            "neo4j-admin files with `citegraph export neo4j-admin`"
        )
    if bulk and on_duplicate in ("first", "last"):
        raise click.UsageError(
            "--bulk merges repeated papers (or stops with --on-duplicate error); to keep the "
            "first or the last record, ingest without --bulk"
        )
    with (
        _interrupt_said(config, bulk) as stop,
        ingest_lock(config),
        open_graph(config) as store,
        _disk_full_said(config),
    ):
        if bulk:
            from ..graph import ArcadeDBBackend, embedded_server
            from ..ingest.bulk import bulk_ingest

            summary = bulk_ingest(
                ArcadeDBBackend(embedded_server(config)),
                store,
                fmt,
                paths,
                options,
                RichProgress(show),
                heap=config.heap,
                memory=build_memory,
            )
        else:
            summary = ingest_.ingest(store, fmt, paths, options, RichProgress(show), stop=stop)
            if config.embedded:
                from ..graph import embedded_server
                from ..ingest.bulk import repaired_bulk

                repaired_bulk(embedded_server(config).home, fmt, paths)
    print_summary(summary)


@contextmanager
def _interrupt_said(config: Config, bulk: bool) -> Iterator[threading.Event]:
    """^C during an ingest, said in one line with what is true of the graph (exit 130).

    A streaming ingest is given the event a first ^C sets, and stops at its next line read
    or between two batches (:func:`citegraph.ingest.pipeline.ingest`): a KeyboardInterrupt
    raised wherever the main thread was could be swallowed in the graph driver's destructors,
    and the ingest went on to the end. A second ^C, or one during a bulk ingest, stops at once.
    """
    stop = threading.Event()

    def asked(signum, frame) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    previous = None if bulk else signal.signal(signal.SIGINT, asked)
    try:
        yield stop
    except KeyboardInterrupt:
        raise Interrupted(_interrupted(config, bulk)) from None
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _interrupted(config: Config, bulk: bool) -> str:
    if not bulk:
        return "interrupted: run the same command again and it resumes after the last batch it committed"
    from ..graph import embedded_server
    from ..ingest.bulk import BULK_MARKER, half_loaded

    marker = embedded_server(config).home / BULK_MARKER
    if marker.is_file():
        return f"interrupted while loading: {half_loaded(json.loads(marker.read_text()))}"
    return "interrupted before the graph was written: run the same command again"


#: Free space under which a refused write of the embedded graph is said to be a full disk.
FULL_DISK = 64 << 20


@contextmanager
def _disk_full_said(config: Config):
    """A write the embedded graph refused with its disk full, said in those words: the
    server only answers "Transaction error on commit" (and logs the cause at shutdown)."""
    from ..ingest.pipeline import WriteRefused

    try:
        yield
    except WriteRefused as refused:
        if config.embedded:
            import shutil

            free = shutil.disk_usage(config.data_dir).free
            if free < FULL_DISK:
                raise CitegraphError(
                    f"the disk holding {config.data_dir} is full ({free / 2**20:.0f} MiB free): {refused}"
                ) from None
        raise


#: Options of a streaming ingest that a bulk load has no use for: it writes no batches, and
#: loads an empty graph only, so there is nothing to restart.
STREAMING_ONLY = ("batch_size", "restart")


def _refuse_with_bulk(ctx: click.Context) -> None:
    given = [
        p
        for p in ctx.command.params
        if p.name in STREAMING_ONLY and ctx.get_parameter_source(p.name) != click.core.ParameterSource.DEFAULT
    ]
    if given:
        names = " and ".join(p.opts[0] for p in given)
        raise click.UsageError(
            f"{names} {'does' if len(given) == 1 else 'do'} not apply to --bulk, which writes "
            "no batches and loads an empty graph only"
        )


def _surveyed(fmt, paths: list[Path]):
    """The format reading with its survey of all the files (printed), for formats that have one."""
    fmt, survey = fmt.surveyed([file for path in paths for file in fmt.files(path)])
    if survey is not None:
        print_table(f"{fmt.name}: what the files hold", survey.rows())
        for note in survey.notes():
            click.echo(note)
    return fmt


def _input_paths(format_name: str, paths: tuple[Path, ...]) -> list[Path]:
    from ..ingest.sources.taxonomy import BUNDLED

    if paths:
        return list(paths)
    if format_name != "taxonomy":
        raise click.UsageError(f"give the {format_name} file(s) or folder(s) to ingest")
    return [BUNDLED]


@main.group()
def export():
    """Write the graph of input files in another database's bulk format."""


@export.command("neo4j-admin")
@click.argument("format_name", metavar="FORMAT", type=click.Choice(sorted(FORMATS)))
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Folder for the CSV files (e.g. ./neo4j-import, mounted at /import by docker-compose.yml).",
)
@click.option("--database", default="neo4j", show_default=True, help="The Neo4j database to create.")
@click.option("--mounted-at", help="Where neo4j-admin sees --out (e.g. /import in the container).")
@click.option("--external", type=click.Choice(["keep", "drop"]), default="keep", show_default=True)
@selection_options
@click.option(
    "--build-memory",
    default="2GB",
    show_default=True,
    help="DuckDB's memory limit for the bulk build (it spills to disk beyond it), e.g. 4GB.",
)
@click.option("--progress/--no-progress", default=None)
def export_neo4j(format_name, paths, out, database, mounted_at, external, selection, build_memory, progress):
    """CSV files for `neo4j-admin database import full`, and the command that loads them.

    Validated and selected (--field, --since, --include-referenced, ...) like an ingest.
    Afterwards run `citegraph complete-import` against the new database: it applies the
    schema and the prefilter.
    """
    from ..ingest import IngestOptions, get
    from ..ingest.bulk.neo4j_admin import export_neo4j_admin

    show = sys.stderr.isatty() if progress is None else progress
    paths = _input_paths(format_name, paths)
    result = export_neo4j_admin(
        _surveyed(get(format_name), paths),
        paths,
        out,
        IngestOptions(external=external, selection=selection),
        RichProgress(show),
        database=database,
        memory=build_memory,
    )
    click.echo(
        f"{len(result.nodes)} node and {len(result.relationships)} relationship inputs "
        f"(a header and CSV parts each) in {out}"
    )
    click.echo("Stop the database, then run:\n  " + shlex.join(result.command_for(mounted_at)))


@main.command("complete-import")
@prefilter_options
@click.pass_obj
def complete_import(config: Config, prefilter):
    """After `neo4j-admin database import`: apply citegraph's schema and the prefilter."""
    from ..ingest import IngestOptions
    from ..ingest.bulk import complete_import as complete

    with open_graph(config) as store:
        print_eligibility(complete(store, IngestOptions(prefilter=prefilter)))


@main.command()
@prefilter_options
@click.pass_obj
def prefilter(config: Config, prefilter):
    """Mark papers eligible for evaluation as the MDCR paper prefilters S2ORC."""
    from ..ingest import prefilter as prefilter_

    with open_graph(config) as store:
        print_eligibility(prefilter_(store, prefilter))


@main.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    required=True,
    help="JSONL file to write (with --openalex: the snapshot folder).",
)
@click.option(
    "--openalex",
    is_flag=True,
    help="Write the same corpus as an OpenAlex works snapshot "
    "(ingest format 'openalex'): data/works/updated_date=…/part_*.gz and a manifest.",
)
def synth(out, openalex, **spec):
    """Write a deterministic synthetic corpus for scale work (no graph needed)."""
    from ..synth import generate, generate_openalex

    try:
        drawn = from_options(SynthSpec, spec)
        stats = generate_openalex(drawn, out) if openalex else generate(drawn, out)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    reader = "openalex" if openalex else "jsonl" if drawn.contexts else "s2orc"
    click.echo(
        f"wrote {stats.papers:,} papers and {stats.citations:,} citations to {out} "
        f"({stats.bytes / 1e6:,.1f} MB, {stats.seconds:.1f} s); ingest it with: "
        f"citegraph ingest {reader} {out}"
    )


synth.params[:0] = [click_option(o) for o in options_of(SynthSpec)]  # declared on SynthSpec's fields
