"""Where log records of a command go: citegraph's own warnings to the terminal (one line each,
as the user must see them), every library's (the graph driver's retries and connection errors,
the engines') to ``<data dir>/logs/citegraph.log``. Without a handler, Python's last-resort
handler printed the driver's warnings on stderr — five "Transaction failed and will be
retried" blocks while a stopped server was retried — and an MCP client's stderr too."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from ..config import private_folder

LOG_FILE = Path("logs") / "citegraph.log"


class _FolderMadeOnFirstRecord(logging.FileHandler):
    """A file handler that creates its (private) folder with its file: a command that logs
    nothing leaves nothing behind."""

    def _open(self):
        private_folder(Path(self.baseFilename).parent)
        return super()._open()


class _Stderr(logging.StreamHandler):
    """stderr as it is when a record comes (a test runner swaps it per command)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


class _Ours(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.name == "citegraph" or record.name.startswith("citegraph.")


def route_logs(data_dir: Path) -> None:
    """Send warnings of citegraph's loggers to stderr and every record at WARNING or above to
    the data folder's log file, and an in-process JVM's crash report to its folder. Called again
    (CliRunner invokes the group once a command), it replaces the handlers it added."""
    from ..retrieval.bm25 import jvm

    jvm.log_folder = Path(data_dir) / LOG_FILE.parent
    root = logging.getLogger()
    for handler in [h for h in root.handlers if (h.get_name() or "").startswith("citegraph.")]:
        root.removeHandler(handler)
        handler.close()
    to_file = _FolderMadeOnFirstRecord(Path(data_dir) / LOG_FILE, encoding="utf-8", delay=True)
    to_file.setLevel(logging.WARNING)
    to_file.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"))
    to_terminal = _Stderr()
    to_terminal.setLevel(logging.WARNING)
    to_terminal.addFilter(_Ours())
    to_terminal.setFormatter(logging.Formatter("warning: %(message)s"))
    to_file.set_name("citegraph.file")
    to_terminal.set_name("citegraph.terminal")
    root.addHandler(to_file)
    root.addHandler(to_terminal)
