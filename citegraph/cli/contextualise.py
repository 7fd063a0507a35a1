"""citegraph contextualise, contexts export: citing sentences and what they refer to."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..config import Config
from ..contextualise.models import MODELS as CONTEXT_MODELS
from .app import indexes_dir, main, open_graph
from .flags import param_pairs_option
from .output import print_table


@main.command()
@click.option(
    "--cited", required=True, help="The cited paper's id in the graph: its title and abstract sentences are ranked."
)
@click.option("--citing", "texts", multiple=True, help="A citing sentence (repeatable).")
@click.option("--citing-paper", help="Instead of --citing: the citing sentences on this paper's citation of --cited.")
@click.option(
    "--limit",
    default=20,
    show_default=True,
    help="Without --citing or --citing-paper: the sentences of at most this many citing papers.",
)
@click.option(
    "--model",
    "model_name",
    type=click.Choice(list(CONTEXT_MODELS)),
    default="lmd",
    show_default=True,
    help="Contextualisation model (Cohan & Goharian 2017; see `citegraph evaluate contextualise`).",
)
@click.option(
    "--ontology",
    "ontologies",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Synonyms for we+dmn / we+rtrft: SKOS XML or a TAB-separated thesaurus (repeatable; "
    "default: the ACM concepts in the graph).",
)
@param_pairs_option("A model parameter (mu; k1, b; lam, gamma), default: as tuned on CL-SciSumm.")
@click.option("-k", "--k", default=3, show_default=True, help="Sentences shown per citing text.")
@click.option("--rebuild", is_flag=True, help="Rebuild the word statistics and vectors learned from the graph.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def contextualise(
    config: Config, cited, texts, citing_paper, limit, model_name, ontologies, pairs, k, rebuild, as_json
):
    """Which sentences of the cited paper a citation refers to."""
    from dataclasses import asdict

    from ..contextualise import on_graph
    from ..contextualise.models import settings

    model = CONTEXT_MODELS[model_name]
    overrides = {}
    for pair in pairs:
        key, _, text = pair.partition("=")
        try:
            overrides[key] = float(text)
        except ValueError:
            raise click.BadParameter(f"expected KEY=NUMBER, got {pair!r}", param_hint="-p") from None
    params = settings(model, overrides)
    with open_graph(config) as store:
        reference = on_graph.cited_reference(store, cited)
        citing = on_graph.citing_texts(store, cited, texts, citing_paper, limit)
        resources = on_graph.graph_resources(
            store,
            model,
            indexes_dir(config) / "contextualise",
            ontologies,
            rebuild,
            lambda message: click.echo(message, err=True),
        )
        found = on_graph.contextualise(reference, citing, model, resources, k, params)
    if as_json:
        click.echo(json.dumps([asdict(f) for f in found], ensure_ascii=False, indent=1))
        return
    for item in found:
        who = f"{item.citing.citing} → {cited}" if item.citing.citing else f"→ {cited}"
        print_table(
            f"{who}: {item.citing.text}",
            [{"rank": e.rank, "sentence": e.sid, "score": round(e.score, 3), "text": e.text} for e in item.evidence],
        )


@main.group()
def contexts():
    """Citation contexts: the query sets of local citation recommendation."""


@contexts.command("export")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Query set (JSONL).")
@click.pass_obj
def contexts_export(config: Config, out):
    """Write every citation context in the graph as a query set: context id, citing id, context text
    (sentence before, citing sentence with [CIT], sentence after), the citing paper's title, abstract,
    arXiv categories and year, and the cited id (the input of `citegraph evaluate local --data`)."""
    from ..local.data import export_contexts

    with open_graph(config) as store:
        counts = export_contexts(store, out)
    print_table(f"query set → {out}", [{"count": k.replace("_", " "), "value": v} for k, v in counts.items()])
