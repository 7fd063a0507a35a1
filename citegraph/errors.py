"""Errors a user can act on.

Every error citegraph raises on purpose is a :class:`CitegraphError`; the CLI prints its
message without a traceback. :class:`InputError` names the file, line and field of bad
input so the user can fix the record instead of reading a stack trace.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class CitegraphError(Exception):
    """An error with a message meant for the user."""

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

    def __init__(self, problem: Problem):
        super().__init__(str(problem))
        self.problem = problem
