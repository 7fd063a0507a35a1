"""citegraph recommend, explain, watch, recommend-train, serve, mcp: recommendations for people and agents."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from ..config import Config
from ..operations import recommending
from ..operations.recommending import Entries, ExplainRequest, RecommendRequest
from .app import main, needs_extra
from .flags import CommaList, RequestOptions, cite_model_option, learned_weights, record_format, with_retrievers
from .output import (
    print_matches,
    print_recommendations,
    print_records,
    print_table,
    print_warnings,
    print_why,
    recommendations_file,
)

#: recommend's and explain's seed: the request's fields, but the library's entries (--library
#: FILE) and the papers not wanted (--negative FILE|ID, repeatable), which files may hold
SEED_FLAGS = {"k": ("-k", "--k"), "references": ("--reference",)}
RECOMMEND = RequestOptions(RecommendRequest, flags=SEED_FLAGS, leave=("papers", "negatives"))
EXPLAIN = RequestOptions(ExplainRequest, flags=SEED_FLAGS, leave=("papers", "negatives"))
#: watch: a library (--library FILE, required), what is new since a date, negatives
WATCH = RequestOptions(
    RecommendRequest,
    flags=SEED_FLAGS,
    leave=("paper", "title", "abstract", "references", "year", "papers", "negatives", "as_of", "field", "category"),
    required=("since",),
)
library_option = click.option(
    "--library",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Recommend for a library: .bib, .ris, CSL-JSON (.json) or a list of DOIs / arXiv ids / "
    "paper ids, one a line (instead of --paper).",
)
negative_option = click.option(
    "--negative",
    "unwanted",
    multiple=True,
    help="A paper not wanted (a library file or an id, DOI, arXiv id; repeatable): its neighbours are pushed down.",
)


def read_entries(library: Path | None, unwanted: Sequence[str]) -> Entries:
    """The entries of the --library file and of each --negative (a file, or an id, DOI, arXiv id)."""
    from ..library.entries import entries_of

    return Entries(
        papers=entries_of(str(library)) if library else (),
        negatives=[e for source in unwanted for e in entries_of(source)],
    )


@main.command()
@RECOMMEND
@library_option
@negative_option
@with_retrievers
@learned_weights
@record_format
@click.pass_obj
def recommend(config: Config, library, unwanted, retrievers, model, format_, **fields):
    """Which papers should this paper (or this library) cite? From the graph and text scorers, with reasons."""
    from ..recommend import Recommender

    request = RECOMMEND.request(fields)
    entries = read_entries(library, unwanted)
    with Recommender.open(config, retrievers, model) as rec:
        answer = recommending.recommend(rec, request, entries)
        print_matches("not wanted", answer.negatives)
        print_matches(str(library), answer.matches)
        what = library or request.paper or request.title or "the abstract"
        _print_answer(
            rec,
            format_,
            f"recommended for {what}" + (f" as of {request.as_of}" if request.as_of else ""),
            answer,
        )


@main.command()
@EXPLAIN
@library_option
@negative_option
@with_retrievers
@learned_weights
@record_format(files=False)
@click.pass_obj
def explain(config: Config, library, unwanted, retrievers, model, format_, **fields):
    """Why is this paper (not) recommended? Its rank among the candidates for a paper, a text or a
    library, its score, the features it weighs and its reasons."""
    from ..recommend import Recommender

    request = EXPLAIN.request(fields)
    entries = read_entries(library, unwanted)
    with Recommender.open(config, retrievers, model) as rec:
        answer = recommending.explain(rec, request, entries)
        print_matches("not wanted", answer.negatives)
        print_matches(str(library), answer.matches)
    print_records(format_, lambda: print_why([answer]), answer, lambda _: "")


def _print_answer(rec, format_: str, title: str, answer: recommending.RecommendResponse) -> None:
    """recommend's and watch's answer: its warnings on stderr, the recommendations by
    ``--format``, and what became of each paper asked about (``--why``: on stderr beside a file)."""
    print_warnings(answer.warnings)

    def text() -> None:
        print_recommendations(title, answer.recommendations)
        print_why(answer.why)

    print_records(format_, text, answer, recommendations_file(rec.store, answer.recommendations))
    if format_ not in ("text", "json"):
        print_why(answer.why, err=True)


@main.command("recommend-train")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    required=True,
    help="Weights file (JSON); with --seeds a folder, one weights.seed<N>.json per seed.",
)
@click.option("--papers", default=300, show_default=True, help="Held-out citations to learn from.")
@click.option("--seed", default=0, show_default=True)
@click.option(
    "--seeds",
    type=CommaList(int),
    default="",
    help="Several seeds (e.g. 0,1,2; instead of --seed): one weights file per seed in the folder --out, "
    "for evaluate recommend --seeds.",
)
@click.option(
    "--contexts/--no-contexts",
    default=True,
    show_default=True,
    help="Use the citing sentences on the graph's edges as a signal (where it has them).",
)
@with_retrievers
@click.pass_obj
def recommend_train(config: Config, out, papers, seed, seeds, contexts, retrievers):
    """Learn the recommender's weights on held-out citations of the graph (logistic regression)."""
    from ..recommend import Recommender, Weights
    from ..recommend.benchmark import parse_seeds
    from ..recommend.held_out import held_out_citations, train
    from ..recommend.weights import seed_file

    chosen = parse_seeds([str(s) for s in seeds], seed)
    if seeds and out.is_file():
        raise click.BadParameter(
            f"{out}: with --seeds, --out is a folder (one weights file per seed)", param_hint="--out"
        )
    if not seeds and out.is_dir():
        raise click.BadParameter(
            f"{out}: a folder; --out is the weights file (a folder with --seeds)", param_hint="--out"
        )
    with Recommender.open(config, retrievers, contexts=contexts) as rec:
        for each in chosen:
            examples = held_out_citations(rec.store, papers, each)
            weights = train(rec, examples)
            path = seed_file(out, each) if seeds else out
            path.parent.mkdir(parents=True, exist_ok=True)
            Weights(weights).save(
                path,
                {
                    "trained_on": len(examples),
                    "seed": each,
                    "retrievers": [str(s) for s in retrievers],
                    "contexts": contexts,
                },
                training_papers=[e.seed.id for e in examples],
            )
            print_table(
                f"learned weights → {path}", [{"feature": k, "weight": round(v, 4)} for k, v in weights.items()]
            )


