"""citegraph demo: the main job on bundled data."""

from __future__ import annotations

import sys

import click

from ..config import Config
from .app import indexes_dir, main, open_graph
from .output import (
    RichProgress,
    print_eligibility,
    print_recommendations,
    print_stats,
    print_summary,
    print_table,
    print_tables,
)


@main.command()
@click.option("--progress/--no-progress", default=None, help="Progress bars (default: on a terminal).")
@click.pass_obj
def demo(config: Config, progress):
    """The main job on bundled data: ingest ACL-200 and the taxonomies, query the graph,
    and benchmark BM25 against a graph scorer on held-out citations."""
    from ..recommend import demo as demo_

    show = sys.stderr.isatty() if progress is None else progress
    with open_graph(config) as store:
        result = demo_.run(store, config.data_folder("demo"), indexes_dir(config), lambda: RichProgress(show))
    for summary in result.ingests:
        print_summary(summary)
    print_stats(result.stats, as_json=False)
    print_table("most cited papers (cypher/most_cited)", result.most_cited)
    print_table(f"co-cited with {result.top_id} (cypher/co_cited)", result.co_cited)
    click.echo("\nHeld-out citations, MDCR-style: ACL-200 has titles only, so eligible = title, year, ≥ 1 citation")
    print_eligibility(result.eligibility)
    print_tables(result.tables)
    click.echo(f"benchmark, results and figures in {result.output}")
    print_recommendations(
        f'recommended citations for {result.seed.id} "{result.seed.title}" '
        f"({len(result.seed.references)} references; BM25 + graph signals)",
        result.recommendations,
        explain=True,
    )
    held_out = result.held_out
    [slot] = held_out.cited.slots
    matched = sum(1 for m in held_out.cited.references if m.paper)
    click.echo(
        "\nWhich paper to cite here? A real paragraph (McDonald, Petrov and Hall, EMNLP 2011, from "
        "ScisummNet, CC BY-SA 4.0) with one citation held out; "
        f"{matched} of its {len(held_out.cited.references)} other references in the graph; as of {held_out.as_of}"
    )
    where = f"{slot.slot.file.name if slot.slot.file else ''}:{slot.slot.line}:{slot.slot.column}"
    print_recommendations(f"slot at {where}: {slot.slot.sentence}", slot.suggestions, explain=True)
    click.echo(
        f"the held-out citation {held_out.paper}: "
        + (f"rank {held_out.rank} of {len(slot.suggestions)}" if held_out.rank else "not suggested")
    )
    from importlib.util import find_spec

    extra = "" if find_spec("fastapi") and find_spec("uvicorn") else "pip install 'citegraph[serve]' && "
    click.echo(
        f"\nThe same over HTTP, and the graph explorer in a browser (BM25 index built above):\n"
        f"  {extra}citegraph serve        # explorer http://127.0.0.1:8000/ · API docs /docs · "
        f'POST /recommend {{"paper": "{result.seed.id}", "explain": true}}\n'
        f"  citegraph recommend --paper {result.seed.id} --explain   # the same on the command line\n"
        f"  citegraph cite --draft {slot.slot.file} --as-of {held_out.as_of} --explain   # the paragraph again"
    )
