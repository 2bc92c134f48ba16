"""Every error of the API as JSON, `{"error": {"message", "type", "status"}}` (the shape OpenAI
clients read too), with the app's user-facing message; never a stack trace. An unexpected
error is logged on the server and answered with a message that says where to look."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from rag_core.api.security import ApiError
from rag_core.errors import (
    AccessDenied,
    BackendUnavailable,
    IndexMismatchError,
    InputError,
    LLMError,
    NotFoundError,
    QuotaError,
    RagError,
)

log = logging.getLogger("rag_core.api")
UNEXPECTED = "Something went wrong on the server; its log says what."
_STATUS: tuple[tuple[type[RagError], int, str], ...] = (
    (NotFoundError, 404, "not_found"),
    (AccessDenied, 403, "permission_denied"),
    (QuotaError, 429, "quota_exceeded"),
    (InputError, 400, "invalid_request_error"),
    (LLMError, 503, "backend_unavailable"),
    (BackendUnavailable, 503, "backend_unavailable"),
    (IndexMismatchError, 503, "backend_unavailable"),
)


def error_response(status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> JSONResponse:
    body = {"error": {"message": message, "type": kind, "status": status}}
    return JSONResponse(body, status_code=status, headers=headers)


def status_of(err: RagError) -> tuple[int, str]:
    if isinstance(err, ApiError):
        return err.status, {401: "authentication_error", 429: "rate_limit_exceeded"}.get(err.status, "invalid_request")
    for kind, status, name in _STATUS:
        if isinstance(err, kind):
            return status, name
    return 400, "invalid_request_error"


def stream_error(err: Exception) -> dict[str, Any]:
    """The `error` object of a stream (`/v1`, REST's server-sent events) that failed once begun, in the API's
    error shape; a bug is logged with its traceback and its text stays on the server."""
    if isinstance(err, RagError):
        status, kind = status_of(err)
        return {"error": {"message": str(err), "type": kind, "status": status}}
    log.exception("a stream failed once begun")
    return {"error": {"message": UNEXPECTED, "type": "server_error", "status": 500}}


def _validation_message(err: RequestValidationError, request: Request) -> str:
    problems = []
    for e in err.errors():
        if e.get("type") == "json_invalid":
            return "The request body is not valid JSON."
        if tuple(e.get("loc", ())) == ("body",) and "json" not in request.headers.get("content-type", ""):
            return "Send the request body as JSON, with the header 'Content-Type: application/json'."
        where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
        problems.append(f"{where or 'body'}: {e.get('msg', 'invalid')}")
    return "The request is not valid: " + "; ".join(problems[:5])


def install(app: FastAPI) -> None:
    @app.exception_handler(RagError)
    async def on_rag_error(request: Request, err: RagError) -> JSONResponse:
        status, kind = status_of(err)
        request.state.outcome = status
        return error_response(status, str(err), kind, getattr(err, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def on_invalid(request: Request, err: RequestValidationError) -> JSONResponse:
        return error_response(400, _validation_message(err, request), "invalid_request_error")

    @app.exception_handler(HTTPException)
    async def on_http(request: Request, err: HTTPException) -> JSONResponse:
        if isinstance(err.__cause__, ApiError):  # raised while FastAPI read the body (too large): its own answer
            return await on_rag_error(request, err.__cause__)
        message = {404: "There is no such endpoint; see /docs.", 405: "This method is not allowed here."}.get(
            err.status_code, str(err.detail)
        )
        return error_response(err.status_code, message, "invalid_request_error", getattr(err, "headers", None))

    @app.exception_handler(Exception)
    async def on_unexpected(request: Request, err: Exception) -> JSONResponse:
        log.exception("API error on %s %s", request.method, request.url.path)
        return error_response(500, UNEXPECTED, "server_error")
