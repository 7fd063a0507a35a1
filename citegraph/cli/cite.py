"""citegraph cite: which paper to cite at each citation slot of a draft (or of a sentence)."""

from __future__ import annotations

from pathlib import Path

import click

from ..config import Config
from ..errors import CitegraphError, UsageError
from ..operations import cite_fusion, citing
from .app import main
from .flags import RequestOptions, record_format, with_retrievers
from .output import print_matches, print_recommendations, print_records, print_warnings, print_why, recommendations_file

#: The request's fields, but the draft and its bibliography: files (--draft, --bib) read here,
#: LaTeX's \input followed, their format by their suffix.
CITE = RequestOptions(citing.CiteRequest, flags={"k": ("-k", "--k")}, leave=("draft", "format", "bib"))


@main.group(invoke_without_command=True)
@CITE
@click.option(
    "--draft",
    "draft_file",
    type=click.Path(path_type=Path),
    help="A draft: LaTeX (.tex: empty, '?' or "
    "unresolved \\cite keys), Markdown/Pandoc (.md: [@?]) or text (.txt) with [CIT] markers.",
)
@click.option(
    "--bib",
    "bib_file",
    type=click.Path(path_type=Path),
    help="The draft's bibliography (.bib or CSL-JSON); default: the one the draft names.",
)
@record_format
@with_retrievers
@click.option(
    "--model",
    type=click.Path(path_type=Path),
    help="A sentence-transformers model folder (e.g. "
    "one saved by citegraph evaluate local --save) that re-ranks each slot's candidates; without it, the first stage and "
    "graph features only.",
)
@click.pass_context
def cite(ctx: click.Context, draft_file, bib_file, format_, retrievers, model, **fields):
    """Which paper should I cite here? Suggestions for each citation slot of a draft, with reasons.

    `citegraph cite tune --model FOLDER` tunes the model's fusion weights for it."""
    from ..recommend import Recommender
    from ..recommend.cite import CiteModel

    if ctx.invoked_subcommand is not None:
        return
    config: Config = ctx.obj
    request = CITE.request(fields)
    if (request.context is None) == (draft_file is None):
        raise click.UsageError("give --context TEXT or --draft FILE")
    read = _read_input(request, draft_file, bib_file)
    with Recommender.open(config, retrievers) as rec:
        reranker = _input(lambda: CiteModel(model, rec, config.data_folder("embeddings"))) if model else None
        answer = citing.cite(rec, request, reranker, read)
        print_matches(f"{answer.source}: references", answer.references)
        print_warnings(answer.warnings)
        # json: one object per slot, with its line:column; a file: every suggestion once
        print_records(
            format_,
            lambda: _print_slots(answer, request.as_of),
            answer,
            recommendations_file(rec.store, _suggested_once(answer)),
        )
        if format_ not in ("text", "json"):
            for slot in answer.slots:
                if slot.why:
                    click.echo(f"slot {slot.slot} at {slot.where}:", err=True)
                    print_why(slot.why, err=True)


TUNE = RequestOptions(cite_fusion.TuneRequest)


@cite.command("tune")
@TUNE
@with_retrievers
@click.pass_obj
def tune(config: Config, retrievers, **fields):
    """Tune `cite --model`'s two fusion weights (the draft's field, the model's cosine) for a
    saved model, on training-side contexts of this graph the model was not trained on.

    Prints MRR@50 / R@10 of the cited paper for each (draft, model) pair and the choice;
    --write stores it in the model's card, where `cite --model` reads it."""
    from ..recommend import Recommender
    from ..recommend.cite import CiteModel

    request = TUNE.request(fields)
    with Recommender.open(config, retrievers) as rec:
        model = _input(lambda: CiteModel(request.model, rec, config.data_folder("embeddings")))
        answer = _input(
            lambda: cite_fusion.tune(
                rec, model, request, lambda n, s: click.echo(f"  {n} contexts, {s:.0f} s", err=True)
            )
        )
    drawn = answer.validation
    click.echo(
        f"validation: {drawn.contexts} of the {drawn.drawn_from} training-side contexts the model was not trained on "
        f"(training side {drawn.training_side}, up to {drawn.train_until}; trained on {drawn.trained_on}; "
        f"seed {drawn.seed})"
    )
    click.echo(
        f"\nMRR@{cite_fusion.DEPTH} / R@10 of the cited paper (%, {drawn.contexts} contexts, {answer.seconds:.0f} s)"
    )
    cells = {(p.draft, p.model): f"{100 * p.mrr:.2f} / {100 * p.recall_at_10:.1f}" for p in answer.grid}
    click.echo("| draft \\ model | " + " | ".join(f"{m:g}" for m in request.weights) + " |")
    click.echo("|---|" + "---:|" * len(request.weights))
    for d in request.draft:
        click.echo(f"| {d:g} | " + " | ".join(cells[d, m] for m in request.weights) + " |")
    best, default = answer.chosen, answer.default
    click.echo(
        f"chosen: draft {best.draft:g}, model {best.model:g} (MRR {100 * best.mrr:.2f}, R@10 {100 * best.recall_at_10:.1f})"
        + (
            f"; the defaults (draft {default.draft:g}, model {default.model:g}): MRR {100 * default.mrr:.2f}"
            if default
            else ""
        )
    )
    if answer.written:
        click.echo(f"written to {answer.written} (cite.fusion)")


def _print_slots(answer: citing.CiteResponse, as_of: str | None) -> None:
    click.echo(f"ranking: {answer.ranking}" + (f"; as of {as_of}" if as_of else ""))
    for slot in answer.slots:
        where = slot.where + (f" {slot.command}" if slot.command else "")
        print_recommendations(f"slot {slot.slot} at {where}: {slot.sentence}", slot.suggestions)
        print_why(slot.why)


def _read_input(request: citing.CiteRequest, draft: Path | None, bib: Path | None):
    """The draft read from its files (its own bibliography, or ``bib``), or the context with the
    ``bib`` file's entries; bad input ends the command with exit 2."""
    from dataclasses import replace

    from ..library.draft import context_slot, read_draft
    from ..library.entries import read_library

    if draft is not None:
        return _input(lambda: read_draft(draft, bib=bib, window=request.window))
    assert request.context is not None  # the command takes a context or a draft
    read = _input(lambda: context_slot(request.context, window=request.window))
    if bib is None:
        return read
    return replace(read, references={e.where: e for e in _input(lambda: read_library(bib))}, bibliographies=(bib,))


def _input(read):
    try:
        return read()
    except CitegraphError as exc:
        raise UsageError(str(exc)) from exc


def _suggested_once(answer: citing.CiteResponse) -> list[citing.SuggestionOut]:
    """Every suggestion once, as at its first slot (its reasons there)."""
    first: dict[str, citing.SuggestionOut] = {}
    for slot in answer.slots:
        for s in slot.suggestions:
            first.setdefault(s.id, s)
    return list(first.values())
