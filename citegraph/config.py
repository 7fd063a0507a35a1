"""One typed configuration, read from flags, the environment and an optional TOML file.

Precedence: explicit overrides (CLI flags) > environment > config file > defaults.
The Neo4j password never has a default and never lives in code: it comes from
``CITEGRAPH_PASSWORD`` or the config file (``CITEGRAPH_CONFIG``, default
``~/.config/citegraph/config.toml``). The embedded ArcadeDB server generates its own.
"""

from __future__ import annotations

import os
import tomllib
import urllib.parse
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .errors import ConfigError

ENV_PREFIX = "CITEGRAPH_"
#: The URI schemes of the neo4j driver: plain, TLS (+s) and TLS with any certificate (+ssc).
URI_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
DEFAULT_CONFIG_FILE = Path("~/.config/citegraph/config.toml")


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "citegraph"


@dataclass(frozen=True, slots=True)
class Config:
    """Where the graph lives and how to reach it.

    ``uri`` unset means the embedded default: a private ArcadeDB server under
    ``data_dir``. ``database`` unset means the server's default database.
    """

    uri: str | None = None
    user: str = "neo4j"
    password: str | None = None
    database: str | None = None
    data_dir: Path = field(default_factory=_default_data_dir)
    heap: str | None = None  # JVM heap of the embedded ArcadeDB server, e.g. "4g"
    #: Seconds a read / a write transaction may run before the server stops it (0: no
    #: limit): a statement whose client died otherwise runs on. A read's covers a stream
    #: consumed while an index is built; a write is one bounded batch. Neo4j enforces them;
    #: ArcadeDB (26.10) ignores the Bolt transaction timeout.
    read_timeout: float = 900.0
    write_timeout: float = 300.0
    #: `citegraph grow`'s APIs (citegraph/grow/): base URLs, OpenAlex's polite-pool address and the
    #: keys, from the environment (CITEGRAPH_OPENALEX_KEY, CITEGRAPH_S2_KEY) or the file, never a flag
    openalex_url: str = "https://api.openalex.org"
    s2_url: str = "https://api.semanticscholar.org/graph/v1"
    openalex_mailto: str | None = None
    openalex_key: str | None = field(default=None, repr=False)
    s2_key: str | None = field(default=None, repr=False)

    @property
    def embedded(self) -> bool:
        return self.uri is None

    def data_folder(self, *parts: str) -> Path:
        """A path under the data directory, which is created first if it is missing
        (:func:`private_folder`): every command that writes there goes through this."""
        return private_folder(Path(self.data_dir)).joinpath(*parts)

    def require_password(self) -> str:
        if self.password is None:
            raise ConfigError(
                f"CITEGRAPH_PASSWORD is not set: the server at {self.uri} needs a password "
                "(set the environment variable or 'password' in the config file)."
            )
        return self.password

    @classmethod
    def load(cls, config_file: Path | None = None, **overrides: object) -> Config:
        """Build the configuration; ``None`` overrides are ignored so unset flags fall through."""
        values: dict[str, Any] = {}
        path = config_file or Path(os.environ.get(f"{ENV_PREFIX}CONFIG", DEFAULT_CONFIG_FILE)).expanduser()
        if config_file is not None and not path.is_file():
            raise ConfigError(f"config file {path} does not exist")
        if path.is_file():
            values.update(_read_file(path))
        for f in fields(cls):
            env = os.environ.get(ENV_PREFIX + f.name.upper())
            if env:
                values[f.name] = env
        values.update({k: v for k, v in overrides.items() if v is not None})
        if "data_dir" in values:
            values["data_dir"] = Path(str(values["data_dir"])).expanduser()
        for name in _SECONDS & values.keys():
            values[name] = _seconds(name, values[name])
        if values.get("uri"):
            check_uri(str(values["uri"]))
        return replace(cls(), **values)


def private_folder(path: Path) -> Path:
    """``path``, created with its missing parents readable by the owner only (0700 whatever
    the umask): the data directory holds the corpus text (indexes), the database files and
    the embedded server's password."""
    path = Path(path)
    for folder in reversed([p for p in (path, *path.parents) if not p.exists()]):
        folder.mkdir(mode=0o700, exist_ok=True)
        folder.chmod(0o700)  # mkdir's mode is masked by the umask
    return path


def check_uri(uri: str) -> None:
    """Refuse a URI the driver cannot use, in words (``--uri``); a URI holding a user or
    password is refused without being shown, so no credential ends up in a log."""
    try:
        parts = urllib.parse.urlsplit(uri)
        port = parts.port
    except ValueError:
        parts, port = None, -1
    if parts is not None and (parts.username is not None or parts.password is not None):
        raise ConfigError(
            "--uri must not hold credentials: give the user with --user (or CITEGRAPH_USER) and "
            "the password in CITEGRAPH_PASSWORD or the config file"
        )
    shown = repr(uri[:200]) if "@" not in uri else "(not shown: it holds an '@')"
    if parts is None or port == -1:
        raise ConfigError(f"--uri {shown} is not a valid URI: its host or port cannot be read")
    if parts.scheme not in URI_SCHEMES:
        raise ConfigError(
            f"--uri {shown}: the scheme must be one of {', '.join(URI_SCHEMES)}, e.g. bolt://localhost:7687"
        )
    if not parts.hostname:
        raise ConfigError(f"--uri {shown} names no host, e.g. bolt://localhost:7687")
    if parts.query or parts.fragment:  # not shown: whatever follows '?' or '#' may be a secret
        raise ConfigError(
            "--uri must hold only scheme, host and port, e.g. bolt://localhost:7687: it has a "
            f"{'query (?…)' if parts.query else 'fragment (#…)'}, which is not shown"
        )


def _read_file(path: Path) -> dict[str, object]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config file {path}: not UTF-8 (byte at offset {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path}: {exc}") from exc
    except ValueError:  # an integer of over 4,300 digits, which Python does not build
        raise ConfigError(f"config file {path}: a number of too many digits") from None
    known = {f.name for f in fields(Config)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"config file {path}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return {k: str(v) for k, v in data.items()}


_SECONDS = {"read_timeout", "write_timeout"}


def _seconds(name: str, value: object) -> float:
    try:
        seconds = float(str(value))
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise ConfigError(
            f"{ENV_PREFIX}{name.upper()} (or '{name}' in the config file) must be seconds, a number "
            f"of 0 (no limit) or more, got {str(value)[:40]!r}"
        )
    return seconds
