"""The ``citegraph`` group: connection options, the graph for a command, one-line errors."""

from __future__ import annotations

from contextlib import contextmanager
from importlib import import_module
from pathlib import Path

import click

from .. import __version__
from ..config import Config
from ..errors import CitegraphError, Interrupted

#: The module (``citegraph/cli/<module>.py``) that declares each command: a command imports its
#: own module only, so that its start-up pays for no other (``tests/test_cli.py`` checks the map).
COMMAND_MODULES = {
    **dict.fromkeys(("cite",), "cite"),
    **dict.fromkeys(("contexts", "contextualise"), "contextualise"),
    **dict.fromkeys(("demo",), "demo"),
    **dict.fromkeys(("evaluate", "report", "tune-bm25"), "evaluate"),
    **dict.fromkeys(("clear", "query", "stats"), "graph"),
    **dict.fromkeys(("grow",), "grow"),
    **dict.fromkeys(("index", "search"), "index"),
    **dict.fromkeys(("complete-import", "export", "ingest", "prefilter", "synth"), "ingest"),
    **dict.fromkeys(("library", "paper", "works"), "library"),
    **dict.fromkeys(("lsp",), "lsp"),
    **dict.fromkeys(("enrich", "mdcr", "pools"), "pools"),
    **dict.fromkeys(("explain", "mcp", "recommend", "recommend-train", "serve", "watch"), "recommend"),
    **dict.fromkeys(("repro",), "repro"),
    **dict.fromkeys(("graph", "server"), "server"),
}


class _Group(click.Group):
    """Loads a command's module when the command is asked for (:data:`COMMAND_MODULES`); prints
    a :class:`CitegraphError` as one line instead of a traceback, and a ^C that no command
    turned into one (:class:`~citegraph.errors.Interrupted`) as "interrupted", exit 130."""

    def list_commands(self, ctx):
        return sorted(COMMAND_MODULES.keys() | self.commands.keys())

    def get_command(self, ctx, cmd_name):
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            import_module(f"{__package__}.{COMMAND_MODULES[cmd_name]}")  # its decorators register it
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (CitegraphError, KeyboardInterrupt) as exc:
            said = exc if isinstance(exc, CitegraphError) else Interrupted("interrupted")
            error = click.ClickException(str(said))
            error.exit_code = said.exit_code
            raise error from exc


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="citegraph")
@click.option(
    "--uri",
    help="Bolt URI of a Neo4j 5 (or other Bolt) server [env CITEGRAPH_URI]; unset: the embedded ArcadeDB server.",
)
@click.option(
    "--user",
    help="Graph user [env CITEGRAPH_USER, default neo4j]. The password comes "
    "from CITEGRAPH_PASSWORD or the config file, never from a flag.",
)
@click.option("--database", help="Database name [env CITEGRAPH_DATABASE; default: the server's].")
@click.option(
    "--data-dir",
    type=click.Path(path_type=Path),
    help="Where citegraph keeps its data [env CITEGRAPH_DATA_DIR, default ~/.local/share/citegraph].",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="TOML config file [env CITEGRAPH_CONFIG, default ~/.config/citegraph/config.toml].",
)
@click.pass_context
def main(ctx, uri, user, database, data_dir, config_file):
    """citegraph: citation recommendation and its benchmarks on a graph database."""
    from .logs import route_logs

    ctx.obj = Config.load(config_file, uri=uri, user=user, database=database, data_dir=data_dir)
    route_logs(ctx.obj.data_dir)


@contextmanager
def needs_extra(command: str, extra: str):
    """Around the import of a command's server (serve, mcp, lsp): a library of the pip ``extra``
    missing is one line naming the extra, not an ImportError."""
    try:
        yield
    except ImportError as exc:
        raise CitegraphError(
            f"citegraph {command} needs the [{extra}] extra ({exc.name} is not installed): pip install 'citegraph[{extra}]'"
        ) from exc


@contextmanager
def open_graph(config: Config):
    from ..graph import embedded_server, open_store

    if config.embedded:
        running = embedded_server(config).status()  # a resident server (graph start, serve) is attached to
        attached = f" (its running server, pid {running.pid})" if running else ""
        click.echo(f"Using the embedded ArcadeDB graph in {config.data_dir}{attached}", err=True)
    store = open_store(config)
    try:
        yield store
    finally:
        store.close()


def indexes_dir(config: Config) -> Path:
    return config.data_folder("indexes")


def corpus_documents(config: Config, ids) -> dict:
    """The papers' texts by id: from the record `citegraph index` keeps beside the indexes,
    the graph asked (and so started) only for ids that record lacks."""
    from ..retrieval.corpus import documents_by_id
    from ..retrieval.docstore import DocStore

    ids = list(ids)
    found = dict(DocStore(indexes_dir(config)).get(ids))
    if len(found) < len(set(ids)):
        with open_graph(config) as store:
            found.update(documents_by_id(store, [i for i in ids if i not in found]))
    return found
