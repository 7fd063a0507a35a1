"""The ``citegraph`` command line: a thin layer over the modules it calls.

Every command that touches the graph takes the connection from flags, the environment
(``CITEGRAPH_URI`` …) or the config file; with no URI the embedded ArcadeDB server is
started for the command and stopped after it (or reused if ``citegraph server start`` runs).
Heavy libraries are imported inside commands so that ``citegraph --help`` stays instant.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import click

from . import __version__
from .config import Config
from .contextualise.models import MODELS as CONTEXT_MODELS
from .errors import CitegraphError
from .ingest.formats import FORMATS
from .retrieval.encoders import HUB_PREFIX, encoder_choices
from .retrieval.local.ablations import ABLATIONS, DEFAULT_ABLATIONS, LM_MODES
from .retrieval.local.prefetch import PREFETCHERS


class _Group(click.Group):
    """Prints a :class:`CitegraphError` as one line instead of a traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except CitegraphError as exc:
            raise click.ClickException(str(exc)) from exc


def _console():
    from rich.console import Console

    return Console(soft_wrap=True)  # paths and ids stay whole, copyable


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="citegraph")
@click.option("--uri", help="Bolt URI of a Neo4j 5 (or other Bolt) server [env CITEGRAPH_URI]; "
              "unset: the embedded ArcadeDB server.")
@click.option("--user", help="Graph user [env CITEGRAPH_USER, default neo4j]. The password comes "
              "from CITEGRAPH_PASSWORD or the config file, never from a flag.")
@click.option("--database", help="Database name [env CITEGRAPH_DATABASE; default: the server's].")
@click.option("--data-dir", type=click.Path(path_type=Path), help="Where citegraph keeps its data "
              "[env CITEGRAPH_DATA_DIR, default ~/.local/share/citegraph].")
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False),
              help="TOML config file [env CITEGRAPH_CONFIG, default ~/.config/citegraph/config.toml].")
@click.pass_context
def main(ctx, uri, user, database, data_dir, config_file):
    """citegraph: citation recommendation and its benchmarks on a graph database."""
    ctx.obj = Config.load(config_file, uri=uri, user=user, database=database, data_dir=data_dir)


@contextmanager
def _store(config: Config):
    from .graph import open_store

    if config.embedded:
        click.echo(f"Using the embedded ArcadeDB graph in {config.data_dir}", err=True)
    store = open_store(config)
    try:
        yield store
    finally:
        store.close()


# -- server ----------------------------------------------------------------------------
@main.group()
def server():
    """The embedded ArcadeDB Bolt server (for users without Neo4j)."""


def _arcade(config: Config, heap: str | None = None):
    from .graph import embedded_server

    return embedded_server(replace(config, heap=heap or config.heap))


@server.command("start")
@click.option("--port", type=int, default=7687, show_default=True, help="Bolt port on 127.0.0.1.")
@click.option("--heap", help="JVM heap, e.g. 4g (default: the JVM's, a quarter of RAM).")
@click.pass_obj
def server_start(config: Config, port: int, heap: str | None):
    """Start a long-lived ArcadeDB server on 127.0.0.1 for the data directory."""
    server_ = _arcade(config, heap)
    info = server_.start(port, detach=True)
    click.echo(f"ArcadeDB serves {server_.home} at {info.uri} (pid {info.pid}); log: {server_.log_file}")
    click.echo(f"user: root; password in {server_.home / 'credentials'}. "
               "Commands without --uri use this server while it runs.")


@server.command("stop")
@click.pass_obj
def server_stop(config: Config):
    """Stop the server of the data directory."""
    server_ = _arcade(config)
    click.echo("stopped" if server_.stop() else f"no server runs for {server_.home}")


@server.command("status")
@click.pass_obj
def server_status(config: Config):
    """Say whether a server runs for the data directory (exit code 1 if not)."""
    server_ = _arcade(config)
    info = server_.status()
    if info is None:
        click.echo(f"no server runs for {server_.home}")
        sys.exit(1)
    click.echo(f"running: {info.uri} (pid {info.pid}, HTTP {info.http_port}); log: {server_.log_file}")


# -- ingest ----------------------------------------------------------------------------
class _RichProgress:
    """The ingest pipeline's Progress drawn with rich: lines done, rate, time left."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._progress = None
        self._task = None

    def start(self, description: str, total: int | None) -> None:
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self._progress = Progress(  # one per phase: each leaves its final line behind
            TextColumn("{task.description:>10}"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
            console=_console(), disable=not self.enabled)
        self._progress.start()
        self._task = self._progress.add_task(description, total=total, rate="")

    def advance(self, lines: int) -> None:
        self._progress.advance(self._task, lines)
        speed = self._progress.tasks[-1].speed
        self._progress.update(self._task, rate=f"{speed:,.0f} lines/s" if speed else "")

    def finish(self) -> None:
        self._progress.stop()


INGEST_HELP = """Ingest PATHS (files or folders) in FORMAT into the graph.

\b
Formats:
""" + "\n".join(f"  {f.name:9} {f.summary}" for f in FORMATS.values()) + """

