"""What the service refuses, and how it fails: bodies over the limit (counted while they
stream in); ``Host`` names it does not serve (DNS rebinding); an unexpected error answered as a
JSON 500 that keeps the connection. (The bounds of a request's fields are the requests' own,
the same on every door: :mod:`citegraph.operations.fields`.)"""

from __future__ import annotations

import logging

MAX_BODY = 1 << 20  # bytes
DRAIN = 8 << 20  # bytes of a refused body read and dropped before the connection closes
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
log = logging.getLogger(__name__)


class BodyLimit:
    """ASGI middleware: reads the request body before the app does and answers 413 once it
    passes ``limit`` bytes — whatever ``Content-Length`` says, or when the body comes in
    chunks without one — then hands the app the body it read (at most ``limit`` bytes are
    ever held; up to :data:`DRAIN` more of a refused body are read and dropped)."""

    def __init__(self, app, limit: int = MAX_BODY):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            return await self._refuse(scope, receive, send, f"of {int(declared):,} bytes ")
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return None
            body += message.get("body", b"")
            if len(body) > self.limit:
                return await self._refuse(scope, receive, send, "")
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        return await self.app(scope, replay, send)

    async def _refuse(self, scope, receive, send, size: str):
        # First read (and drop) what the client is still sending, up to a bound: a socket closed
        # with unread bytes is reset by the kernel, and the client would see the reset instead
        # of the 413 (the server can no longer read once it has answered).
        drained = 0
        while drained < DRAIN:
            message = await receive()
            if message["type"] != "http.request":
                return None  # the client went away
            drained += len(message.get("body", b""))
            if not message.get("more_body", False):
                break
        from fastapi.responses import JSONResponse

        response = JSONResponse(
            {"detail": f"request body {size}over the limit of {self.limit:,} bytes"},
            status_code=413,
            headers={"Connection": "close"},
        )
        await response(scope, receive, send)


class Unexpected:
    """ASGI middleware, inside the others: an exception no handler turned into a response (a bug)
    is logged with its traceback and answered here, as a JSON 500 whose detail holds nothing of
    the server's. Starlette's own 500 re-raises the exception to uvicorn, which then closes the
    connection: the next requests a client had sent on it failed too."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def sending(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            if started:  # half a response is out: only closing the connection can end it
                raise
            log.exception("%s %s: an unexpected error", scope["method"], scope["path"])
            from fastapi.responses import JSONResponse

            answer = JSONResponse({"detail": "an unexpected error: the service's log has its cause"}, status_code=500)
            await answer(scope, receive, send)


def served_hosts(host: str) -> tuple[str, ...]:
    """The ``Host`` names to accept when listening on ``host``: the loopback names, plus
    ``host`` itself; any name when listening on every interface."""
    if host in ("0.0.0.0", "::", ""):
        return ("*",)
    return LOOPBACK if host in LOOPBACK else (*LOOPBACK, host)
