"""citegraph cite: which paper to cite at each citation slot of a draft (or of a sentence)."""

from __future__ import annotations

from pathlib import Path

import click

from ..config import Config
from ..errors import CitegraphError, UsageError
from ..service.limits import WINDOW, K
from .app import main
from .flags import AS_OF, record_format, with_retrievers
from .output import print_matches, print_recommendations, print_records, recommendations_file


@main.command()
@click.option(
    "--context",
    help="The sentence being written, the citation slot marked [CIT] (no marker: a citation belongs somewhere in it).",
)
@click.option(
    "--draft",
    type=click.Path(path_type=Path),
    help="A draft: LaTeX (.tex: empty, '?' or "
    "unresolved \\cite keys), Markdown/Pandoc (.md: [@?]) or text (.txt) with [CIT] markers.",
)
@click.option(
    "--bib",
    type=click.Path(path_type=Path),
    help="The draft's bibliography (.bib or CSL-JSON); default: the one the draft names.",
)
@click.option(
    "--window",
    type=click.IntRange(WINDOW.low, WINDOW.high),
    default=1,
    show_default=True,
    help="Sentences before and after the slot's (in its paragraph) that join the query.",
)
@AS_OF
@click.option(
    "-k", "--k", type=click.IntRange(K.low, K.high), default=10, show_default=True, help="Suggestions per slot."
)
@click.option("--explain", is_flag=True, help="Show each suggestion's first-stage rank, model score and reasons.")
@record_format
@with_retrievers
@click.option(
    "--model",
    type=click.Path(path_type=Path),
    help="A sentence-transformers model folder (e.g. "
    "one saved by citegraph evaluate local --save) that re-ranks each slot's candidates; without it, the first stage and "
    "graph features only.",
)
@click.pass_obj
def cite(config: Config, context, draft, bib, window, as_of, k, explain, format_, retrievers, model):
    """Which paper should I cite here? Suggestions for each citation slot of a draft, with reasons."""
    from ..recommend import Recommender
    from ..recommend.cite import CiteModel
    from ..recommend.cite import cite as cite_draft

    if (context is None) == (draft is None):
        raise click.UsageError("give --context TEXT or --draft FILE")
    read = _read_input(context, draft, bib, window)
    with Recommender.open(config, retrievers) as rec:
        reranker = _input(lambda: CiteModel(model, rec, config.data_folder("embeddings"))) if model else None
        found = cite_draft(rec, read, k=k, as_of=as_of, model=reranker)
        print_matches(f"{read.source}: references", found.references)
        for line in read.warnings:
            click.echo(f"warning: {line}", err=True)
        # json: one object per slot, with its line:column; a file: every suggestion once
        print_records(
            format_,
            lambda: _print_slots(found, as_of, explain),
            found.as_dict,
            recommendations_file(rec.store, _suggested_once(found)),
        )


def _print_slots(found, as_of, explain: bool) -> None:
    click.echo(f"ranking: {found.ranking}" + (f"; as of {as_of}" if as_of else ""))
    for slot in found.slots:
        where = slot.slot.where + (f" {slot.slot.command}" if slot.slot.command else "")
        print_recommendations(f"slot {slot.slot.id} at {where}: {slot.slot.sentence}", slot.suggestions, explain)


def _read_input(context: str | None, draft: Path | None, bib: Path | None, window: int):
    """The draft (or the context as one), its bibliography read; bad input ends the command with exit 2."""
    from dataclasses import replace

    from ..library.draft import context_slot, read_draft
    from ..library.entries import read_library

    if draft is not None:
        return _input(lambda: read_draft(draft, bib=bib, window=window))
    assert context is not None  # the command takes one of the two
    read = _input(lambda: context_slot(context, window=window))
    if bib is None:
        return read
    return replace(read, references={e.where: e for e in _input(lambda: read_library(bib))}, bibliographies=(bib,))


def _input(read):
    try:
        return read()
    except CitegraphError as exc:
        raise UsageError(str(exc)) from exc


def _suggested_once(found) -> list:
    """Every suggestion once, as at its first slot (its reasons there)."""
    first: dict[str, object] = {}
    for slot in found.slots:
        for s in slot.suggestions:
            first.setdefault(s.id, s)
    return list(first.values())
