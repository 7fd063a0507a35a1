"""One ingest at a time per graph.

Two ingests writing the same papers at once race on the unique constraint (the loser dies
with ``ConstraintError: Duplicated key``) and interleave their checkpoints. An ingest holds
an exclusive ``flock`` on a file under the data directory, named after the graph (the
embedded one, or the URI and database of a user's server); a second one is refused at
once, naming the pid that holds it. The kernel drops the lock when its holder dies, so a
killed ingest never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..config import Config
from ..errors import CitegraphError


def lock_file(config: Config) -> Path:
    graph = "embedded" if config.embedded else f"{config.uri}|{config.database or ''}"
    return Path(config.data_dir) / "locks" / f"ingest-{hashlib.sha256(graph.encode()).hexdigest()[:16]}.lock"


@contextmanager
def ingest_lock(config: Config) -> Iterator[None]:
    """Hold the ingest lock of ``config``'s graph, or raise if another process holds it."""
    path = lock_file(config)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with open(path, "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "unknown"
            raise CitegraphError(f"another ingest into this graph is running (pid {holder}); wait for it to "
                                 "finish, or stop it (a stopped ingest resumes when run again)") from None
        try:
            lock.seek(0)
            lock.truncate()
            lock.write(str(os.getpid()))
            lock.flush()
            yield
        finally:
            lock.seek(0)
            lock.truncate()
            fcntl.flock(lock, fcntl.LOCK_UN)
