"""citegraph recommend, recommend-train, serve: recommendations for people."""

from __future__ import annotations

from pathlib import Path

import click

from ..config import Config
from ..errors import CitegraphError
from ..service.limits import YEAR, K
from .app import main
from .flags import AS_OF, CommaList, cite_model_option, learned_weights, record_format, with_retrievers
from .output import print_matches, print_recommendations, print_records, print_table, recommendations_file


@main.command()
@click.option("--paper", help="A paper id in the graph.")
@click.option("--title", default="", help="A new paper's title (instead of --paper).")
@click.option("--abstract", default="", help="A new paper's abstract.")
@click.option("--reference", "references", multiple=True, help="A reference already chosen (repeatable).")
@click.option(
    "--year", type=click.IntRange(YEAR.low, YEAR.high), help="Recommend nothing newer (default for --paper: its year)."
)
@click.option("--field", help="Only papers of this MAG field.")
@click.option("--category", help="Only papers of this arXiv category.")
@click.option(
    "--library",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Recommend for a library: .bib, .ris, CSL-JSON (.json) or a list of DOIs / arXiv ids / "
    "paper ids, one a line (instead of --paper).",
)
@click.option(
    "--negative",
    "negatives",
    multiple=True,
    help="A paper not wanted (a library file or an id, DOI, arXiv id; repeatable): its neighbours are pushed down.",
)
@AS_OF
@click.option("-k", "--k", type=click.IntRange(K.low, K.high), default=20, show_default=True)
@with_retrievers
@learned_weights
@click.option("--explain", is_flag=True, help="Show why each paper is recommended.")
@record_format
@click.pass_obj
def recommend(
    config: Config,
    paper,
    title,
    abstract,
    references,
    year,
    field,
    category,
    library,
    negatives,
    as_of,
    k,
    retrievers,
    model,
    explain,
    format_,
):
    """Which papers should this paper (or this library) cite? From the graph and text scorers, with reasons."""
    from ..library.entries import entries_of
    from ..recommend import Recommender, View, recommendation_dict

    if library and (paper or title or abstract):
        raise click.UsageError("give --library or a paper (--paper, --title, --abstract), not both")
    with Recommender.open(config, retrievers, model) as rec:
        asked = rec.ask(
            paper,
            papers=entries_of(str(library)) if library else (),
            title=title,
            abstract=abstract,
            references=references,
            year=year,
            view=View(as_of=as_of, field=field, category=category),
            negatives=[e for source in negatives for e in entries_of(source)],
        )
        print_matches("not wanted", asked.negatives)
        print_matches(str(library), asked.library)
        found = rec.recommend_for(asked.seed, k)
        what = library or paper or title or "the abstract"
        print_records(
            format_,
            lambda: print_recommendations(
                f"recommended for {what}" + (f" as of {as_of}" if as_of else ""), found, explain
            ),
            lambda: [recommendation_dict(r) for r in found],
            recommendations_file(rec.store, found),
        )


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
@click.pass_obj
def serve(config: Config, host, port, retrievers, model, cite_model):
    """HTTP service (/recommend, /cite, /paper, /neighbours, /search, /queries; docs at /docs) and the graph
    explorer at /."""
    try:
        from ..service.serving import serve as serve_
    except ImportError as exc:
        raise CitegraphError(
            f"citegraph serve needs the [serve] extra ({exc.name} is not installed): pip install 'citegraph[serve]'"
        ) from exc

    serve_(
        config, host, port, tuple(retrievers), model, log=lambda line: click.echo(line, err=True), cite_model=cite_model
    )


@main.command()
@with_retrievers
@learned_weights
@cite_model_option
@click.pass_obj
def mcp(config: Config, retrievers, model, cite_model):
    """Model Context Protocol server on stdio, for AI agents: search, papers, neighbours,
    recommend (a paper, a text or a library; negatives; as of a date), explain, cite, contextualise."""
    try:
        from ..service.mcp import serve_mcp
    except ImportError as exc:
        raise CitegraphError(
            f"citegraph mcp needs the [mcp] extra ({exc.name} is not installed): pip install 'citegraph[mcp]'"
        ) from exc

    serve_mcp(config, tuple(retrievers), model, cite_model)


@main.command()
@click.option(
    "--library",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="The library: .bib, .ris, CSL-JSON or a list of ids.",
)
@click.option(
    "--since",
    type=click.DateTime(["%Y-%m-%d", "%Y-%m", "%Y"]),
    required=True,
    help="List papers published since this date (the graph dates papers by year: that year and later) "
    "or ingested on it or later (YYYY-MM-DD; YYYY-MM or YYYY: the first day).",
)
@click.option("--negative", "negatives", multiple=True, help="A paper not wanted (a file or an id; repeatable).")
@click.option("-k", "--k", type=click.IntRange(K.low, K.high), default=20, show_default=True)
@with_retrievers
@learned_weights
@record_format
@click.pass_obj
def watch(config: Config, library, since, negatives, k, retrievers, model, format_):
    """Alerts: the papers published or ingested since a date that the recommender ranks highest for a library,
    with reasons (which of the two applied among them)."""
    from ..library.entries import entries_of
    from ..recommend import Recommender, View, recommendation_dict

    with Recommender.open(config, retrievers, model) as rec:
        asked = rec.ask(
            papers=entries_of(str(library)),
            view=View(since=since.year, ingested_since=since.date().isoformat()),
            negatives=[e for source in negatives for e in entries_of(source)],
        )
        print_matches(str(library), asked.library)
        found = rec.recommend_for(asked.seed, k)
        print_records(
            format_,
            lambda: print_recommendations(f"new since {since.date()} for {library}", found, explain=True),
            lambda: [recommendation_dict(r) for r in found],
            recommendations_file(rec.store, found),
        )
