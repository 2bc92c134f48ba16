"""The library as a service: a REST API (`/api`), an OpenAI-compatible chat endpoint (`/v1`) and
an MCP server (`/mcp`, and `python -m rag_core mcp` over stdio), under one identity: personal
API tokens that act as their user (`rag_core.access.tokens`), with the same grants, the same
re-checks and the same audit records as the app, the channel written in each record.

`create_app(settings)` builds the ASGI app; `python -m rag_core api` (and `serve`) runs it with
uvicorn. The OpenAPI document is at `/openapi.json`, browsable at `/docs` (offline, see
`contract`). Every citation carries links that open it (`citations`). This package never imports
Streamlit and reaches the library only through `rag_core.pipeline`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any, cast

from fastapi import FastAPI
from starlette.requests import Request

from rag_core.access.principal import Channel
from rag_core.api import citations, contract, errors, openai_compat, rest
from rag_core.api.auditing import AuditAfterResponse
from rag_core.api.security import ApiError, BodyLimit, Caller, RateLimiter, authenticate, bearer
from rag_core.config import Settings

__all__ = ["create_app"]


def create_app(settings: Settings, *, with_mcp: bool = True) -> FastAPI:
    limiter = RateLimiter(settings.api.rate_limit_per_minute)
    mcp_app = None
    if with_mcp:
        from rag_core.api.mcp_server import http_app

        mcp_app = http_app(settings, limiter)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if mcp_app is None:
            yield
            return
        async with mcp_app.router.lifespan_context(mcp_app):
            yield

    app = FastAPI(
        title="Document library API",
        summary="Search and ask the library you may read; every answer with its citations.",
        version="1",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings

    def authenticate_request(request: Request, channel: Channel) -> Caller:
        try:
            who = authenticate(settings, limiter, bearer(request), channel)
        except ApiError as err:
            request.state.refused = err.outcome  # for the request's audit record
            raise
        request.state.caller = who
        return who

    app.state.authenticate = authenticate_request
    errors.install(app)
    contract.install(app)
    app.include_router(rest.router, responses=contract.ERRORS)
    app.include_router(citations.router, responses=contract.ERRORS)
    app.include_router(openai_compat.router, responses=contract.ERRORS)

    @app.get("/health", tags=["service"])
    def health() -> dict[str, str]:
        return {"status": "ok"}

    if mcp_app is not None:
        # its one route, /mcp, every method: a route, not a mount at "/", so that any other path
        # gets the API's 404 and a wrong method on an API route its 405
        app.router.add_route("/mcp", cast(Any, mcp_app), include_in_schema=False)  # an ASGI app as the endpoint
    # the last added runs first: the audit wraps the body limit, so a body refused at the door is recorded too
    app.add_middleware(BodyLimit, settings=settings)
    app.add_middleware(AuditAfterResponse, settings=settings)
    return app
