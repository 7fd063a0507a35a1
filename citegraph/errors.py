"""Errors a user can act on.

Every error citegraph raises on purpose is a :class:`CitegraphError`; the CLI prints its
message without a traceback. :class:`InputError` names the file, line and field of bad
input so the user can fix the record instead of reading a stack trace.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class CitegraphError(Exception):
    """An error with a message meant for the user.

    The CLI's exit code is one rule (docs/reliability.md): 2 when what the user gave is wrong
    (an option, an argument, an id, a file's content: :class:`UsageError`, :class:`InputError`,
    :class:`NotFoundError`), 1 when the command could not do it (the graph server, the disk, a
    missing index), 130 when interrupted."""

    exit_code = 1  # the CLI's


class UsageError(CitegraphError):
    """An argument names something unusable (e.g. a folder that is not a model): the CLI exits
    with 2, as for a bad option."""

    exit_code = 2


class OverlapError(UsageError):
    """A test sample shares papers with the sample a model was trained on: the measurement
    would be meaningless."""


class ConfigError(CitegraphError):
    """A missing or invalid configuration value."""


class ServerError(CitegraphError):
    """The graph server could not be started, reached or stopped."""


class NotFoundError(CitegraphError):
    """Something asked for by id (a paper, a saved query) does not exist."""

    exit_code = 2


class Interrupted(CitegraphError):
    """Stopped by ^C (SIGINT); the message says what is left done and what to run."""

    exit_code = 130  # 128 + SIGINT, as shells report a command ^C ended


@dataclass(frozen=True, slots=True)
class Location:
    """Where a record came from: a file and a 1-based line number."""

    path: Path
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class Problem:
    """What is wrong with one input record, and where."""

    where: Location
    field: str | None
    reason: str

    def __str__(self) -> str:
        field = f" field '{self.field}'" if self.field else ""
        return f"{self.where}:{field} {self.reason}"


class InputError(CitegraphError):
    """Bad input; the message names the file, line and field."""

    exit_code = 2

    def __init__(self, problem: Problem):
        super().__init__(str(problem))
        self.problem = problem
