"""The protocol stream of a server on stdio (``citegraph mcp``, ``citegraph lsp``)."""

from __future__ import annotations

from typing import BinaryIO


def protocol_stdout() -> BinaryIO:
    """The protocol's stream on a copy of file descriptor 1, and fd 1 itself pointed at stderr:
    whatever else writes to fd 1 — a library's print, the first lines of a crashing JVM's
    report (HotSpot writes them there whatever its options) — reaches stderr, never the client."""
    import os
    import sys

    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    return protocol
