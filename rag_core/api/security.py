"""Who calls the API: a personal token (`Authorization: Bearer rag_...`), its rate limit, the
bound on request bodies, and one audit record per call (with the channel, api or mcp).

No identity is taken from anything else: not a cookie, not a proxy header. A token that was
revoked, has expired or belongs to another library is refused (401) at once, on its next call.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.access.principal import Channel
from rag_core.config import Settings
from rag_core.errors import AccessDenied, RagError

MISSING = "Send your personal API token as 'Authorization: Bearer <token>' (create one on the app's API tokens page)."
ANONYMOUS = Principal("(no valid token)")


class ApiError(RagError):
    """An error of the API itself, with its HTTP status."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None, outcome: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}
        self.outcome = outcome  # for the audit record of a refused caller: no_token, refused_token, rate_limited


class RateLimiter:
    """At most `per_minute` calls per token in any sliding minute."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self.calls: dict[str, deque[float]] = {}
        self.lock = threading.Lock()

    def check(self, key: str) -> None:
        now = time.monotonic()
        with self.lock:
            calls = self.calls.setdefault(key, deque())
            while calls and calls[0] <= now - 60.0:
                calls.popleft()
            if len(calls) >= self.per_minute:
                wait = max(1, int(calls[0] + 60.0 - now) + 1)
                raise ApiError(
                    429,
                    f"Too many requests with this token ({self.per_minute} a minute); try again in {wait} s.",
                    {"Retry-After": str(wait)},
                    "rate_limited",
                )
            calls.append(now)


@dataclass(frozen=True)
class Caller:
    principal: Principal
    token_id: str


def bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise ApiError(401, MISSING, {"WWW-Authenticate": "Bearer"}, "no_token")
    return value.strip()


def authenticate(settings: Settings, limiter: RateLimiter, token: str, channel: Channel) -> Caller:
    """The caller of a token, rate limit counted; ApiError 401/429 otherwise, its `outcome` saying why
    (the audit record of the request is written by whoever serves it: `auditing`, or the MCP tool over stdio)."""
    try:
        principal, token_id = pipeline.principal_of_token(settings, token, channel)
    except AccessDenied as err:
        raise ApiError(401, str(err), {"WWW-Authenticate": "Bearer"}, "refused_token") from None
    limiter.check(token_id)
    return Caller(principal, token_id)


def anonymous(channel: Channel) -> Principal:
    """Who an audit record names when no valid token came with the request."""
    return Principal(ANONYMOUS.user, channel=channel)


def refused_fields(token: str | None, outcome: str) -> dict[str, str]:
    """What the audit record of a refused caller says: why, and the id of the token it presented (never its
    secret; none when what came is not shaped like a token)."""
    pat_id = pipeline.presented_token_id(token or "")
    return {"outcome": outcome} | ({"pat_id": pat_id} if pat_id else {})


class BodyLimit:
    """ASGI middleware: a body larger than its route allows is refused (413) before it is read whole:
    at once when its declared length says so, at the limit when it is sent in chunks.
    Uploads may be as large as `parsing.max_file_mb`; every other body `api.max_body_kb`."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.json_limit = settings.api.max_body_kb * 1024
        self.upload_limit = int(settings.parsing.max_file_mb * 1024 * 1024)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.upload_limit if scope["path"].rstrip("/") == "/api/uploads" else self.json_limit
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            if int(declared) <= limit + DRAIN_MAX_BYTES:
                await _drain(receive, DRAIN_MAX_BYTES)
            await _too_large(send, limit)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    # a body of undeclared length (chunked): nothing says how much more is coming,
                    # so reading stops here and the connection is closed after the 413
                    raise ApiError(413, _too_large_text(limit), {"Connection": "close"})
            return message

        await self.app(scope, counted, send)


# A body refused on its declared length is read to its end (and dropped) before the 413 goes out, up
# to this much: a client such as urllib, curl without `Expect: 100-continue` or the browser sends the
# whole body before it reads any answer, and a server that closes the connection on unread bytes
# resets it, so the client gets a broken pipe instead of the message. A body declared larger than the
# limit plus this is answered at once: no one should stream that much to learn it is refused.
DRAIN_MAX_BYTES = 64 << 20


async def _drain(receive: Receive, most: int) -> None:
    """Read and drop what is left of the request body, up to `most` bytes."""
    read = 0
    while read <= most:
        message = await receive()
        if message["type"] != "http.request":
            return
        read += len(message.get("body", b""))
        if not message.get("more_body"):
            return


def _too_large_text(limit: int) -> str:
    return f"The request body is larger than this endpoint accepts ({limit // 1024} KB)."


async def _too_large(send: Callable[[Message], Awaitable[None]], limit: int) -> None:
    import json

    error = {"message": _too_large_text(limit), "type": "invalid_request_error", "status": 413}
    body = json.dumps({"error": error}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
