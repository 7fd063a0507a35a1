"""citegraph stats, query, clear: looking at the graph."""

from __future__ import annotations

import json
from collections.abc import Iterable

import click

from ..config import Config
from ..errors import CitegraphError
from .app import main, open_graph
from .flags import param_pairs_option
from .output import print_stats, print_table


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
@click.pass_obj
def stats(config: Config, as_json: bool):
    """Counts per label and relationship type, and the citation degree summary."""
    from ..graph.schema import graph_stats

    if config.embedded:
        from ..graph import embedded_server
        from ..ingest.bulk import interrupted_bulk

        if note := interrupted_bulk(embedded_server(config).home):
            click.secho(f"Warning: {note}", fg="yellow", err=True)
    with open_graph(config) as store:
        result = graph_stats(store)
    print_stats(result, as_json)


def _parse_params(query, pairs: Iterable[str]) -> dict:
    params = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep:
            raise click.BadParameter(f"expected key=value, got {pair!r}", param_hint="-p")
        if key not in query.parameters:
            declared = ", ".join(query.parameters) or "none"
            raise click.BadParameter(
                f"query '{query.name}' has no parameter ${key} (it has: {declared})", param_hint="-p"
            )
        try:
            params[key] = query.parameters[key].parse(text)
        except CitegraphError as exc:
            raise click.BadParameter(str(exc), param_hint="-p") from exc
    return params


@main.command()
@click.argument("name", required=False)
@param_pairs_option("A query parameter, converted to the type the query declares (JSON for list/map).")
@click.option("--json", "as_json", is_flag=True, help="Stream rows as JSON lines instead of a table.")
@click.option("--list", "list_", is_flag=True, help="List the named queries with their parameters.")
@click.pass_obj
def query(config: Config, name: str | None, pairs: tuple[str, ...], as_json: bool, list_: bool):
    """Run the named query NAME (a file citegraph/cypher/NAME.cypher)."""
    from ..graph import queries

    if list_ or not name:
        for qname in queries.names():
            q = queries.load(qname)
            params = " ".join(f"-p {p.name}=<{p.type}>" for p in q.parameters.values())
            click.echo(f"{qname} {params}".rstrip())
            click.echo(f"    {q.doc.splitlines()[0]}")
        return
    q = queries.load(name)
    params = _parse_params(q, pairs)
    try:
        q.check(params)
    except CitegraphError as exc:
        raise click.BadParameter(str(exc), param_hint="-p") from exc
    with open_graph(config) as store:
        if len(q.statements) > 1:
            store.apply(name, **params)
            click.echo(f"ran {len(q.statements)} statements of {name}")
        elif as_json:
            for row in store.rows(name, **params):
                click.echo(json.dumps(row, ensure_ascii=False, default=str))
        else:
            print_table(name, store.run(name, **params))


@main.command()
@click.option("--yes", is_flag=True, help="Confirm: every node and relationship is deleted.")
@click.pass_obj
def clear(config: Config, yes: bool):
    """Delete the whole graph, keeping the schema.

    The embedded ArcadeDB database is dropped and created again (instant); on a user's
    server the nodes are deleted in batches.
    """
    from ..graph import open_backend
    from ..graph.schema import apply_schema

    if not yes:
        raise click.UsageError("clear deletes the whole graph; add --yes to confirm")
    with open_graph(config) as store:
        click.echo(open_backend(config).clear(store))
        apply_schema(store)