@main.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Interface to listen on (loopback: only this machine can connect).",
)
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@with_retrievers
@learned_weights
@cite_model_option
@click.option(
    "--grow",
    is_flag=True,
    help="Let the explorer grow the graph from a library with OpenAlex and Semantic Scholar "
    "(POST /explore/grow; the service then asks those APIs, as `citegraph grow` does).",
)
@click.pass_obj
def serve(config: Config, host, port, retrievers, model, cite_model, grow):
    """HTTP service (/recommend, /cite, /paper, /neighbours, /search, /queries; docs at /docs) and the graph
    explorer at /."""
    with needs_extra("serve", "serve"):
        from ..service.serving import serve as serve_

    serve_(
        config,
        host,
        port,
        tuple(retrievers),
        model,
        log=lambda line: click.echo(line, err=True),
        cite_model=cite_model,
        grow=grow,
    )


@main.command()
@with_retrievers
@learned_weights
@cite_model_option
@click.pass_obj
def mcp(config: Config, retrievers, model, cite_model):
    """Model Context Protocol server on stdio, for AI agents: search, papers, neighbours,
    recommend (a paper, a text or a library; negatives; as of a date), explain, cite, works, contextualise."""
    with needs_extra("mcp", "mcp"):
        from ..service.mcp import serve_mcp

    serve_mcp(config, tuple(retrievers), model, cite_model)


@main.command()
@WATCH
@click.option(
    "--library",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="The library: .bib, .ris, CSL-JSON or a list of ids.",
)
@negative_option
@with_retrievers
@learned_weights
@record_format
@click.pass_obj
def watch(config: Config, library, unwanted, retrievers, model, format_, **fields):
    """Alerts: the papers published or ingested since a date that the recommender ranks highest for a library,
    with reasons (which of the two applied among them)."""
    from ..recommend import Recommender

    request = WATCH.request(fields)
    with Recommender.open(config, retrievers, model) as rec:
        answer = recommending.recommend(rec, request, read_entries(library, unwanted))
        print_matches(str(library), answer.matches)
        _print_answer(rec, format_, f"new since {request.since} for {library}", answer)
