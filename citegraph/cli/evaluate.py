"""citegraph evaluate <benchmark>, tune-bm25, report: scoring retrievers on benchmarks.

``evaluate``'s subcommands are generated from the benchmark registry
(:mod:`citegraph.evaluation.registry`): each registered benchmark becomes a command with
the options it declares, ``--out``, and — when it takes retrievers — the retriever option
and ``--run``. The command builds the benchmark, resolves the retrievers (indexes built
over the graph, or over the benchmark's own documents), runs the one harness and prints
the tables. A benchmark whose retrievers re-rank the first one's candidates (``evaluate
trec --rerank-depth``) has them opened as re-rankers.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import cast

import click

from ..config import Config
from ..evaluation.entry import Registered
from ..evaluation.harness import Benchmark, WithDocuments
from ..evaluation.registry import registered
from .app import corpus_documents, indexes_dir, main, open_graph
from .flags import RetrieverList, click_option, retrievers_option
from .output import print_table, print_tables


@main.group()
def evaluate():
    """Score retrievers on benchmarks: large-scale pools, MDCR, CSFCube, CL-SciSumm contextualisation,
    local citation recommendation (SymTax), the recommender on held-out citations, any TREC-style collection."""


def _retrievers(
    entry: Registered, benchmark: Benchmark, specs: list, runs, config: Config, out: Path, rerank: bool
) -> list:
    """The retrievers of ``specs``, opened (those after the first as re-rankers when ``rerank``)
    or indexed over the benchmark's documents, and the run files."""
    from ..evaluation.scorers import RunFile

    if entry.retrievers is None:
        return []
    if entry.retrievers.source == "indexes":
        opened = [spec.open(indexes_dir(config)) for spec in specs[:1]]
        opened += [_reranker(spec, config) if rerank else spec.open(indexes_dir(config)) for spec in specs[1:]]
    else:
        docs = cast(WithDocuments, benchmark).documents()  # the registration promises them
        opened = [spec.build(docs, Path(out) / "indexes") for spec in specs]
    return opened + [RunFile(path) for path in runs]


def _reranker(spec, config: Config):
    """``spec`` re-ranking the candidates it is handed, their texts read from the indexes' record."""
    from ..retrieval.dense.pool_encoder import open_for_rerank

    return open_for_rerank(
        spec, indexes_dir(config), config.data_folder("embeddings"), lambda ids: corpus_documents(config, ids)
    )


def _command(entry: Registered) -> click.Command:
    """``citegraph evaluate <entry.name>``."""
    params: list[click.Parameter] = [click_option(o) for o in entry.options]
    params.append(
        click.Option(
            ["--out"],
            type=click.Path(file_okay=False, path_type=Path),
            required=True,
            help="Where results.json/.csv/.md and the figures go.",
        )
    )
    if entry.retrievers is not None:
        from ..retrieval.spec import grammar

        params.append(
            click.Option(
                [entry.retrievers.flag, "retrievers"],
                type=RetrieverList(),
                default=entry.retrievers.default,
                show_default=True,
                help=f"{entry.retrievers.help} Spelling: {grammar()}.",
            )
        )
        if entry.retrievers.run_files:
            params.append(
                click.Option(
                    ["--run", "runs"],
                    multiple=True,
                    type=click.Path(exists=True, dir_okay=False, path_type=Path),
                    help="Also score a TREC run file of another tool (qid Q0 doc rank score tag).",
                )
            )

    @click.pass_obj
    def command(config: Config, out: Path, retrievers: Sequence[str] = (), runs=(), **options):
        from ..evaluation.harness import run

        def log(message: str) -> None:
            click.echo(message, err=True)

        if entry.check is not None:
            entry.check(**options)
        with ExitStack() as stack:
            store = stack.enter_context(open_graph(config)) if entry.graph else None
            benchmark = entry.build(**options, **({"store": store} if entry.graph else {}))
            rerank = bool(entry.retrievers and entry.retrievers.rerank and options.get(entry.retrievers.rerank))
            opened = _retrievers(entry, benchmark, list(retrievers), runs, config, out, rerank)
            results = run(benchmark, opened, out, log=log)
        print_tables(results.tables)
        click.echo(f"results{' and figures' if results.figures else ''} in {out}")

    return click.Command(entry.name, callback=command, params=params, help=entry.help)


for _entry in registered().values():
    evaluate.add_command(_command(_entry))


@main.command("tune-bm25")
@click.option(
    "--pools",
    "pools_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    required=True,
    help="A validation pool folder (citegraph pools …), built like the test pools.",
)
@retrievers_option("The BM25 index to tune (bm25 or bm25:multifield).", single=True, name="spec")
@click.pass_obj
def tune_bm25(config: Config, pools_dir, spec):
    """Grid-search BM25's k1 and b for MAP on validation pools, as the MDCR paper did."""
    from ..evaluation.large_scale.score import tune_bm25 as tune
    from ..retrieval.spec import BM25

    if not isinstance(spec, BM25):
        raise click.BadParameter(f"{spec} is not BM25", param_hint="--with")
    name = str(spec)
    tuning = tune(pools_dir, indexes_dir(config) / BM25(spec.multifield).folder)
    bs = sorted({b for _, b in tuning.table})
    print_table(
        f"MAP of {name} on {pools_dir} (k1 × b)",
        [
            {"k1": k1, **{f"b={b:g}": round(tuning.table[(k1, b)] * 100, 2) for b in bs}}
            for k1 in sorted({k1 for k1, _ in tuning.table})
        ],
    )
    click.echo(
        f"best: k1={tuning.k1:g} b={tuning.b:g} (MAP {tuning.map * 100:.2f}); rebuild with "
        f"`citegraph index bm25{' --multifield' if spec.multifield else ''} --k1 {tuning.k1:g} --b {tuning.b:g}`"
    )


@main.command()
@click.argument("results", type=click.Path(exists=True, file_okay=False, path_type=Path))
def report(results):
    """Print the tables of an evaluation's results.json again and redraw its figures."""
    from ..evaluation.report import draw, load_tables

    tables = load_tables(results)
    print_tables(tables)
    for path in draw(tables, results):
        click.echo(f"figure: {path}")
