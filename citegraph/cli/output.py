"""How commands print: rich tables, progress bars, and the summaries several commands share."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import click

from ..vocabulary import counted

if TYPE_CHECKING:
    from pydantic import BaseModel
    from rich.progress import Progress, TaskID

    from ..operations.answers import MatchOut, RecommendationOut, WhyOut


def make_console():
    from rich.console import Console

    return Console(soft_wrap=True)  # paths and ids stay whole, copyable


class RichProgress:
    """The ingest pipeline's Progress drawn with rich: lines done, rate, time left."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._progress: Progress  # set by start()
        self._task: TaskID

    def start(self, description: str, total: int | None) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(  # one per phase: each leaves its final line behind
            TextColumn("{task.description:>10}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=make_console(),
            disable=not self.enabled,
        )
        self._progress.start()
        self._task = self._progress.add_task(description, total=total, rate="")

    def advance(self, lines: int) -> None:
        self._progress.advance(self._task, lines)
        speed = self._progress.tasks[-1].speed
        self._progress.update(self._task, rate=f"{speed:,.0f} lines/s" if speed else "")

    def finish(self) -> None:
        self._progress.stop()


def print_summary(summary) -> None:
    from rich.table import Table

    w = summary.write
    table = Table(title=f"ingest {summary.format}: {summary.files} file(s), {summary.seconds:.1f} s", show_header=False)
    rows = [
        ("lines read", summary.lines),
        *((f"records: {kind}", n) for kind, n in sorted(w.records.items())),
        ("bad lines skipped", summary.rejected),
        ("repeated paper ids", summary.duplicates),
        ("citations written", w.citations),
        ("self-citations skipped", w.self_citations),
        ("citation contexts written", w.contexts),
        ("contexts with no [CIT] marker", w.unmarked_contexts),
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
    console = make_console()
    console.print(table)
    for file in summary.skipped_files:
        console.print(f"already ingested, skipped (use --restart to re-read): {file}")
    for file, line in summary.resumed.items():
        console.print(f"resumed {file} after line {line:,}")
    for reason, (count, first) in summary.left_out.items():
        console.print(f"[yellow]{count:,} {reason}; the first at {first}[/]")
    if summary.rejects_file:
        console.print(f"[yellow]{summary.rejected:,} bad line(s) listed in {summary.rejects_file}[/]")
    print_eligibility(summary.eligibility)


def print_eligibility(counts: dict[str, int]) -> None:
    labels = {
        "papers": "corpus papers",
        "with_year": "with a year",
        "with_title": "with a title",
        "with_abstract": "with an abstract ≥ min length",
        "with_citations": "with ≥ min citations",
        "eligible": "eligible (all of these)",
    }
    print_table("prefilter (MDCR §3)", [{"criterion": labels.get(k, k), "papers": v} for k, v in counts.items()])


def print_recommendations(title: str, found: Sequence[RecommendationOut]) -> None:
    """A table; with their reasons (answers asked with ``explain``), one paper per line and its
    reasons under it (a table cell would fold them into unreadable slivers on an 80-column
    terminal)."""
    if not any(r.explanation is not None for r in found):
        print_table(
            title,
            [
                {"rank": i, "id": r.id, "year": r.year, "score": round(r.score, 3), "title": r.title}
                for i, r in enumerate(found, start=1)
            ],
        )
        return
    from rich.markup import escape

    console = make_console()
    console.print(f"[bold]{escape(title)}[/]" if found else f"{escape(title)}: no rows")
    for rank, r in enumerate(found, start=1):
        console.print(f"{rank:>3}. [bold]{r.id}[/] ({r.year}) {escape(r.title or '')} · score {r.score:.3f}")
        for reason in r.explanation or ():
            console.print(f"       · {escape(reason)}")


def print_why(answers: Sequence[WhyOut], err: bool = False) -> None:
    """What became of each paper asked about (``--why``, ``explain``): its rank, score, stage,
    reasons and features, or the stage that dropped it; on stderr (``err``) when stdout is a file
    for a reference manager."""
    for answer in answers:
        name = f"{answer.candidate} {answer.title or ''}".rstrip()
        if not answer.candidate_found:
            click.echo(f"{name}: {answer.why_not}", err=err)
            continue
        click.echo(f"{name}: rank {answer.rank} of {answer.of} · score {answer.score:.3f} · {answer.stage}", err=err)
        for reason in answer.explanation:
            click.echo(f"  · {reason}", err=err)
        features = ", ".join(f"{feature} {value:.3f}" for feature, value in answer.features.items())
        click.echo(f"  features: {features}", err=err)


def print_warnings(warnings: Sequence[str]) -> None:
    """An answer's warnings, one line each, on stderr (stdout may be JSON or a file)."""
    for line in warnings:
        click.echo(f"warning: {line}", err=True)


def print_matches(what: str, matches: Sequence[MatchOut]) -> None:
    """On stderr (stdout may be an exported file): which entries matched which paper, how,
    and which did not; and what a BibTeX entry holds that BibTeX would not resolve either."""
    if not matches:
        return
    found = [m for m in matches if m.paper]
    click.echo(f"{what}: {len(found)} of {counted(len(matches), 'entry', 'entries')} matched", err=True)
    for m in matches:
        click.echo(
            f"  {m.entry} → {m.paper} by {m.how}: {m.title}"
            if m.paper
            else f"  {m.entry}: NOT matched ({m.how}) {m.title}",
            err=True,
        )
        for warning in m.warnings:
            click.echo(f"    warning: {warning}", err=True)


def print_records(format_: str, text: Callable[[], None], answer: BaseModel, as_file: Callable[[str], str]) -> None:
    """What a command that prints records prints, by ``--format`` (:func:`.flags.record_format`):
    ``text()`` (tables), the ``answer`` as JSON (as the HTTP service and the MCP tools give it), or
    ``as_file(format_)``, a file for a reference manager."""
    if format_ == "text":
        text()
    elif format_ == "json":
        click.echo(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False, indent=1))
    else:
        click.echo(as_file(format_), nl=False)


def recommendations_file(store, found: Sequence[RecommendationOut]) -> Callable[[str], str]:
    """The recommendations ``found`` as a reference-manager file of a given format, their reasons in the note."""
    from ..library.export import export

    def as_file(format_: str) -> str:
        notes = {r.id: "citegraph: " + "; ".join(r.explanation) for r in found if r.explanation}
        extra = {r.id: r.model_dump(include={"score", "explanation"}) for r in found}
        return export(store, format_, [r.id for r in found], notes, extra)

    return as_file


def print_tables(tables) -> None:
    from rich.markdown import Markdown

    console = make_console()
    for table in tables:
        console.print(Markdown(table.markdown()))


def print_table(title: str, rows: list[dict]) -> None:
    from rich.table import Table

    table = Table(title=title)
    for column in rows[0] if rows else []:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(_cell(v, column) for column, v in row.items()))
    make_console().print(table if rows else f"{title}: no rows")


def _cell(value, column: str = "") -> str:
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value) if column == "year" else f"{value:,}"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


def print_stats(result: dict[str, list[dict]], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    print_table("nodes per label", result["labels"])
    print_table("relationships per type", result["relationships"])
    degrees = result["citation_degrees"][0] if result["citation_degrees"] else {}
    print_table("citation degrees", [{"statistic": k, "value": v} for k, v in degrees.items()])
    if result["partitions"]:
        newest = result["partitions"][-1]["partition"]
        print_table(f"snapshot partitions ingested (snapshot of {newest})", result["partitions"])
    if result["topics"]:
        print_table("OpenAlex topic tree (nodes per level)", result["topics"])
