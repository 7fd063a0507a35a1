"""citegraph server: the embedded ArcadeDB Bolt server."""

from __future__ import annotations

import sys
from dataclasses import replace

import click

from ..config import Config
from .app import main


@main.group()
def server():
    """The embedded ArcadeDB Bolt server (for users without Neo4j)."""


def _arcade(config: Config, heap: str | None = None):
    from ..graph import embedded_server

    return embedded_server(replace(config, heap=heap or config.heap))


@server.command("start")
@click.option("--port", type=int, default=7687, show_default=True, help="Bolt port on 127.0.0.1.")
@click.option("--heap", help="JVM heap, e.g. 4g (default: the JVM's, a quarter of RAM).")
@click.pass_obj
def server_start(config: Config, port: int, heap: str | None):
    """Start a long-lived ArcadeDB server on 127.0.0.1 for the data directory."""
    server_ = _arcade(config, heap)
    info = server_.start(port, detach=True)
    click.echo(f"ArcadeDB serves {server_.home} at {info.uri} (pid {info.pid}); log: {server_.log_file}")
    click.echo(
        f"user: root; password in {server_.home / 'credentials'}. Commands without --uri use this server while it runs."
    )


@server.command("stop")
@click.pass_obj
def server_stop(config: Config):
    """Stop the server of the data directory."""
    server_ = _arcade(config)
    click.echo("stopped" if server_.stop() else f"no server runs for {server_.home}")


@server.command("status")
@click.pass_obj
def server_status(config: Config):
    """Say whether a server runs for the data directory (exit code 1 if not)."""
    server_ = _arcade(config)
    info = server_.status()
    if info is None:
        click.echo(f"no server runs for {server_.home}")
        sys.exit(1)
    click.echo(f"running: {info.uri} (pid {info.pid}, HTTP {info.http_port}); log: {server_.log_file}")