Input is validated before anything is written; writes are idempotent MERGEs in
batches, and a killed ingest resumes where it stopped when run again.
Without PATHS, 'taxonomy' reads the copy bundled with citegraph.
"""


@main.command(help=INGEST_HELP)
@click.argument("format_name", metavar="FORMAT", type=click.Choice(sorted(FORMATS)))
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--batch-size", default=2000, show_default=True, help="Input lines per transaction.")
@click.option("--skip-bad", is_flag=True, help="Leave bad lines out (listed in --rejects) instead of stopping.")
@click.option("--rejects", type=click.Path(path_type=Path, dir_okay=False), default="citegraph-rejects.jsonl",
              show_default=True, help="Where --skip-bad lists the bad lines and why.")
@click.option("--external", type=click.Choice(["keep", "drop"]), default="keep", show_default=True,
              help="Cited papers absent from the corpus: keep as :Paper:External stubs, or drop them "
                   "and their citations after the ingest.")
@click.option("--restart", is_flag=True, help="Ignore checkpoints: re-read files already ingested.")
@click.option("--min-abstract", default=30, show_default=True, help="Prefilter: minimum abstract length.")
@click.option("--min-citations", default=3, show_default=True, help="Prefilter: minimum citation count.")
@click.option("--bulk", is_flag=True, help="Load an empty embedded graph with ArcadeDB's bulk loader "
              "(about 7x faster; for Neo4j use `citegraph export neo4j-admin`).")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a terminal).")
@click.pass_obj
def ingest(config: Config, format_name: str, paths: tuple[Path, ...], batch_size, skip_bad, rejects,
           external, restart, min_abstract, min_citations, bulk, progress):
    from . import ingest as ingest_

    options = ingest_.IngestOptions(batch_size=batch_size, skip_bad=skip_bad, rejects=rejects, external=external,
                                    restart=restart,
                                    prefilter=ingest_.Prefilter(min_abstract=min_abstract, min_citations=min_citations))
    fmt, paths = ingest_.get(format_name), _input_paths(format_name, paths)
    show = sys.stderr.isatty() if progress is None else progress
    if bulk and not config.embedded:
        raise click.UsageError("--bulk loads the embedded ArcadeDB graph; for a Neo4j server write the "
                               "neo4j-admin files with `citegraph export neo4j-admin`")
    with _store(config) as store:
        if bulk:
            from .graph import embedded_server
            from .ingest.bulk import bulk_ingest

            summary = bulk_ingest(embedded_server(config), store, fmt, paths, options, _RichProgress(show),
                                  heap=config.heap)
        else:
            summary = ingest_.ingest(store, fmt, paths, options, _RichProgress(show))
    _print_summary(summary)


def _input_paths(format_name: str, paths: tuple[Path, ...]) -> list[Path]:
    from .ingest.taxonomy import BUNDLED

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
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for the CSV files (e.g. ./neo4j-import, mounted at /import by docker-compose.yml).")
@click.option("--database", default="neo4j", show_default=True, help="The Neo4j database to create.")
@click.option("--mounted-at", help="Where neo4j-admin sees --out (e.g. /import in the container).")
@click.option("--external", type=click.Choice(["keep", "drop"]), default="keep", show_default=True)
@click.option("--progress/--no-progress", default=None)
def export_neo4j(format_name, paths, out, database, mounted_at, external, progress):
    """CSV files for `neo4j-admin database import full`, and the command that loads them.

    Validated like an ingest. Afterwards run `citegraph complete-import` against the new
    database: it applies the schema and the prefilter.
    """
    from .ingest import IngestOptions, get
    from .ingest.bulk import export_neo4j_admin

    show = sys.stderr.isatty() if progress is None else progress
    result = export_neo4j_admin(get(format_name), _input_paths(format_name, paths), out,
                                IngestOptions(external=external), _RichProgress(show), database=database)
    click.echo(f"{len(result.nodes)} node and {len(result.relationships)} relationship file pairs in {out}")
    click.echo("Stop the database, then run:\n  " + shlex.join(result.command_for(mounted_at)))


@main.command("complete-import")
@click.option("--min-abstract", default=30, show_default=True)
@click.option("--min-citations", default=3, show_default=True)
@click.pass_obj
def complete_import(config: Config, min_abstract, min_citations):
    """After `neo4j-admin database import`: apply citegraph's schema and the prefilter."""
    from .ingest import IngestOptions, Prefilter
    from .ingest.bulk import complete_import as complete

    with _store(config) as store:
        _print_eligibility(complete(store, IngestOptions(prefilter=Prefilter(min_abstract, min_citations))))


def _print_summary(summary) -> None:
    from rich.table import Table

    w = summary.write
    table = Table(title=f"ingest {summary.format}: {summary.files} file(s), {summary.seconds:.1f} s",
                  show_header=False)
    rows = [
        ("lines read", summary.lines),
        *((f"records: {kind}", n) for kind, n in sorted(w.records.items())),
        ("bad lines skipped", summary.rejected),
        ("citations written", w.citations),
        ("self-citations skipped", w.self_citations),
        ("nodes created", w.nodes_created),
        ("relationships created", w.relationships_created),
        ("external stubs created", w.external_created),
        ("external stubs now full papers", w.external_upgraded),
        ("external stubs dropped", summary.external_dropped),
    ]
    rate = summary.lines / summary.seconds if summary.seconds else 0
    rows.append(("lines/s", f"{rate:,.0f}"))
    for label, value in rows:
        table.add_row(label, f"{value:,}" if isinstance(value, int) else str(value))
    console = _console()
    console.print(table)
    for file in summary.skipped_files:
        console.print(f"already ingested, skipped (use --restart to re-read): {file}")
    for file, line in summary.resumed.items():
        console.print(f"resumed {file} after line {line:,}")
    if summary.rejects_file:
        console.print(f"[yellow]{summary.rejected:,} bad line(s) listed in {summary.rejects_file}[/]")
    _print_eligibility(summary.eligibility)


def _print_eligibility(counts: dict[str, int]) -> None:
    labels = {"papers": "corpus papers", "with_year": "with a year", "with_title": "with a title",
              "with_abstract": "with an abstract ≥ min length", "with_citations": "with ≥ min citations",
              "eligible": "eligible (all of these)"}
    _table("prefilter (MDCR §3)", [{"criterion": labels.get(k, k), "papers": v} for k, v in counts.items()])


@main.command()
@click.option("--min-abstract", default=30, show_default=True, help="Minimum abstract length in characters.")
@click.option("--min-citations", default=3, show_default=True, help="Minimum in-corpus citation count.")
@click.pass_obj
def prefilter(config: Config, min_abstract: int, min_citations: int):
    """Mark papers eligible for evaluation as the MDCR paper prefilters S2ORC."""
    from .ingest import Prefilter, prefilter as prefilter_

    with _store(config) as store:
        _print_eligibility(prefilter_(store, Prefilter(min_abstract, min_citations)))


@main.command()
@click.option("--papers", type=click.IntRange(1), required=True, help="How many papers (1k to 2M).")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), required=True, help="JSONL file to write.")
@click.option("--seed", default=0, show_default=True, help="Same seed and options, same bytes.")
@click.option("--topics", default=50, show_default=True)
@click.option("--citations-per-paper", default=10.0, show_default=True)
@click.option("--start-year", default=1990, show_default=True)
@click.option("--end-year", default=2022, show_default=True)
@click.option("--contexts", is_flag=True, help="Write citegraph's generic JSONL with citation contexts "
              "(ingest format 'jsonl') instead of S2ORC metadata (format 's2orc').")
