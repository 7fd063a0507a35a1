"""The ``citegraph`` command line: a thin layer over the modules it calls, one module per
command group.

Every command that touches the graph takes the connection from flags, the environment
(``CITEGRAPH_URI`` …) or the config file; with no URI the embedded ArcadeDB server is
started for the command and stopped after it (or reused if ``citegraph server start`` runs).
Heavy libraries are imported inside commands so that ``citegraph --help`` stays instant.
"""

from . import (  # noqa: F401  (registers)
    cite,
    contextualise,
    demo,
    evaluate,
    graph,
    index,
    ingest,
    library,
    pools,
    recommend,
    repro,
    server,
)
from .app import main

__all__ = ["main"]
