"""citegraph pools, mdcr build, enrich: benchmarks and candidate sets drawn from the graph."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..config import Config
from ..evaluation.large_scale.config import PoolsConfig
from ..evaluation.mdcr.config import MDCRConfig
from ..options import from_options, options_of
from .app import indexes_dir, main, open_graph
from .flags import CommaList, click_option, ids_file, retrievers_option
from .output import print_table


def print_manifest(manifest, out: Path) -> None:
    click.echo(f"{manifest.kind}: {manifest.queries:,} queries of {manifest.year}, seed {manifest.seed} → {out}")
    for entry in manifest.pools:
        capped = " (capped: all there is)" if entry["capped"] else ""
        click.echo(f"  {entry['file']}: {entry['papers']:,} papers{capped}")


out_folder = click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Output folder."
)


@main.group()
def pools():
    """Large-scale candidate pools (Medić & Šnajder 2022, §3) from the graph."""


@pools.command("dataset-level")
@click.option("--queries", "n_queries", default=1000, show_default=True)
@click.option(
    "--sizes",
    type=CommaList(int),
    default="200000,500000,1000000,2000000",
    show_default=True,
    help="Pool sizes, comma-separated (capped at what the graph holds).",
)
@out_folder
@click.pass_obj
def pools_dataset(config: Config, n_queries, sizes, out, **drawn):
    """Queries of one year; pools = cited papers + random eligible papers up to that year."""
    from ..evaluation.large_scale import pools as pools_

    with open_graph(config) as store:
        manifest = pools_.dataset_level(store, out, from_options(PoolsConfig, drawn), n_queries=n_queries, sizes=sizes)
    print_manifest(manifest, out)


@pools.command("field-level")
@click.option("--queries", "n_queries", default=200, show_default=True, help="Queries per field.")
@click.option("--size", default=100_000, show_default=True, help="Pool size per field.")
@click.option("--fields", type=CommaList(), help="Comma-separated MAG fields (default: all 19).")
@out_folder
@click.pass_obj
def pools_field(config: Config, n_queries, size, fields, out, **drawn):
    """Per field: its queries; pools = cited papers + random papers of the field-cited set."""
    from ..evaluation.large_scale import pools as pools_
    from ..vocabulary import MAG_FIELDS

    with open_graph(config) as store:
        manifest = pools_.field_level(
            store, out, from_options(PoolsConfig, drawn), fields=fields or MAG_FIELDS, n_queries=n_queries, size=size
        )
    print_manifest(manifest, out)


for _command in (pools_dataset, pools_field):  # after --out: the flags declared on PoolsConfig's fields
    _command.params += [click_option(o) for o in options_of(PoolsConfig)]


@main.group()
def mdcr():
    """The MDCR benchmark (Medić & Šnajder 2022, §4) from the graph."""


@mdcr.command("build")
@out_folder
@retrievers_option(
    "Retrievers with built indexes for the model-based negatives; the 3 least overlapping are used.", default=""
)
@click.option(
    "--exclude",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Paper ids (one a line) never used as queries or candidates.",
)
@click.pass_obj
def mdcr_build(config: Config, out, retrievers, exclude, **options):
    """5 cited + 10 negatives of each type per query, in the official release format."""
    from ..evaluation.mdcr.build import build

    drawn = from_options(MDCRConfig, options)
    opened = [spec.open(indexes_dir(config)) for spec in retrievers]
    with open_graph(config) as store:
        manifest = build(store, out, drawn, retrievers=opened, exclude=ids_file(exclude))
    click.echo(f"MDCR: {manifest.queries:,} queries of {manifest.year}, seed {drawn.seed} → {out}")
    short = {k: v for k, v in manifest.graph["shortfall"].items() if v}
    if short:
        click.echo(f"  candidates missing (too few allowed in the graph): {short}")
    if manifest.graph["model_selection"]:
        click.echo(f"  model-based types: {', '.join(manifest.graph['model_selection']['chosen'])}")


mdcr_build.params[2:2] = [click_option(o) for o in options_of(MDCRConfig)]  # declared on MDCRConfig's fields


@main.command()
@click.argument("ids", nargs=-1, required=True)
@click.option("--size", default=300, show_default=True, help="Candidates + neighbours in all (SymTax: 300).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def enrich(config: Config, ids, size, as_json):
    """Widen candidate IDS with the papers they cite most (SymTax's ego-network Enricher)."""
    from ..retrieval.signals import enrich as enrich_

    with open_graph(config) as store:
        result = enrich_(store, list(ids), size)
    rows = [
        {"id": i, "added": i in result.frequency, "cited_by_candidates": result.frequency.get(i)} for i in result.ids
    ]
    if as_json:
        click.echo(json.dumps(rows))
    else:
        print_table(f"{len(ids)} candidates enriched to {len(result.ids)}", rows)
