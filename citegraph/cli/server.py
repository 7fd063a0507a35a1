"""citegraph graph start|status|stop: the resident graph, the embedded ArcadeDB server kept
running for a data folder (``citegraph server …`` is the same group under its earlier name)."""

from __future__ import annotations

import sys
from dataclasses import replace

import click

from ..config import Config
from .app import main


@main.group("graph")
def graph_server():
    """The resident graph: the embedded ArcadeDB server kept running for the data folder.

    Every command without --uri attaches to the server of its data folder while one runs
    (this one, or the one `citegraph serve` keeps), over Bolt, instead of starting its own:
    seconds saved per command."""


@main.group("server")
def server_alias():
    """The same as `citegraph graph` (start, status, stop): its earlier name."""


def _arcade(config: Config, heap: str | None = None):
    from ..graph import embedded_server

    return embedded_server(replace(config, heap=heap or config.heap))


@click.command("start")
@click.option("--port", type=int, default=7687, show_default=True, help="Bolt port on 127.0.0.1.")
@click.option("--heap", help="JVM heap, e.g. 4g (default: the JVM's, a quarter of RAM).")
@click.pass_obj
def start(config: Config, port: int, heap: str | None):
    """Start the data folder's ArcadeDB server on 127.0.0.1 and keep it running."""
    server_ = _arcade(config, heap)
    info = server_.start(port, detach=True)
    click.echo(f"ArcadeDB serves {server_.home} at {info.uri} (pid {info.pid}); log: {server_.log_file}")
    click.echo(
        f"user: root; password in {server_.home / 'credentials'}. "
        "Commands without --uri attach to this server while it runs."
    )


@click.command("stop")
@click.pass_obj
def stop(config: Config):
    """Stop the data folder's server."""
    server_ = _arcade(config)
    click.echo("stopped" if server_.stop() else f"no server runs for {server_.home}")


@click.command("status")
@click.pass_obj
def status(config: Config):
    """Say whether a server runs for the data folder, and whose it is (exit code 1 if none)."""
    server_ = _arcade(config)
    info = server_.status()
    if info is None:
        click.echo(f"no server runs for {server_.home}")
        sys.exit(1)
    kept = "resident (citegraph graph start)" if info.detached else "kept by the command that started it, until it ends"
    click.echo(f"running: {info.uri} (pid {info.pid}, HTTP {info.http_port}), {kept}; log: {server_.log_file}")


for command in (start, status, stop):
    graph_server.add_command(command)
    server_alias.add_command(command)
