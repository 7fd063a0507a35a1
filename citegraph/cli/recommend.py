"""citegraph recommend, recommend-train, serve: recommendations for people."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..config import Config
from ..errors import CitegraphError
from .app import main
from .options import learned_weights, with_retrievers
from .output import print_recommendations, print_table


@main.command()
@click.option("--paper", help="A paper id in the graph.")
@click.option("--title", default="", help="A new paper's title (instead of --paper).")
@click.option("--abstract", default="", help="A new paper's abstract.")
@click.option("--reference", "references", multiple=True, help="A reference already chosen (repeatable).")
@click.option("--year", type=int, help="Recommend nothing newer (default for --paper: its year).")
@click.option("--field", help="Only papers of this MAG field.")
@click.option("--category", help="Only papers of this arXiv category.")
@click.option("-k", "--k", default=20, show_default=True)
@with_retrievers
@learned_weights
@click.option("--explain", is_flag=True, help="Show why each paper is recommended.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def recommend(config: Config, paper, title, abstract, references, year, field, category, k, retrievers, model,
              explain, as_json):
    """Which papers should this paper cite? From the graph and text scorers, with reasons."""
    from ..recommend import Recommender, recommendation_dict

    with Recommender.open(config, retrievers, model) as rec:
        seed = rec.seed(paper, title=title, abstract=abstract, references=references, year=year, field=field,
                        category=category)
        found = rec.recommend_for(seed, k)
    if as_json:
        click.echo(json.dumps([recommendation_dict(r) for r in found], ensure_ascii=False, indent=1))
        return
    print_recommendations(f"recommended for {paper or title or 'the abstract'}", found, explain)


@main.command("recommend-train")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Weights file (JSON).")
@click.option("--papers", default=300, show_default=True, help="Held-out citations to learn from.")
@click.option("--seed", default=0, show_default=True)
@with_retrievers
@click.pass_obj
def recommend_train(config: Config, out, papers, seed, retrievers):
    """Learn the recommender's weights on held-out citations of the graph (logistic regression)."""
    from ..recommend import Recommender, held_out_citations, save_weights, train

    with Recommender.open(config, retrievers) as rec:
        weights = train(rec, held_out_citations(rec.store, papers, seed))
    save_weights(out, weights, {"trained_on": papers, "seed": seed, "retrievers": [str(s) for s in retrievers]})
    print_table(f"learned weights → {out}", [{"feature": k, "weight": round(v, 4)} for k, v in weights.items()])


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Interface to listen on (loopback: only this machine can connect).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@with_retrievers
@learned_weights
@click.pass_obj
def serve(config: Config, host, port, retrievers, model):
    """HTTP service (/recommend, /paper, /neighbours, /search, /queries; docs at /docs) and the graph explorer at /."""
    try:
        from ..serve import serve as serve_
    except ImportError as exc:
        raise CitegraphError(f"citegraph serve needs the [serve] extra ({exc.name} is not installed): "
                             "pip install 'citegraph[serve]'") from exc

    serve_(config, host, port, tuple(retrievers), model,
           log=lambda line: click.echo(line, err=True))
