"""What the HTTP service refuses before a route sees a request: bodies over the limit
(counted while they stream in) and ``Host`` names it does not serve (DNS rebinding)."""

from __future__ import annotations

from fastapi.responses import JSONResponse

MAX_BODY = 1 << 20  # bytes
DRAIN = 8 << 20  # bytes of a refused body read and dropped before the connection closes
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


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
        response = JSONResponse(
            {"detail": f"request body {size}over the limit of {self.limit:,} bytes"},
            status_code=413,
            headers={"Connection": "close"},
        )
        await response(scope, receive, send)


def served_hosts(host: str) -> tuple[str, ...]:
    """The ``Host`` names to accept when listening on ``host``: the loopback names, plus
    ``host`` itself; any name when listening on every interface."""
    if host in ("0.0.0.0", "::", ""):
        return ("*",)
    return LOOPBACK if host in LOOPBACK else (*LOOPBACK, host)