def synth(papers, out, seed, topics, citations_per_paper, start_year, end_year, contexts):
    """Write a deterministic synthetic corpus for scale work (no graph needed)."""
    from .synth import SynthSpec, generate

    try:
        spec = SynthSpec(papers=papers, seed=seed, topics=topics, citations_per_paper=citations_per_paper,
                         start_year=start_year, end_year=end_year, contexts=contexts)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    stats = generate(spec, out)
    click.echo(f"wrote {stats.papers:,} papers and {stats.citations:,} citations to {out} "
               f"({stats.bytes / 1e6:,.1f} MB, {stats.seconds:.1f} s); ingest it with: "
               f"citegraph ingest {'jsonl' if contexts else 's2orc'} {out}")


# -- retrieval ------------------------------------------------------------------------
def _indexes(config: Config) -> Path:
    return Path(config.data_dir) / "indexes"


@main.group()
def index():
    """Build text indexes over the corpus in the graph (under <data dir>/indexes)."""


@index.command("bm25")
@click.option("--multifield", is_flag=True, help="Index title and abstract as separate fields "
              "(searched with weights) instead of one contents field.")
@click.option("--backend", type=click.Choice(["lucene", "bm25s"]), help="Default: Lucene when pyserini is installed.")
@click.option("--k1", default=0.9, show_default=True)
@click.option("--b", default=0.4, show_default=True)
@click.option("--threads", type=int, help="Indexing threads (default: all cores).")
@click.option("--eligible-only", is_flag=True, help="Only papers the prefilter marked eligible.")
@click.pass_obj
def index_bm25(config: Config, multifield, backend, k1, b, threads, eligible_only):
    """BM25 over title + abstract of every corpus paper."""
    from .retrieval import index_dir
    from .retrieval.bm25 import build_bm25
    from .retrieval.corpus import documents

    name = "bm25-multifield" if multifield else "bm25"
    with _store(config) as store:
        retriever = build_bm25(documents(store, eligible_only), index_dir(_indexes(config), name), backend=backend,
                               multifield=multifield, k1=k1, b=b, threads=threads)
    click.echo(f"{name}: {retriever.documents:,} documents indexed in {index_dir(_indexes(config), name)}")


@index.command("dense")
@click.option("--encoder", "encoder_name", default="minilm", show_default=True,
              help="One of: " + ", ".join(encoder_choices()) + ".")
@click.option("--kind", type=click.Choice(["flat", "ivf", "hnsw"]), default="flat", show_default=True,
              help="Faiss index: exact (flat) as in the paper, or approximate.")
@click.option("--dtype", type=click.Choice(["auto", "float32", "bfloat16", "float16", "int8"]), default="auto",
              show_default=True, help="Encoder precision (bfloat16: about 2x faster on CPU, near-identical vectors).")
@click.option("--batch-size", default=32, show_default=True)
@click.option("--threads", type=int, default=1, show_default=True, help="CPU threads for the encoder and Faiss.")
@click.option("--eligible-only", is_flag=True, help="Only papers the prefilter marked eligible.")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a terminal).")
@click.pass_obj
def index_dense(config: Config, encoder_name, kind, dtype, batch_size, threads, eligible_only, progress):
    """Encode every corpus paper (resumable, cached) and build its Faiss index."""
    from .retrieval import index_dir
    from .retrieval.corpus import documents
    from .retrieval.dense import build_dense
    from .retrieval.encoders import get_encoder

    encoder = get_encoder(encoder_name, dtype=dtype, batch_size=batch_size, threads=threads)
    with _store(config) as store:
        docs = list(documents(store, eligible_only))
    bar = _RichProgress(sys.stderr.isatty() if progress is None else progress)
    bar.start("encoding", len(docs))
    done = 0

    def advance(complete: int, _total: int) -> None:
        nonlocal done
        bar.advance(complete - done)
        done = complete

    try:
        build_dense(docs, encoder, index_dir(_indexes(config), encoder_name), Path(config.data_dir) / "embeddings",
                    kind=kind, threads=threads, progress=advance, log=lambda line: click.echo(line, err=True))
    finally:
        bar.finish()
    click.echo(f"{encoder_name}: {len(docs):,} documents in {index_dir(_indexes(config), encoder_name)}")


@main.command()
@click.argument("text")
@click.option("--with", "name", default="bm25", show_default=True,
              help="bm25, bm25-multifield, an encoder name with a built index, or rrf:<name>+<name>.")
