"""One ingest at a time per database.

Two ingests writing the same papers at once race on the unique constraint (the loser dies
with ``ConstraintError: Duplicated key``) and interleave their checkpoints. An ingest holds
filelock's lock (``flock`` on Unix) on a file named after the database it writes
(:func:`lock_file`); a second one is refused at once, naming the pid that holds it, which
the holder keeps in a file beside the lock (``.pid``: filelock writes nothing in its lock
file, and filelock 3.x opens it emptied whenever a process tries the lock). The kernel
drops the lock when its holder dies, so a killed ingest never leaves a stale lock behind
(its ``.pid`` file is rewritten by the next holder).

The name must be the database's, not the spelling of the way to it: the embedded graph and
``--uri bolt://localhost:P`` to the same server are one database. An ArcadeDB server of this
machine (the embedded one, or the one a loopback URI reaches, found by its process) is
identified by its database folder, and the lock lives in that server's home — every data
directory and every URI that reaches those files meets the same lock. Any other server is
known only by its address: the host resolved to its IP addresses (so ``localhost`` and
``127.0.0.1`` agree), the port and the database name. ArcadeDB answers no database identity
over Bolt (no ``db.info()``), and a file lock cannot serialise processes that do not share
a folder: two data directories, or two machines, writing one remote server are not held
apart.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import socket
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..config import Config, private_folder
from ..errors import CitegraphError
from ..graph import ArcadeServer, embedded_server
from ..graph.arcadedb import DATABASE


def lock_file(config: Config) -> Path:
    """The lock of the database ``config`` writes to (see the module's docstring)."""
    address = None if config.embedded or config.uri is None else _address(config.uri)
    if address is None:
        server = embedded_server(config)
    elif address.startswith("loopback:"):
        server = ArcadeServer.on_bolt_port(int(address.rpartition(":")[2]))
    else:
        server = None
    if server is not None:
        folder, graph = server.home, server.home / "databases" / (config.database or DATABASE)
    else:
        folder, graph = config.data_folder("locks"), f"{address}/{config.database or ''}"
    return private_folder(folder) / f"ingest-{hashlib.sha256(str(graph).encode()).hexdigest()[:16]}.lock"


def _address(uri: str) -> str:
    """'ADDRESSES:PORT' of a Bolt URI: the host's IP addresses, sorted, every loopback one
    spelled 'loopback'; the host as written if it does not resolve."""
    parts = urllib.parse.urlsplit(uri)
    port = parts.port or 7687
    try:
        found = {str(info[4][0]) for info in socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)}
    except OSError:
        return f"{(parts.hostname or '').lower()}:{port}"
    addresses = {"loopback" if ipaddress.ip_address(a.partition("%")[0]).is_loopback else a for a in found}
    return f"{','.join(sorted(addresses))}:{port}"


@contextmanager
def ingest_lock(config: Config) -> Iterator[None]:
    """Hold the ingest lock of ``config``'s database, or raise if another process holds it."""
    from filelock import FileLock, Timeout

    path = lock_file(config)
    holder = path.with_suffix(".pid")
    try:
        held = FileLock(path).acquire(timeout=0)  # one attempt
    except Timeout:
        try:
            pid = holder.read_text(encoding="utf-8").strip() or "unknown"
        except FileNotFoundError:
            pid = "unknown"  # taken a moment ago: its holder has not written its pid yet
        raise CitegraphError(
            f"another ingest into this graph is running (pid {pid}); wait for it to "
            "finish, or stop it (a stopped ingest resumes when run again)"
        ) from None
    with held:
        holder.write_text(str(os.getpid()), encoding="utf-8")
        try:
            yield
        finally:
            holder.unlink(missing_ok=True)
