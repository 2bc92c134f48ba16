"""One audit record per API call, written after the response has gone out, and a `Server-Timing`
header that says how long the server worked on the call (`app`) and, of that, how long the
library's own call took (`library`, on the routes that time it): the difference is what the API
adds, measured on the same call, whatever the machine's load does to the library meanwhile.

A plain ASGI middleware rather than Starlette's `@app.middleware("http")`: that one makes the
client wait for the audit write (a locked append to the trail, some milliseconds) before the
response leaves, and runs every body through an extra stream. Here the record is written once the
last byte is sent; the caller's principal is what the route's authentication left in the
request's state (`scope["state"]["caller"]`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Literal

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rag_core import pipeline
from rag_core.api.security import anonymous, refused_fields
from rag_core.config import Settings


@contextlib.contextmanager
def library_time(request: Request) -> Iterator[None]:
    """Count the time of the block as the library's, for the `Server-Timing` header."""
    began = time.perf_counter()
    try:
        yield
    finally:
        state = request.scope.setdefault("state", {})
        state["library_s"] = state.get("library_s", 0.0) + time.perf_counter() - began


class AuditAfterResponse:
    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                took = (time.perf_counter() - began) * 1000
                timing = f"app;dur={took:.1f}"
                library = (scope.get("state") or {}).get("library_s")
                if library is not None:
                    timing += f", library;dur={library * 1000:.1f}"
                headers = list(message.get("headers") or [])
                headers.append((b"server-timing", timing.encode()))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            if scope["path"].rstrip("/") != "/health":  # a probe's, every few seconds: not a caller's request
                await run_in_threadpool(self.record, scope, status)

    def record(self, scope: Scope, status: int) -> None:
        """The request's audit record: its caller, or why none (with the id of the token it presented)."""
        state = scope.get("state") or {}
        who = state.get("caller")
        touched = {k: state[k] for k in ("doc_id", "tool", "tool_status") if state.get(k)}
        call = {"method": scope["method"], "path": scope["path"], "status": status} | touched
        if who is not None:
            principal, fields = who.principal, {"pat_id": who.token_id}
        else:
            channel: Literal["api", "mcp"] = "mcp" if scope["path"].rstrip("/") == "/mcp" else "api"
            token = Request(scope).headers.get("authorization", "").partition(" ")[2]
            principal, fields = anonymous(channel), refused_fields(token, state.get("refused") or _why(token))
        pipeline.record_event(self.settings, "api_request", principal=principal, **call, **fields)


def _why(token: str) -> str:
    """A request that no route authenticated (an unknown path, the OpenAPI pages): with or without a token."""
    return "not_checked" if token.strip() else "no_token"


def touched(request: Request, doc_id: str | None = None, tool: str | None = None) -> None:
    """Name in the request's audit record the document it reached for (and the MCP tool), refused or not."""
    state = request.scope.setdefault("state", {})
    state.update({k: v for k, v in (("doc_id", doc_id), ("tool", tool)) if v})