@click.option("-k", default=10, show_default=True)
@click.option("--pool", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A file of paper ids (one a line): rank only these.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def search(config: Config, text, name, k, pool, as_json):
    """Rank the corpus (or a pool) for a free TEXT."""
    from .retrieval import open_retriever
    from .retrieval.corpus import documents_by_id

    retriever = open_retriever(name, _indexes(config))
    pools = [set(pool.read_text(encoding="utf-8").split())] if pool else None
    [ranking] = retriever.search([text], k, pools)
    with _store(config) as store:
        docs = documents_by_id(store, [h.id for h in ranking])
    rows = [{"rank": i, "id": h.id, "score": round(h.score, 4), "title": docs[h.id].title if h.id in docs else None}
            for i, h in enumerate(ranking, start=1)]
    if as_json:
        for row in rows:
            click.echo(json.dumps(row, ensure_ascii=False))
    else:
        _table(f"{retriever.name}: {text}", rows)


# -- benchmarks from the graph ---------------------------------------------------------
def _ids_file(path: Path | None) -> list[str]:
    return path.read_text(encoding="utf-8").split() if path else []


def _print_manifest(manifest, out: Path) -> None:
    click.echo(f"{manifest.kind}: {manifest.queries:,} queries of {manifest.year}, seed {manifest.seed} → {out}")
    for entry in manifest.pools:
        capped = " (capped: all there is)" if entry["capped"] else ""
        click.echo(f"  {entry['file']}: {entry['papers']:,} papers{capped}")


_pool_options = [
    click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Output folder."),
    click.option("--seed", default=0, show_default=True),
    click.option("--year", type=int, help="Query year (default: the latest year with enough queries)."),
    click.option("--exclude", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                 help="Paper ids (one a line) never used, e.g. an encoder's training set."),
    click.option("--repeats", default=3, show_default=True, help="Pools drawn anew per size (or field)."),
]


def _with_pool_options(command):
    for option in reversed(_pool_options):
        command = option(command)
    return command


@main.group()
def pools():
    """Large-scale candidate pools (Medić & Šnajder 2022, §3) from the graph."""


@pools.command("dataset-level")
@click.option("--queries", "n_queries", default=1000, show_default=True)
@click.option("--sizes", default="200000,500000,1000000,2000000", show_default=True,
              help="Pool sizes, comma-separated (capped at what the graph holds).")
@_with_pool_options
@click.pass_obj
def pools_dataset(config: Config, n_queries, sizes, out, seed, year, exclude, repeats):
    """Queries of one year; pools = cited papers + random eligible papers up to that year."""
    from .evaluation import pools as pools_

    with _store(config) as store:
        manifest = pools_.dataset_level(store, out, n_queries=n_queries, sizes=[int(s) for s in sizes.split(",")],
                                        repeats=repeats, seed=seed, year=year, exclude=_ids_file(exclude))
    _print_manifest(manifest, out)


@pools.command("field-level")
@click.option("--queries", "n_queries", default=200, show_default=True, help="Queries per field.")
@click.option("--size", default=100_000, show_default=True, help="Pool size per field.")
@click.option("--fields", help="Comma-separated MAG fields (default: all 19).")
@_with_pool_options
@click.pass_obj
def pools_field(config: Config, n_queries, size, fields, out, seed, year, exclude, repeats):
    """Per field: its queries; pools = cited papers + random papers of the field-cited set."""
    from .evaluation import pools as pools_
    from .ingest.records import MAG_FIELDS

    with _store(config) as store:
        manifest = pools_.field_level(store, out, fields=fields.split(",") if fields else MAG_FIELDS,
                                      n_queries=n_queries, size=size, repeats=repeats, seed=seed, year=year,
                                      exclude=_ids_file(exclude))
    _print_manifest(manifest, out)


@main.group()
def mdcr():
    """The MDCR benchmark (Medić & Šnajder 2022, §4) from the graph."""


@mdcr.command("build")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Output folder.")
@click.option("--models", default="", help="Retrievers for the model-based negatives, comma-separated "
              "(built indexes: bm25, bm25-multifield, encoder names); the 3 least overlapping are used.")
@click.option("--queries", "n_queries", default=200, show_default=True, help="Queries per field.")
@click.option("--fields", help="Comma-separated MAG fields (default: all 19).")
@click.option("--pool-size", default=100_000, show_default=True, help="Field-level pool the models rank.")
@click.option("--seed", default=0, show_default=True)
@click.option("--year", type=int, help="Query year (default: the latest year with enough queries).")
@click.option("--exclude", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Paper ids (one a line) never used as queries or candidates.")
@click.option("--split", default="test", show_default=True, help="Names the files: mdcr_<split>.json …")
@click.pass_obj
def mdcr_build(config: Config, out, models, n_queries, fields, pool_size, seed, year, exclude, split):
    """5 cited + 10 negatives of each type per query, in the official release format."""
    from .evaluation import mdcr as mdcr_
    from .ingest.records import MAG_FIELDS
    from .retrieval import open_retriever

    retrievers = [open_retriever(name, _indexes(config)) for name in models.split(",") if name]
    with _store(config) as store:
        manifest = mdcr_.build(store, out, fields=fields.split(",") if fields else MAG_FIELDS,
                               n_queries=n_queries, retrievers=retrievers, pool_size=pool_size, seed=seed,
                               year=year, exclude=_ids_file(exclude), split=split)
    click.echo(f"MDCR: {manifest.queries:,} queries of {manifest.year}, seed {seed} → {out}")
    short = {k: v for k, v in manifest.graph["shortfall"].items() if v}
    if short:
        click.echo(f"  candidates missing (too few allowed in the graph): {short}")
    if manifest.graph["model_selection"]:
        click.echo(f"  model-based types: {', '.join(manifest.graph['model_selection']['chosen'])}")


@main.command()
@click.argument("ids", nargs=-1, required=True)
@click.option("--size", default=300, show_default=True, help="Candidates + neighbours in all (SymTax: 300).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def enrich(config: Config, ids, size, as_json):
    """Widen candidate IDS with the papers they cite most (SymTax's ego-network Enricher)."""
    from .retrieval.signals import enrich as enrich_

    with _store(config) as store:
        result = enrich_(store, list(ids), size)
    rows = [{"id": i, "added": i in result.frequency, "cited_by_candidates": result.frequency.get(i)}
            for i in result.ids]
    if as_json:
        click.echo(json.dumps(rows))
    else:
        _table(f"{len(ids)} candidates enriched to {len(result.ids)}", rows)


# -- recommendation ---------------------------------------------------------------------
_with_retrievers = click.option(
    "--with", "retrievers", default="bm25", show_default=True,
    callback=lambda ctx, param, value: [name for name in value.split(",") if name],
    help="Comma-separated text retrievers with built indexes (citegraph index …); '' for graph only.")
_learned_weights = click.option("--model", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                                help="Learned weights (citegraph recommend-train).")


@main.command()
@click.option("--paper", help="A paper id in the graph.")
@click.option("--title", default="", help="A new paper's title (instead of --paper).")
@click.option("--abstract", default="", help="A new paper's abstract.")
@click.option("--reference", "references", multiple=True, help="A reference already chosen (repeatable).")
@click.option("--year", type=int, help="Recommend nothing newer (default for --paper: its year).")
@click.option("--field", help="Only papers of this MAG field.")
@click.option("--category", help="Only papers of this arXiv category.")
@click.option("-k", "--k", default=20, show_default=True)
@_with_retrievers
@_learned_weights
@click.option("--explain", is_flag=True, help="Show why each paper is recommended.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def recommend(config: Config, paper, title, abstract, references, year, field, category, k, retrievers, model,
              explain, as_json):
    """Which papers should this paper cite? From the graph and text scorers, with reasons."""
    from .recommend import Recommender, recommendation_dict

    with Recommender.open(config, retrievers, model) as rec:
        seed = rec.seed(paper, title=title, abstract=abstract, references=references, year=year, field=field,
                        category=category)
        found = rec.recommend_for(seed, k)
    if as_json:
        click.echo(json.dumps([recommendation_dict(r) for r in found], ensure_ascii=False, indent=1))
        return
    _print_recommendations(f"recommended for {paper or title or 'the abstract'}", found, explain)


def _print_recommendations(title: str, found, explain: bool) -> None:
    """A table; with explanations, one paper per line and its reasons under it (a table
    cell would fold them into unreadable slivers on an 80-column terminal)."""
    if not explain:
        _table(title, [{"rank": i, "id": r.id, "year": r.year, "score": round(r.score, 3), "title": r.title}
                       for i, r in enumerate(found, start=1)])
        return
    from rich.markup import escape

    console = _console()
    console.print(f"[bold]{escape(title)}[/]" if found else f"{escape(title)}: no rows")
    for rank, r in enumerate(found, start=1):
        console.print(f"{rank:>3}. [bold]{r.id}[/] ({r.year}) {escape(r.title or '')} · score {r.score:.3f}")
        for reason in r.explanation():
            console.print(f"       · {escape(reason)}")


@main.command("recommend-train")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Weights file (JSON).")
@click.option("--papers", default=300, show_default=True, help="Held-out citations to learn from.")
@click.option("--seed", default=0, show_default=True)
@_with_retrievers
@click.pass_obj
def recommend_train(config: Config, out, papers, seed, retrievers):
    """Learn the recommender's weights on held-out citations of the graph (logistic regression)."""
    from .recommend import Recommender, held_out_citations, save_weights, train

    with Recommender.open(config, retrievers) as rec:
        weights = train(rec, held_out_citations(rec.store, papers, seed))
    save_weights(out, weights, {"trained_on": papers, "seed": seed, "retrievers": retrievers})
    _table(f"learned weights → {out}", [{"feature": k, "weight": round(v, 4)} for k, v in weights.items()])


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Interface to listen on (loopback: only this machine can connect).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@_with_retrievers
@_learned_weights
@click.pass_obj
def serve(config: Config, host, port, retrievers, model):
    """HTTP service (/recommend, /paper, /neighbours, /search, /queries; docs at /docs) and the graph explorer at /."""
    try:
        from .serve import serve as serve_
    except ImportError as exc:
        raise CitegraphError(f"citegraph serve needs the [serve] extra ({exc.name} is not installed): "
                             "pip install 'citegraph[serve]'") from exc

    serve_(config, host, port, tuple(retrievers), model,
           log=lambda line: click.echo(line, err=True))


# -- contextualisation ------------------------------------------------------------------
@main.command()
@click.option("--cited", required=True,
              help="The cited paper's id in the graph: its title and abstract sentences are ranked.")
@click.option("--citing", "texts", multiple=True, help="A citing sentence (repeatable).")
@click.option("--citing-paper", help="Instead of --citing: the citing sentences on this paper's citation of --cited.")
@click.option("--limit", default=20, show_default=True,
              help="Without --citing or --citing-paper: the sentences of at most this many citing papers.")
@click.option("--model", "model_name", type=click.Choice(list(CONTEXT_MODELS)), default="lmd", show_default=True,
              help="Contextualisation model (Cohan & Goharian 2017; see `citegraph evaluate contextualise`).")
@click.option("--ontology", "ontologies", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Synonyms for we+dmn / we+rtrft: SKOS XML or a TAB-separated thesaurus (repeatable; "
                   "default: the ACM concepts in the graph).")
@click.option("-p", "--param", "pairs", multiple=True, metavar="KEY=VALUE",
              help="A model parameter (mu; k1, b; lam, gamma), default: as tuned on CL-SciSumm.")
@click.option("-k", "--k", default=3, show_default=True, help="Sentences shown per citing text.")
@click.option("--rebuild", is_flag=True, help="Rebuild the word statistics and vectors learned from the graph.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def contextualise(config: Config, cited, texts, citing_paper, limit, model_name, ontologies, pairs, k, rebuild,
                  as_json):
    """Which sentences of the cited paper a citation refers to."""
    from dataclasses import asdict

    from .contextualise import graph
    from .contextualise.models import settings

    model = CONTEXT_MODELS[model_name]
    overrides = {}
    for pair in pairs:
        key, _, text = pair.partition("=")
        try:
            overrides[key] = float(text)
        except ValueError:
            raise click.BadParameter(f"expected KEY=NUMBER, got {pair!r}", param_hint="-p") from None
    params = settings(model, overrides)
    with _store(config) as store:
        reference = graph.cited_reference(store, cited)
        citing = graph.citing_texts(store, cited, texts, citing_paper, limit)
        resources = graph.graph_resources(store, model, _indexes(config) / "contextualise", ontologies, rebuild,
                                          lambda message: click.echo(message, err=True))
        found = graph.contextualise(reference, citing, model, resources, k, params)
    if as_json:
        click.echo(json.dumps([asdict(f) for f in found], ensure_ascii=False, indent=1))
        return
    for item in found:
        who = f"{item.citing.citing} → {cited}" if item.citing.citing else f"→ {cited}"
        _table(f"{who}: {item.citing.text}", [{"rank": e.rank, "sentence": e.sid, "score": round(e.score, 3),
                                                "text": e.text} for e in item.evidence])


# -- local citation recommendation -------------------------------------------------------
@main.group()
def contexts():
    """Citation contexts: the query sets of local citation recommendation."""


@contexts.command("export")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Query set (JSONL).")
@click.pass_obj
def contexts_export(config: Config, out):
    """Write every citation context in the graph as a query set: context id, citing id, context text
    (sentence before, citing sentence with [CIT], sentence after), the citing paper's title, abstract,
    arXiv categories and year, and the cited id (the input of `citegraph evaluate local --data`)."""
    from .retrieval.local.data import export_contexts

    with _store(config) as store:
        counts = export_contexts(store, out)
    _table(f"query set → {out}", [{"count": k.replace("_", " "), "value": v} for k, v in counts.items()])


# -- evaluation -------------------------------------------------------------------------
def _run_files(paths: tuple[Path, ...]):
    from .evaluation.scorers import RunFile

    return [RunFile(p) for p in paths]


def _print_tables(tables) -> None:
    from rich.markdown import Markdown

    console = _console()
    for table in tables:
        console.print(Markdown(table.markdown()))


_run_option = click.option("--run", "runs", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
                           help="Also score a TREC run file of another tool (qid Q0 doc rank score tag).")


@main.group()
def evaluate():
    """Score retrievers on benchmarks: large-scale pools, MDCR, CSFCube, CL-SciSumm contextualisation,
    local citation recommendation (SymTax)."""


@evaluate.command("large-scale")
@click.option("--pools", "pools_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="A folder written by `citegraph pools dataset-level|field-level`.")
@click.option("--models", default="bm25", show_default=True,
              help="Comma-separated retrievers with built indexes (citegraph index …).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@_run_option
@click.pass_obj
def evaluate_large_scale(config: Config, pools_dir, models, out, runs):
    """Tables 1 and 2 of Medić & Šnajder: MAP / nDCG / R@30 per pool size or per field."""
    from .evaluation.large_scale import evaluate_pools
    from .retrieval import open_retriever

    retrievers = [open_retriever(m, _indexes(config)) for m in models.split(",") if m] + _run_files(runs)
    _print_tables(evaluate_pools(pools_dir, retrievers, out))
    click.echo(f"results and figures in {out}")


@evaluate.command("mdcr")
@click.option("--benchmark", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="A folder with mdcr_<split>.json and mdcr_<split>_data.jsonl (ours or the official release).")
@click.option("--models", default="bm25", show_default=True,
              help="Comma-separated: bm25, bm25-multifield, encoder names, rrf:a+b (indexed over the benchmark).")
@click.option("--split", default="test", show_default=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@_run_option
@click.pass_obj
def evaluate_mdcr(config: Config, benchmark, models, split, out, runs):
    """Tables 3 and 4 of Medić & Šnajder: per field MAP / nDCG / R@5, and per candidate type."""
    from .evaluation.mdcr_eval import evaluate_mdcr as evaluate_mdcr_, read_benchmark
    from .evaluation.scorers import build_retriever

    _, docs = read_benchmark(benchmark, split)
    work = Path(out) / "indexes"
    retrievers = [build_retriever(m, list(docs.values()), work) for m in models.split(",") if m] + _run_files(runs)
    _print_tables(evaluate_mdcr_(benchmark, retrievers, out, split))
    click.echo(f"results and figures in {out}")


@evaluate.command("recommend")
@click.option("--papers", default=300, show_default=True, help="Held-out citations to test on.")
@click.option("--seed", default=0, show_default=True, help="Same seed as recommend-train: its papers are skipped.")
@click.option("--skip", default=300, show_default=True, help="Papers of the draw used for training (skipped).")
@_learned_weights
@_with_retrievers
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.pass_obj
def evaluate_recommend(config: Config, papers, seed, skip, model, retrievers, out):
    """The recommender on held-out citations: text alone, plain fusion, learned weights."""
    from .evaluation.report import Table, write_results
    from .recommend import DEFAULT_WEIGHTS, Recommender, evaluate_held_out, held_out_citations, load_weights

    variants = {"text only": {"text": 1.0}, "fusion (default weights)": DEFAULT_WEIGHTS}
    if model:
        variants["learned"] = load_weights(model)
    with Recommender.open(config, retrievers) as rec:
        results = evaluate_held_out(rec, held_out_citations(rec.store, papers, seed, skip=skip), variants)
    measures = list(next(iter(results.values())).mean)
    table = Table(f"held-out citations ({papers} papers, text: {', '.join(retrievers) or 'none'})", measures)
    for name, result in results.items():
        for measure, value in result.mean.items():
            table.set(name, measure, value)
    write_results(out, {"papers": papers, "seed": seed, "skip": skip, "retrievers": retrievers,
                        "variants": variants}, [table], {n: r.per_query for n, r in results.items()})
    _print_tables([table])


@evaluate.command("csfcube")
@click.option("--data", "data_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="The official CSFCube release folder.")
@click.option("--models", default="bm25", show_default=True,
              help="Comma-separated: bm25 (facet sentences vs whole abstracts), <encoder> (whole abstracts), "
                   "<encoder>:facet, <encoder>:maxsim (best sentence pair).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--run", "run_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Also score a TREC run file (qid pid_facet, or pid with --run-facet).")
@click.option("--run-facet", type=click.Choice(["background", "method", "result"]))
@click.option("--work", type=click.Path(file_okay=False, path_type=Path),
              help="Where indexes and embeddings are kept (default: OUT/indexes).")
def evaluate_csfcube(data_dir, models, out, run_file, run_facet, work):
    """Faceted query-by-example on CSFCube, scored as its authors' script scores it."""
    from .evaluation.csfcube import run_csfcube

    result = run_csfcube(data_dir, [m for m in models.split(",") if m], out, run_file=run_file, run_facet=run_facet,
                         work=work or Path(out) / "indexes")
    _print_tables(result["tables"])
    click.echo(f"results in {out}")


@evaluate.command("contextualise")
@click.option("--data", "data_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="A CL-SciSumm folder: one folder per topic with Reference_XML/ and annotation/.")
@click.option("--models", default=",".join(CONTEXT_MODELS), show_default=True,
              help=f"Comma-separated, of: {', '.join(CONTEXT_MODELS)}.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--folds", default=5, show_default=True, help="Cross-validation folds over topics (parameter tuning).")
@click.option("--seed", default=0, show_default=True, help="Shuffles the topics into folds.")
@click.option("--ontology", "ontologies", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Synonyms: SKOS XML or a TAB-separated thesaurus (repeatable; default: the bundled ACM CCS 2012).")
@click.option("--acronyms/--no-acronyms", default=True, show_default=True,
              help="Add the acronym definitions the benchmark's texts state to the synonyms.")
@click.option("--corpus", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="More text for the word vectors: JSONL (title, abstract, contexts) or plain lines (repeatable).")
@click.option("--vectors", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Word vectors saved by an earlier run (OUT/vectors) instead of training.")
def evaluate_contextualise(data_dir, models, out, folds, seed, ontologies, acronyms, corpus, vectors):
    """Table 1 of Cohan & Goharian (2017): which reference sentences a citance refers to."""
    from .contextualise.evaluation import evaluate_clscisumm

    tables = evaluate_clscisumm(data_dir, out, [m for m in models.split(",") if m], folds, seed,
                                list(ontologies) or None, acronyms, corpus, vectors,
                                log=lambda message: click.echo(message, err=True))
    _print_tables(tables)
    click.echo(f"results in {out}")


def _lm(value: str) -> str:
    """An LM given as a model folder is read as hf:<folder>; names and hub ids stay as they are."""
    value = value.strip()
    return f"{HUB_PREFIX}{value}" if not value.startswith(HUB_PREFIX) and Path(value).expanduser().is_dir() else value


@evaluate.command("local")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--data", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A query set (JSONL, see README; `citegraph contexts export` writes one). "
                   "Default: every context in the graph, exported to OUT/contexts.jsonl.")
@click.option("--encoder", default="minilm", show_default=True,
              help="The reranker's LM, or several comma-separated (they fill the LM × fusion table): "
                   f"{', '.join(encoder_choices())} or a model folder.")
@click.option("--prefetch", type=click.Choice(PREFETCHERS), default="bm25", show_default=True,
              help="First stage: BM25, a dense encoder (--prefetch-encoder) or their reciprocal-rank fusion.")
@click.option("--prefetch-encoder", default="minilm", show_default=True, help="The dense prefetcher's encoder.")
@click.option("--ablations", default=",".join(DEFAULT_ABLATIONS), show_default=True,
              help=f"Comma-separated, of: {', '.join(ABLATIONS)} ('' for the full model only).")
@click.option("--enrich/--no-enrich", default=True, show_default=True,
              help="SymTax's Enricher; --no-enrich sends no enrichment query: models rank the prefetched lists.")
@click.option("--lm-mode", type=click.Choice(LM_MODES),
              help="finetune: every variant fine-tunes its LM (SymTax); shared: the full model fine-tunes it, "
                   "the ablations reuse it frozen; frozen: the pretrained LM as a cached feature extractor "
                   "[default: finetune on a GPU, shared on CPU].")
@click.option("--max-steps", default=200, show_default=True, type=click.IntRange(0),
              help="Training steps per reranker (the CPU bound).")
@click.option("--max-train", default=2000, show_default=True, type=click.IntRange(1),
              help="Training contexts: a random sample of the older citing papers' contexts.")
@click.option("--max-test", default=500, show_default=True, type=click.IntRange(1),
              help="Test contexts: a random sample of the newer citing papers' contexts.")
@click.option("--test-share", default=0.2, show_default=True, type=click.FloatRange(0, 1, min_open=True, max_open=True),
              help="Share of the contexts, newest citing papers first, held out for testing.")
@click.option("--whole-years", is_flag=True, help="Cut the time-ordered split between years only.")
@click.option("--textless", type=click.Choice(["skip", "keep"]), default="skip", show_default=True,
              help="Contexts citing a paper without title and abstract: skip them, or keep them (such papers "
                   "are reachable only through enrichment).")
@click.option("--depth", default=100, show_default=True, help="Prefetched candidates per context.")
@click.option("--size", default=300, show_default=True, help="Candidates after enrichment.")
@click.option("--max-length", default=256, show_default=True, help="Tokens of a (query, candidate) pair.")
@click.option("--proj-dim", default=64, show_default=True, help="Dimension of the taxonomy manifold.")
@click.option("--negatives", default=4, show_default=True, help="Negatives per positive, from the candidate list.")
@click.option("--bm25-backend", type=click.Choice(["lucene", "bm25s"]), help="Default: Lucene when installed.")
@click.option("--device", help="torch device [default: cuda when available, else cpu].")
@click.option("--seed", default=12, show_default=True)
@click.pass_obj
def evaluate_local(config: Config, out, data, encoder, prefetch, prefetch_encoder, ablations, enrich, lm_mode,
                   max_steps, max_train, max_test, test_share, whole_years, textless, depth, size, max_length,
                   proj_dim, negatives, bm25_backend, device, seed):
    """SymTax's Tables 3 and 4: prefetch → enrichment → taxonomy-aware reranker, and its ablations,
    trained on older citing papers and tested on newer ones, the test citations hidden from the graph."""
    from .retrieval.local.evaluate import evaluate_local as evaluate_local_
    from .retrieval.local.rerank import RerankerConfig, default_device

    lm_mode = lm_mode or ("finetune" if (device or default_device()).startswith("cuda") else "shared")
    reranker = RerankerConfig(max_length=max_length, proj_dim=proj_dim, negatives=negatives, device=device)

    def log(message: str) -> None:
        click.echo(message, err=True)

    log(f"reranker LM mode: {lm_mode}, at most {max_steps} training steps per reranker")
    lms = [_lm(e) for e in encoder.split(",") if e.strip()]
    with _store(config) as store:
        tables = evaluate_local_(store, out, data=data, prefetch=prefetch, encoder=lms, max_steps=max_steps,
                                 ablations=[a for a in ablations.split(",") if a], enrich=enrich,
                                 lm_mode=lm_mode, textless=textless, test_share=test_share,
                                 whole_years=whole_years, max_train=max_train, max_test=max_test, depth=depth,
                                 size=size, prefetch_encoder=_lm(prefetch_encoder), bm25_backend=bm25_backend,
                                 reranker=reranker, seed=seed, log=log)
    _print_tables(tables)
    click.echo(f"results in {out}")


@main.command("tune-bm25")
@click.option("--pools", "pools_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="A validation pool folder (citegraph pools …), built like the test pools.")
@click.option("--index", "name", type=click.Choice(["bm25", "bm25-multifield"]), default="bm25", show_default=True)
@click.pass_obj
def tune_bm25(config: Config, pools_dir, name):
    """Grid-search BM25's k1 and b for MAP on validation pools, as the MDCR paper did."""
    from .evaluation.large_scale import tune_bm25 as tune
    from .retrieval import index_dir

    tuning = tune(pools_dir, index_dir(_indexes(config), name))
    bs = sorted({b for _, b in tuning.table})
    _table(f"MAP of {name} on {pools_dir} (k1 × b)",
           [{"k1": k1, **{f"b={b:g}": round(tuning.table[(k1, b)] * 100, 2) for b in bs}}
            for k1 in sorted({k1 for k1, _ in tuning.table})])
    click.echo(f"best: k1={tuning.k1:g} b={tuning.b:g} (MAP {tuning.map * 100:.2f}); rebuild with "
               f"`citegraph index bm25{' --multifield' if name != 'bm25' else ''} --k1 {tuning.k1:g} --b {tuning.b:g}`")


@main.command()
@click.argument("results", type=click.Path(exists=True, file_okay=False, path_type=Path))
def report(results):
    """Print the tables of an evaluation's results.json again and redraw its figures."""
    from .evaluation.report import draw, load_tables

    tables = load_tables(results)
    _print_tables(tables)
    for path in draw(tables, results):
        click.echo(f"figure: {path}")


# -- looking at the graph ----------------------------------------------------------------
def _table(title: str, rows: list[dict]) -> None:
    from rich.table import Table

    table = Table(title=title)
    for column in rows[0] if rows else []:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(_cell(v, column) for column, v in row.items()))
    _console().print(table if rows else f"{title}: no rows")


def _cell(value, column: str = "") -> str:
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value) if column == "year" else f"{value:,}"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
@click.pass_obj
def stats(config: Config, as_json: bool):
    """Counts per label and relationship type, and the citation degree summary."""
    from .graph.schema import graph_stats

    with _store(config) as store:
        result = graph_stats(store)
    _print_stats(result, as_json)


def _print_stats(result: dict[str, list[dict]], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    _table("nodes per label", result["labels"])
    _table("relationships per type", result["relationships"])
    degrees = result["citation_degrees"][0] if result["citation_degrees"] else {}
    _table("citation degrees", [{"statistic": k, "value": v} for k, v in degrees.items()])


def _parse_params(query, pairs: Iterable[str]) -> dict:
    params = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep:
            raise click.BadParameter(f"expected key=value, got {pair!r}", param_hint="-p")
        if key not in query.parameters:
            declared = ", ".join(query.parameters) or "none"
            raise click.BadParameter(f"query '{query.name}' has no parameter ${key} (it has: {declared})",
                                     param_hint="-p")
        try:
            params[key] = query.parameters[key].parse(text)
        except CitegraphError as exc:
            raise click.BadParameter(str(exc), param_hint="-p") from exc
    return params


@main.command()
@click.argument("name", required=False)
@click.option("-p", "--param", "pairs", multiple=True, metavar="KEY=VALUE",
              help="A query parameter, converted to the type the query declares (JSON for list/map).")
@click.option("--json", "as_json", is_flag=True, help="Stream rows as JSON lines instead of a table.")
@click.option("--list", "list_", is_flag=True, help="List the named queries with their parameters.")
@click.pass_obj
def query(config: Config, name: str | None, pairs: tuple[str, ...], as_json: bool, list_: bool):
    """Run the named query NAME (a file citegraph/cypher/NAME.cypher)."""
    from .graph import queries

    if list_ or not name:
        for qname in queries.names():
            q = queries.load(qname)
            params = " ".join(f"-p {p.name}=<{p.type}>" for p in q.parameters.values())
            click.echo(f"{qname} {params}".rstrip())
            click.echo(f"    {q.doc.splitlines()[0]}")
        return
    q = queries.load(name)
    params = _parse_params(q, pairs)
    q.check(params)
    with _store(config) as store:
        if len(q.statements) > 1:
            store.apply(name, **params)
            click.echo(f"ran {len(q.statements)} statements of {name}")
        elif as_json:
            for row in store.rows(name, **params):
                click.echo(json.dumps(row, ensure_ascii=False, default=str))
        else:
            _table(name, store.run(name, **params))


@main.command()
@click.option("--yes", is_flag=True, help="Confirm: every node and relationship is deleted.")
@click.pass_obj
def clear(config: Config, yes: bool):
    """Delete the whole graph, keeping the schema.

    The embedded ArcadeDB database is dropped and created again (instant); on a user's
    server the nodes are deleted in batches.
    """
    from .graph import embedded_server
    from .graph.schema import apply_schema, clear_graph

    if not yes:
        raise click.UsageError("clear deletes the whole graph; add --yes to confirm")
    with _store(config) as store:
        if config.embedded:
            embedded_server(config).recreate_database()
            click.echo("dropped and created the embedded database")
        else:
            click.echo(f"deleted {clear_graph(store):,} nodes")
        apply_schema(store)


# -- demo ------------------------------------------------------------------------------
@main.command()
@click.option("--progress/--no-progress", default=None, help="Progress bars (default: on a terminal).")
@click.pass_obj
def demo(config: Config, progress):
    """The main job on bundled data: ingest ACL-200 and the taxonomies, query the graph,
    and benchmark BM25 against a graph scorer on held-out citations."""
    from . import demo as demo_

    show = sys.stderr.isatty() if progress is None else progress
    with _store(config) as store:
        result = demo_.run(store, Path(config.data_dir) / "demo", _indexes(config), lambda: _RichProgress(show))
    for summary in result.ingests:
        _print_summary(summary)
    _print_stats(result.stats, as_json=False)
    _table("most cited papers (cypher/most_cited)", result.most_cited)
    _table(f"co-cited with {result.top_id} (cypher/co_cited)", result.co_cited)
    click.echo("\nHeld-out citations, MDCR-style: ACL-200 has titles only, so eligible = title, year, ≥ 1 citation")
    _print_eligibility(result.eligibility)
    _print_tables(result.tables)
    click.echo(f"benchmark, results and figures in {result.output}")
    _print_recommendations(f"recommended citations for {result.seed.id} \"{result.seed.title}\" "
                           f"({len(result.seed.references)} references; BM25 + graph signals)",
                           result.recommendations, explain=True)
    from importlib.util import find_spec

    extra = "" if find_spec("fastapi") and find_spec("uvicorn") else "pip install 'citegraph[serve]' && "
    click.echo(f"\nThe same over HTTP, and the graph explorer in a browser (BM25 index built above):\n"
               f"  {extra}citegraph serve        # explorer http://127.0.0.1:8000/ · API docs /docs · "
               f"POST /recommend {{\"paper\": \"{result.seed.id}\", \"explain\": true}}\n"
               f"  citegraph recommend --paper {result.seed.id} --explain   # the same on the command line")


if __name__ == "__main__":
    main()
