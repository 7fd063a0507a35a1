"""citegraph repro list|run|report: the reproduction matrix (citegraph/repro/conditions/*.yaml)."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

import click

from .. import repro as repro_
from ..config import Config
from .app import main
from .output import print_table

shared_option = click.option(
    "--shared",
    type=click.Path(file_okay=False, path_type=Path),
    default=repro_.SHARED,
    show_default=True,
    help="The reference data folder [env CITEGRAPH_SHARED; default: ../shared/data beside the checkout].",
)
conditions_option = click.option(
    "--conditions",
    "conditions_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=repro_.CONDITIONS,
    help="A folder of condition files (*.yaml) [default: the shipped ones].",
)


def _measured_file(config: Config) -> Path:
    return config.data_folder("repro", "measured.json")


@main.group()
def repro():
    """Re-run the commands behind every published figure and compare the scores (two-click reproductions)."""


@repro.command("list")
@shared_option
@conditions_option
def repro_list(shared, conditions_dir):
    """The conditions: what each runs, whether its data is here, how many scores it checks."""
    print_table(
        "reproduction conditions",
        [
            {
                "condition": c.name,
                "fast": "yes" if c.fast else "",
                "scores": len(c.scores),
                "data": "missing" if c.missing(shared) else "present",
                "what": c.description,
            }
            for c in repro_.load(conditions_dir).values()
        ],
    )


@repro.command("run")
@click.argument("names", nargs=-1)
@click.option("--fast", is_flag=True, help="Only the conditions marked fast (well under a minute each; what CI runs).")
@click.option(
    "--work",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep each condition's graph, indexes and results in WORK/<condition> (default: a temporary "
    "folder, deleted afterwards).",
)
@shared_option
@conditions_option
@click.pass_obj
def repro_run(config: Config, names, fast, work, shared, conditions_dir):
    """Run the conditions (all, or those NAMED), print each score with OK/FAIL; exit 1 on any FAIL.

    Each condition runs its commands on a fresh embedded graph of its own; a condition
    whose data is absent is skipped, naming the files it needs.
    """
    chosen = repro_.select(repro_.load(conditions_dir), names, fast)
    root = work or Path(tempfile.mkdtemp(prefix="citegraph-repro-"))
    outcomes = []
    try:
        for condition in chosen:
            click.echo(f"== {condition.name}: {condition.description.splitlines()[0]}")
            outcome = repro_.run(condition, root / condition.name, shared, log=click.echo)
            for m in outcome.measured:
                value = "absent" if m.value is None else f"{m.value:g}"
                click.echo(
                    f"  {m.score.label}: {value} (expected {m.score.expected:g} ± {m.score.tolerance:g}) "
                    f"{'OK' if m.ok else 'FAIL'}"
                )
            click.echo(
                f"  {outcome.status}"
                + (f" in {outcome.seconds:.0f} s" if outcome.seconds else "")
                + (f": {outcome.note}" if outcome.note else "")
            )
            outcomes.append(outcome)
    finally:
        if work is None:
            shutil.rmtree(root, ignore_errors=True)
    repro_.record(outcomes, _measured_file(config))
    counts = {s: sum(o.status == s for o in outcomes) for s in ("OK", "FAIL", "SKIPPED")}
    click.echo(", ".join(f"{n} {s}" for s, n in counts.items()))
    if counts["FAIL"]:
        sys.exit(1)


@repro.command("report")
@shared_option
@conditions_option
@click.pass_obj
def repro_report(config: Config, shared, conditions_dir):
    """A markdown table of every condition's scores: data present, expected, last measured here."""
    path = _measured_file(config)
    measured = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    click.echo(repro_.report(repro_.load(conditions_dir), measured, shared))
