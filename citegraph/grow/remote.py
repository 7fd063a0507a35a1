"""One web API's GETs, as `citegraph grow` makes them: rate-limited, retried, kept on disk.

- **Rate**: every request that reaches the network first takes a slot from a
  ``pyrate_limiter`` limiter holding the API's documented rate, shared by every thread of the
  run (a cache hit takes none): one request every ``period / requests`` seconds (and 10 ms),
  evenly spaced, so that no second as the server counts it holds more.
- **Retries** (``tenacity``): a 429 or a 5xx answer, a connection that failed or closed before
  the whole body came (a truncated answer) is asked again, up to :attr:`Remote.attempts`
  times, after the ``Retry-After`` the server gave (seconds or an HTTP date; one over
  :attr:`Remote.longest_wait` is not waited for) or else after an exponential backoff.
- **Cache**: each answer (a 200's JSON, or a 404) is kept under ``cache/<api>/`` in the data
  folder, keyed by the request without its secrets, and written whole (a temporary file
  renamed) — so a run killed and run again, or the same run twice, asks nothing it has
  asked before. ``offline`` reads the cache only.
- **Secrets** (an API key as a query parameter or a header) are added to the request as it
  leaves and are in no cache key, message or log line: a request is named by
  :meth:`Remote.describe`; httpx's own INFO line (the whole URL) is silenced.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
from pyrate_limiter import Duration, Limiter, Rate
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from ..errors import CitegraphError, ConfigError

# httpx logs every request's whole URL at INFO: OpenAlex's key travels in the query string
logging.getLogger("httpx").setLevel(logging.WARNING)

#: What a cache file holds for an answer that is no work (the API's 404).
NOT_FOUND = 404


class RemoteError(CitegraphError):
    """An API answered something this run cannot use (an error, a malformed body), or could not
    be reached: the message names the request (without its secrets) and what came back."""

    exit_code = 1


@dataclass(frozen=True, slots=True)
class Api:
    """Where an API is and how it may be asked: ``per_second`` requests every ``period``
    seconds; ``params`` go on every request (OpenAlex's ``mailto``), ``secret_params`` and
    ``secret_headers`` too, never into a cache key, a message or a log line."""

    name: str
    base_url: str
    requests: int
    period: float
    params: Mapping[str, str] = field(default_factory=dict)
    secret_params: Mapping[str, str] = field(default_factory=dict, repr=False)
    secret_headers: Mapping[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password:
            raise ConfigError(
                f"the {self.name} URL must be http(s)://host[:port][/path] without credentials"
                + ("" if "@" in self.base_url else f", got {self.base_url[:200]!r}")
            )


class _Transient(Exception):
    """An answer worth asking again (429, 5xx, a broken connection), with the wait the server asked for."""

    def __init__(self, said: str, retry_after: float | None = None):
        super().__init__(said)
        self.said = said
        self.retry_after = retry_after


class _TooLong(Exception):
    """A Retry-After longer than this run waits (OpenAlex's daily allowance spent)."""


def retry_after(value: str | None) -> float | None:
    """Seconds a ``Retry-After`` header asks for: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class Remote:
    """GETs of JSON from one :class:`Api` (thread-safe: a run's fetches share one)."""

    #: Tries of one request, and the longest Retry-After a run waits for (seconds).
    attempts = 5
    longest_wait = 300.0

    def __init__(
        self,
        api: Api,
        cache: Path,
        *,
        offline: bool = False,
        backoff: float = 1.0,
        timeout: float = 60.0,
        on_request: Callable[[], None] | None = None,
    ):
        self.api = api
        self.cache = Path(cache) / api.name.lower().replace(" ", "-")
        self.offline = offline
        self.backoff = backoff
        self.on_request = on_request
        self.requests = 0  # answers that came over the network this run (retries included)
        self.hits = 0  # answers read from the cache
        self._count = threading.Lock()
        # one request every period/requests, never a burst: a burst the limiter allows at a window's
        # end and the next at the start of the following one reach the server closer than its rate
        self._limiter = Limiter(Rate(1, max(1, round(api.period * Duration.SECOND / api.requests))), buffer_ms=10)
        self._client = httpx.Client(
            base_url=api.base_url.rstrip("/"),
            headers={"User-Agent": "citegraph", **api.secret_headers},
            timeout=timeout,
            follow_redirects=True,  # OpenAlex answers a merged work's id with a redirect to its new one
        )

    def close(self) -> None:
        self._client.close()

    def describe(self, path: str, params: Mapping[str, Any]) -> str:
        """The request as messages name it: the API, the path and its public parameters."""
        query = urlencode(sorted((k, str(v)) for k, v in params.items()))
        shown = f"{path}?{query}" if query else path
        return f"{self.api.name} GET {shown[:300]}"

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any | None:
        """The JSON answer to ``GET path?params``, None for a 404; from the cache when it holds it."""
        params = dict(params or {})
        said = self.describe(path, params)
        file = self._file(path, params)
        kept = self._read(file)
        if kept is not None:
            with self._count:
                self.hits += 1
            return None if kept.get("status") == NOT_FOUND else kept["body"]
        if self.offline:
            raise RemoteError(f"{said}: not in the cache, and --offline asks nothing of the network")
        try:
            status, body = self._fetch(path, params, said)
        except _TooLong as exc:
            raise RemoteError(f"{said}: {exc}") from None
        self._write(file, {"request": said, "status": status, "body": body})
        return body

    def _fetch(self, path: str, params: dict[str, Any], said: str) -> tuple[int, Any]:
        retrying = Retrying(
            stop=stop_after_attempt(self.attempts),
            wait=self._wait,
            retry=retry_if_exception_type(_Transient),
            reraise=True,
        )
        try:
            return retrying(self._once, path, params, said)
        except _Transient as exc:
            raise RemoteError(f"{said}: {exc.said} ({self.attempts} tries); run the same command again later") from None

    def _wait(self, state: RetryCallState) -> float:
        """The server's Retry-After when it gave one, else an exponential backoff."""
        failure = state.outcome.exception() if state.outcome else None
        asked = failure.retry_after if isinstance(failure, _Transient) else None
        if isinstance(failure, _Transient) and asked is not None:
            if asked > self.longest_wait:
                raise _TooLong(
                    f"{failure.said}: the server asks to wait {asked:,.0f} s (over {self.longest_wait:,.0f}); "
                    "run the same command again then — what was fetched is kept"
                )
            return asked
        return wait_exponential(multiplier=self.backoff, max=60)(state)

    def _once(self, path: str, params: dict[str, Any], said: str) -> tuple[int, Any]:
        self._limiter.try_acquire(self.api.name)
        with self._count:
            self.requests += 1
        if self.on_request is not None:
            self.on_request()
        sent = {**self.api.params, **params, **self.api.secret_params}
        try:
            answer = self._client.get(path, params=sent)
            body = answer.content  # the whole body, or a transport error when it is cut short
        except httpx.TransportError as exc:
            raise _Transient(f"{type(exc).__name__}: the connection failed or closed before the whole answer") from None
        status = answer.status_code
        if status == 429 or status >= 500:
            raise _Transient(f"answered {status}", retry_after(answer.headers.get("Retry-After")))
        if status == NOT_FOUND:
            return status, None
        if status != 200:
            raise RemoteError(f"{said}: answered {status}{self._reason(body)}")
        try:
            return status, json.loads(body)
        except (ValueError, RecursionError) as exc:
            raise RemoteError(f"{said}: answered malformed JSON ({str(exc)[:120]})") from None

    def _reason(self, body: bytes) -> str:
        """What an error answer says (the APIs' ``{"error": …, "message": …}``), short, and
        without the secrets: an API may echo the request, key and all."""
        try:
            said = json.loads(body)
        except (ValueError, RecursionError):
            return ""
        if not isinstance(said, dict):
            return ""
        words = " ".join(str(said[k]) for k in ("error", "message") if isinstance(said.get(k), str))
        for secret in (*self.api.secret_params.values(), *self.api.secret_headers.values()):
            words = words.replace(secret, "***") if secret else words
        return f": {' '.join(words.split())[:200]}" if words else ""

    def _file(self, path: str, params: Mapping[str, Any]) -> Path:
        key = json.dumps([self.api.base_url.rstrip("/"), path, sorted((k, str(v)) for k, v in params.items())])
        digest = hashlib.sha256(key.encode()).hexdigest()
        return self.cache / digest[:2] / f"{digest}.json"

    @staticmethod
    def _read(file: Path) -> dict[str, Any] | None:
        try:
            kept = json.loads(file.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):  # damaged: asked again, and replaced
            return None
        return kept if isinstance(kept, dict) and "status" in kept else None

    @staticmethod
    def _write(file: Path, kept: dict[str, Any]) -> None:
        file.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=file.parent, suffix=".part")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(kept, out, ensure_ascii=False)
            os.replace(temporary, file)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
