"""The ``citegraph`` command line: a thin layer over the modules it calls, one module per
command group.

Every command that touches the graph takes the connection from flags, the environment
(``CITEGRAPH_URI`` …) or the config file; with no URI the embedded ArcadeDB server is
started for the command and stopped after it (or attached to, while ``citegraph graph start``
or ``citegraph serve`` keeps one running). Heavy libraries are imported inside commands so that ``citegraph --help`` stays instant, and a
command's module is imported when the command is asked for (``app.COMMAND_MODULES``).
"""

from .app import main

__all__ = ["main"]
