"""Child processes and loopback ports, as the embedded server's life (:mod:`.arcadedb`) and
the bulk loader's child (:mod:`.backend`) need them: a free port, whether a port answers,
whether a pid lives and what it runs, and a child that dies with its parent."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path

#: The loopback interface the embedded server listens on (never a public one).
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((HOST, port)) == 0


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); reap it if it is ours.
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def command_line(pid: int) -> list[str] | None:
    """The arguments of process ``pid`` (Linux), or ``None`` where they cannot be read."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return None


def tied_to_parent(death_signal: int) -> Callable[[], None]:
    """The ``preexec_fn`` of a child process that must not outlive this one: it gets its own
    process group (a terminal's ^C reaches the parent, which ends the child in order) and,
    on Linux, ``death_signal`` from the kernel when its parent dies — even by SIGKILL, which
    no signal handler or process group of the parent can answer. The kernel ties that signal
    to the *thread* that forks: the child must not outlive the calling thread."""

    def preexec() -> None:
        os.setpgrp()
        if sys.platform.startswith("linux"):
            import ctypes

            PR_SET_PDEATHSIG = 1
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, death_signal)

    return preexec
