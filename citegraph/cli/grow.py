"""citegraph grow: the graph grown from a library or ids with OpenAlex and Semantic Scholar."""

from __future__ import annotations

import sys
from dataclasses import replace
from functools import partial
from pathlib import Path

import click

from ..config import Config
from ..operations import growing
from .app import main, open_graph
from .flags import RequestOptions, record_format
from .output import print_records, print_table

GROW = RequestOptions(growing.GrowRequest, arguments=("ids",), flags={"max_works": ("--max",)})


@main.command()
@GROW
@click.option(
    "--from",
    "libraries",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A library whose entries are seeds: .bib, .ris, CSL-JSON .json, or a list of ids one a line (repeatable).",
)
@click.option("--openalex-url", help="OpenAlex's API [env CITEGRAPH_OPENALEX_URL, default https://api.openalex.org].")
@click.option(
    "--s2-url",
    help="Semantic Scholar's Graph API [env CITEGRAPH_S2_URL, default https://api.semanticscholar.org/graph/v1].",
)
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a terminal).")
@record_format(files=False)
@click.pass_obj
def grow(config: Config, libraries, openalex_url, s2_url, progress, format_, **fields):
    """Grow the graph from seed works — a library (--from refs.bib) or ids — with OpenAlex: the
    seeds, their references and (--cited-by) the works citing them, --hops steps out, at most
    --max works; with --contexts Semantic Scholar's citing sentences on those citations.

    \b
    Keys come from the environment or the config file, never a flag:
      CITEGRAPH_OPENALEX_KEY, CITEGRAPH_OPENALEX_MAILTO, CITEGRAPH_S2_KEY.
    Every answer is kept in <data dir>/cache/grow: a run again, or resumed after a kill,
    asks only what it has not asked before (--offline: nothing).
    """
    from ..library.entries import read_library
    from .output import RichProgress

    request = GROW.request(fields)
    config = replace(
        config,
        **{k: v for k, v in {"openalex_url": openalex_url, "s2_url": s2_url}.items() if v},
    )
    library = [entry for path in libraries for entry in read_library(path)]
    show = sys.stderr.isatty() if progress is None else progress
    answer = growing.grow(request, library, config, partial(open_graph, config), RichProgress(show))
    print_records(format_, lambda: _print_answer(answer), answer, lambda f: "")


def _print_answer(answer: growing.GrowAnswer) -> None:
    unresolved = [s for s in answer.seeds if s.work is None]
    print_table(
        f"grow: {len(answer.seeds) - len(unresolved)} of {len(answer.seeds)} seeds resolved, {answer.seconds:.1f} s",
        [
            {"": label, "n": f"{value:,}"}
            for label, value in [
                ("works written", answer.works),
                ("  added as references", answer.references),
                ("  added as citing works", answer.citing),
                ("citations given contexts", answer.contexts),
                *((f"requests to {api}", n) for api, n in answer.requests.items()),
                ("answers from the cache", answer.cached),
                ("nodes created", answer.nodes_created),
                ("relationships created", answer.relationships_created),
            ]
        ],
    )
    for why, n in answer.contexts_left.items():
        click.echo(f"contexts left out: {n:,} ({why})")
    for seed in unresolved:
        click.echo(f"unresolved: {seed.entry}: {seed.how}")
