"""The rejects file of ``skip_bad``: the bad lines an ingest left out (JSONL: file, line,
field, reason), so that they can be fixed and ingested again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from ..errors import CitegraphError, Problem


class Rejects:
    """The rejects file, created at the first bad line; a failure to write it (a full disk,
    /dev/full) is one line."""

    def __init__(self, path: Path):
        self.path = path
        self._file: TextIO | None = None

    @staticmethod
    def refuse_unwritable(path: Path, inputs: list[Path]) -> None:
        """The rejects file is truncated when written: it must not be one of the ``inputs``; and
        its folder must exist (found before the input is read, not at its first bad line)."""
        if path.exists() and any(path.samefile(file) for file in inputs):
            raise CitegraphError(f"the rejects file {path} is an input of this ingest: choose another --rejects")
        if not path.absolute().parent.is_dir():
            raise CitegraphError(f"the rejects file {path} cannot be written: no folder {path.absolute().parent}")

    def write(self, problem: Problem) -> None:
        with self._failing():
            if self._file is None:
                self._file = open(self.path, "w", encoding="utf-8")
            self._file.write(
                json.dumps(
                    {
                        "file": str(problem.where.path),
                        "line": problem.where.line,
                        "field": problem.field,
                        "reason": problem.reason,
                    }
                )
                + "\n"
            )

    def close(self) -> None:
        if self._file is not None:
            with self._failing():
                file, self._file = self._file, None
                file.close()

    @contextmanager
    def _failing(self) -> Iterator[None]:
        try:
            yield
        except OSError as exc:
            raise CitegraphError(f"the rejects file {self.path} cannot be written: {exc.strerror or exc}") from None
