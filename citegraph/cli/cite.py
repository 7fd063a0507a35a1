"""citegraph cite: which paper to cite at each citation slot of a draft (or of a sentence)."""

from __future__ import annotations

from pathlib import Path

import click

from ..config import Config
from ..errors import CitegraphError, UsageError
from ..operations import cite_fusion, cite_query, citing
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


@cite.command("encode")
@click.option(
    "--model",
    type=click.Path(path_type=Path),
    required=True,
    help="The sentence-transformers model folder cite --model re-ranks with.",
)
@click.pass_obj
def encode(config: Config, model: Path):
    """Encode every paper of the graph for a model ahead of writing: `cite --model` (and the
    service, the language server) then encodes only each slot's text. Papers already in the
    embedding cache are read, not encoded again; run it again after an ingest."""
    import time

    from ..recommend import Recommender
    from ..recommend.cite import CiteModel

    started = time.monotonic()
    with Recommender.open(config, ()) as rec:
        reranker = _input(lambda: CiteModel(model, rec, config.data_folder("embeddings")))
        papers, encoded = reranker.encode_graph(
            lambda done, new: click.echo(
                f"  {done:,} papers, {new:,} encoded, {time.monotonic() - started:.0f} s", err=True
            )
        )
    click.echo(
        f"{papers:,} papers for {model}: {encoded:,} encoded, {papers - encoded:,} already cached "
        f"({time.monotonic() - started:.1f} s)"
    )


TUNE_QUERY = RequestOptions(cite_query.QueryTuneRequest)


@cite.command("tune-query")
@TUNE_QUERY
@with_retrievers
@click.pass_obj
def tune_query(config: Config, retrievers, **fields):
    """Tune how a slot's query is made (the weights of its clause, sentence and neighbours, and
    the floor of the graph's draft-wide evidence) on whole drafts of this graph's training side:
    the draft benchmark's (citegraph evaluate cite) older citing papers, never its test drafts.

    Prints per-slot MRR@50 / R@10 inside the drafts and the share of identical top-5 lists for
    each point, and the choice (cite's defaults are its choice on ACL-200 ∪ ScisummNet)."""
    from ..recommend import Recommender

    request = TUNE_QUERY.request(fields)
    with Recommender.open(config, retrievers) as rec:
        answer = _input(
            lambda: cite_query.tune_query(rec, request, lambda n, s: click.echo(f"  {n} drafts, {s:.0f} s", err=True))
        )
    drawn = answer.training
    click.echo(
        f"training drafts: {drawn.drafts} of the {drawn.drawn_from} with {request.min_slots}+ slots "
        f"({drawn.slots} slots; training side {drawn.training_side} citing papers before {drawn.test_from}; "
        f"seed {drawn.seed})"
    )
    click.echo(
        f"\nper slot inside the drafts, MRR@50 / R@10 / same top-5 (%; same top-5: a draft's slot pairs with "
        f"different answers and identical top-5 lists); chosen by {answer.measure}; {answer.seconds:.0f} s"
    )
    floors = list(dict.fromkeys(p.floor for p in answer.grid))
    cells = {(p.clause, p.sentence, p.neighbours, p.floor): p for p in answer.grid}
    click.echo("| clause | sentence | neighbours | " + " | ".join(f"floor {f:g}" for f in floors) + " |")
    click.echo("|---:|---:|---:|" + "---:|" * len(floors))
    for weighting in dict.fromkeys((p.clause, p.sentence, p.neighbours) for p in answer.grid):
        row = [cells[(*weighting, f)] for f in floors]
        click.echo(
            "| "
            + " | ".join(map(str, weighting))
            + " | "
            + " | ".join(f"{100 * p.mrr:.2f} / {100 * p.recall_at_10:.1f} / {100 * p.same_top5:.2f}" for p in row)
            + " |"
        )
    best, default = answer.chosen, answer.default
    click.echo(
        f"chosen: clause {best.clause}, sentence {best.sentence}, neighbours {best.neighbours}, floor {best.floor:g} "
        f"(MRR {100 * best.mrr:.2f}, R@10 {100 * best.recall_at_10:.1f})"
        + (f"; cite's defaults: MRR {100 * default.mrr:.2f}" if default else "")
    )


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
