"""citegraph demo: the main job on bundled data, each step printed as soon as it is done."""

from __future__ import annotations

import shlex
import sys
from importlib.util import find_spec

import click

from ..config import Config
from ..operations.answers import RecommendationOut
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
        for step in demo_.run(store, config.data_folder("demo"), indexes_dir(config), lambda: RichProgress(show)):
            _show(step)
            if isinstance(step, demo_.Recommended):
                recommended = step
            elif isinstance(step, demo_.HeldOut):
                held_out = step
    _show_next_commands(recommended, held_out)


def _show(step) -> None:
    from ..recommend import demo as demo_

    match step:
        case demo_.Ingested():
            print_summary(step.summary)
        case demo_.GraphAsked():
            print_stats(step.stats, as_json=False)
            print_table("most cited papers (cypher/most_cited)", step.most_cited)
            print_table(f"co-cited with {step.top_id} (cypher/co_cited)", step.co_cited)
        case demo_.Benchmarked():
            click.echo(
                "\nHeld-out citations, MDCR-style: ACL-200 has titles only, so eligible = title, year, ≥ 1 citation"
            )
            print_eligibility(step.eligibility)
            print_tables(step.tables)
            click.echo(f"benchmark, results and figures in {step.output}")
        case demo_.Recommended():
            print_recommendations(
                f'recommended citations for {step.seed.id} "{step.seed.title}" '
                f"({len(step.seed.references)} references; BM25 + graph signals)",
                [RecommendationOut.of(r) for r in step.recommendations],
            )
        case demo_.HeldOut():
            [slot] = step.cited.slots
            matched = sum(1 for m in step.cited.references if m.paper)
            click.echo(
                "\nWhich paper to cite here? A real paragraph (McDonald, Petrov and Hall, EMNLP 2011, from "
                "ScisummNet, CC BY-SA 4.0) with one citation held out; "
                f"{matched} of its {len(step.cited.references)} other references in the graph; as of {step.as_of}"
            )
            where = f"{slot.slot.file.name if slot.slot.file else ''}:{slot.slot.line}:{slot.slot.column}"
            print_recommendations(
                f"slot at {where}: {slot.slot.sentence}", [RecommendationOut.of(s) for s in slot.suggestions]
            )
            click.echo(
                f"the held-out citation {step.paper}: "
                + (f"rank {step.rank} of {len(slot.suggestions)}" if step.rank else "not suggested")
            )


def _show_next_commands(recommended, held_out) -> None:
    """Commands that show again what the demo showed: the same data folder, k and inputs."""
    from ..recommend.demo import DEMO_K, PARAGRAPH

    data_dir = click.get_current_context().find_root().params.get("data_dir")
    command = "citegraph" + (f" --data-dir {shlex.quote(str(data_dir))}" if data_dir else "")
    extra = "" if find_spec("fastapi") and find_spec("uvicorn") else "pip install 'citegraph[serve]' && "
    draft, bib = (shlex.quote(str(p)) for p in (PARAGRAPH, PARAGRAPH.with_suffix(".bib")))
    click.echo(
        f"\nThe same over HTTP, and the graph explorer in a browser (BM25 index built above):\n"
        f"  {extra}{command} serve        # explorer http://127.0.0.1:8000/ · API docs /docs · "
        f'POST /recommend {{"paper": "{recommended.seed.id}", "explain": true}}\n'
        f"  {command} recommend --paper {recommended.seed.id} -k {DEMO_K} --explain   # the same on the command line\n"
        f"  {command} cite --draft {draft} --bib {bib} --as-of {held_out.as_of} -k {DEMO_K} --explain"
        "   # the paragraph again"
    )
