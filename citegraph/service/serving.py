"""The HTTP service as a process: ``citegraph serve`` (the listening socket, the recommender
opened, uvicorn until ^C or SIGTERM), the embedded graph server kept running while it serves,
and waiting for a service a script or a test has started (:func:`wait_serving`). The
application itself — its routes and their models — is :mod:`.http`'s."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import CitegraphError
from ..graph import embedded_server
from ..recommend import Recommender
from ..recommend.cite import CiteModel
from ..retrieval.spec import Spec
from .http import create_app
from .limits import served_hosts


def serve(
    config,
    host: str = "127.0.0.1",
    port: int = 8000,
    retrievers: tuple[str | Spec, ...] = ("bm25",),
    model: Path | None = None,
    cache_size: int = 256,
    log=print,
    cite_model: Path | None = None,
    grow: bool = False,
) -> None:
    """Open the recommender on ``config``'s graph and serve until interrupted (^C or SIGTERM);
    ``cite_model`` (a sentence-transformers folder) re-ranks ``/cite``'s suggestions; ``grow``
    lets the explorer grow the graph from a library (``POST /explore/grow``)."""
    import signal
    import sys

    import uvicorn

    # uvicorn shuts down gracefully on SIGTERM and then raises the signal again; with the
    # default action that would kill the process before the recommender closes the graph
    # (and stops an embedded server). Exiting instead unwinds through the `with`.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    listening = _listen(host, port)  # before the graph opens and before the address is announced
    with (
        Recommender.open(config, retrievers, model, cache_size=cache_size) as recommender,
        _embedded_graph_kept(config, log),
    ):
        reranker = CiteModel(cite_model, recommender, config.data_folder("embeddings")) if cite_model else None
        app = create_app(recommender, hosts=served_hosts(host), cite_model=reranker, grow=config if grow else None)
        log(f"citegraph on http://{host}:{port}/ — the graph explorer; API docs at http://{host}:{port}/docs")
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[listening])


def _listen(host: str, port: int) -> socket.socket:
    """The service's listening socket, or one line saying why there is none (a busy port).
    With TCP_NODELAY, which the connections it accepts inherit (Linux): uvicorn writes a
    response's head and body separately, and with Nagle's algorithm the body waited for the
    client's delayed ACK — 40 ms on every request of a kept-alive connection but its first."""
    try:
        listening = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise CitegraphError(
            f"cannot serve on {host}:{port}: {reason} — is another service using the port? Choose another with --port"
        ) from None
    listening.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return listening


@contextmanager
def _embedded_graph_kept(config, log, every: float = 1.0) -> Iterator[None]:
    """While the service runs on the embedded graph, restart its ArcadeDB server whenever
    it is gone — killed, crashed, or stopped by another service of the same data directory
    that had started it — so that ``/health`` recovers by itself (the store follows the
    server's state file to its new port). A user's server (``--uri``) is theirs to restart.

    The watcher thread starts the server and lives until the service ends, so the server
    dies with the service even when that is SIGKILLed (the kernel ties the parent-death
    signal to the thread that forked); it stops the server it started before it ends.
    """
    if not config.embedded:
        yield
        return
    server = embedded_server(config)
    done = threading.Event()

    def watch() -> None:
        pause = every
        while not done.wait(pause):
            if (reason := server.gone()) is None:
                continue
            log(f"{reason}; restarting it")
            try:
                info = server.start(thread_lasts=True)
            except CitegraphError as exc:
                pause = min(2 * pause, 30.0)  # a server that cannot start is not retried every second
                log(f"the embedded graph server did not start: {exc}")
                continue
            pause = every
            log(f"the embedded graph server runs again (pid {info.pid}, Bolt port {info.bolt_port})")
        if server.started_here:
            server.stop()

    watcher = threading.Thread(target=watch, name="embedded-graph-watcher", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


def wait_serving(url: str, process: subprocess.Popen, timeout: float = 90, log: Path | None = None) -> None:
    """Block until the ``citegraph serve`` started as ``process`` answers at ``url`` (its
    start opens the graph and the indexes: seconds). For the scripts and tests that start
    the service; raises with the service's log when it exits or stays silent."""

    def tail() -> str:
        return f":\n{log.read_text(errors='replace')}" if log and log.exists() else ""

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"citegraph serve exited with code {process.returncode}{tail()}")
        try:
            with urllib.request.urlopen(f"{url}/openapi.json", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:  # refused, reset, timed out, or an HTTP error while starting
            pass
        time.sleep(0.3)
    raise RuntimeError(f"citegraph serve did not answer within {timeout:.0f} s{tail()}")
