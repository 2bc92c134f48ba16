"""The MCP server (the official `mcp` SDK): tools `search`, `ask`, `list_documents` and
`open_citation` (the cited text and the page as a picture with its highlight).

Identity is a personal API token, as for the REST API: over Streamable HTTP (`/mcp` of the API
server) the `Authorization: Bearer` header of each request, checked at the door (401 otherwise)
and again in each tool; over stdio (`python -m rag_core mcp`) the token in `RAG_API_TOKEN`,
checked at each tool call, so a revoked token stops working at once. The principal acts with
the channel `mcp`: the façade's scope, re-checks and audit records are the app's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ImageContent, TextContent
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.api.auditing import touched
from rag_core.api.citations import Cited, base_url, links, with_links
from rag_core.api.errors import status_of
from rag_core.api.openai_compat import citations, paragraphs_text, sources_block
from rag_core.api.rest import _check_scope as check_scope  # the REST API's own scope check, shared
from rag_core.api.security import (
    MISSING,
    ApiError,
    Caller,
    RateLimiter,
    anonymous,
    authenticate,
    bearer,
    refused_fields,
)
from rag_core.config import Settings
from rag_core.errors import AccessDenied, NotFoundError, RagError
from rag_core.models import Source
from rag_core.pipeline import QuestionTooLong

TOKEN_ENV = "RAG_API_TOKEN"
T = TypeVar("T")


# The kind an MCP client reads before the message, as a REST client reads the HTTP status of the same
# error (`errors.status_of`): "Error executing tool <name>: <kind>: <the app's message>".
KINDS = {404: "not_found", 401: "forbidden", 403: "forbidden", 413: "limit", 429: "limit", 503: "unavailable"}


def kind_of(err: RagError) -> tuple[str, int]:
    """(the MCP error kind, the HTTP status REST answers the same error with); a question too long is a limit."""
    status, _ = status_of(err)
    return ("limit" if isinstance(err, QuestionTooLong) else KINDS.get(status, "invalid")), status


def build_server(settings: Settings, limiter: RateLimiter, stdio_token: str | None = None) -> MCPServer:
    """The tools; each acts as the principal of the token of its call (HTTP header, or `stdio_token`)."""
    server = MCPServer(
        name="document-library",
        instructions="Search and ask the documents you may read; every answer cites document and page. A refusal "
        "reads 'Error executing tool <name>: <kind>: <why>', kind one of not_found, forbidden, invalid, limit, "
        "unavailable.",
    )

    def caller(ctx: Context) -> Caller:
        if stdio_token is not None:
            return authenticate(settings, limiter, stdio_token, "mcp")
        headers = ctx.headers or {}
        value = headers.get("authorization") or headers.get("Authorization") or ""
        scheme, _, token = value.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise AccessDenied(MISSING)
        # counted at the door (one HTTP request per tool call): resolved again here, not counted twice
        return Caller(*pipeline.principal_of_token(settings, token.strip(), "mcp"))

    async def call(ctx: Context, tool: str, work: Callable[[Principal], T], doc_id: str | None = None) -> T:
        """Run `work` as the caller; a refusal is a ToolError with its kind and the app's message (logged
        once by the SDK, at INFO, without a traceback); anything else stays a crash, logged with its own."""
        request = getattr(ctx.request_context, "request", None)
        if isinstance(request, Request):  # over HTTP the request's audit record names the tool and document
            touched(request, doc_id, tool)
        status, who, refused = 500, None, ""
        try:
            who = await run_in_threadpool(caller, ctx)
            result = await run_in_threadpool(work, who.principal)
            status = 200
            return result
        except RagError as err:
            kind, status = kind_of(err)
            refused = getattr(err, "outcome", "")  # why the token was refused, when it was
            raise ToolError(f"{kind}: {err}") from None
        finally:
            if isinstance(request, Request):  # the HTTP status is 200 whatever the tool did: its own is recorded
                request.scope.setdefault("state", {})["tool_status"] = status
            if stdio_token is not None:  # over stdio no HTTP request is recorded: the tool call is
                call_fields = {"method": "tools/call", "path": f"tools/{tool}", "status": status, "tool": tool}
                await run_in_threadpool(_record_stdio, settings, stdio_token, who or refused, call_fields, doc_id)

    def readable(who: Principal, collections: list[str] | None) -> None:
        # the REST API's own check: an unknown or unreadable collection is "not found", never an empty list
        check_scope(settings, Caller(who, ""), collections)

    def base(ctx: Context) -> str:
        """Where the links point: the public URL, else the Host this request came to (HTTP), else the settings."""
        host = (ctx.headers or {}).get("host") if stdio_token is None else None
        return base_url(settings, f"http://{host}" if host else None)

    @server.tool()
    async def list_documents(ctx: Context, collection: str | None = None) -> list[dict[str, Any]]:
        """The documents you may read (of one collection when given): id, file name, title, collection, pages."""

        def work(who: Principal) -> list[dict[str, Any]]:
            readable(who, [collection] if collection is not None else None)
            keys = ("doc_id", "file_name", "title", "collection", "pages", "language")
            return [
                {k: getattr(r, k) for k in keys}
                for r in pipeline.LibraryClient(settings, who).list_documents(collection)
            ]

        return await call(ctx, "list_documents", work)

    @server.tool()
    async def search(
        ctx: Context, query: str, collections: list[str] | None = None, k: int = 5
    ) -> list[dict[str, Any]]:
        """Passages of the documents you may read that match `query`, best first, with each channel's rank
        and `links` (the page as a highlighted image, the passage's pages as a PDF: GET them with your token)."""
        here = base(ctx)

        def work(who: Principal) -> list[dict[str, Any]]:
            pipeline.check_question(query, settings)  # before the scope: an invalid query is refused as such
            readable(who, collections)
            result = pipeline.LibraryClient(settings, who).search(query, collections, k=max(1, min(int(k), 20)))
            return [_hit(i, hit, here) for i, hit in enumerate(result.parents)]

        return await call(ctx, "search", work)

    @server.tool()
    async def ask(ctx: Context, question: str, collections: list[str] | None = None) -> dict[str, Any]:
        """An answer from the documents you may read: text with numbered citations [n], and the citations
        (document, file name, pages, quote, highlight boxes, `links`) to open with `open_citation`, or
        by following a link with your token."""
        here = base(ctx)

        def work(who: Principal) -> dict[str, Any]:
            pipeline.check_question(question, settings)
            readable(who, collections)
            answer = pipeline.LibraryClient(settings, who).ask(question, None, collections)
            cites = with_links(citations(answer), here)
            text = "\n\n".join([*paragraphs_text(answer, cites), sources_block(cites)]).strip()
            return {"answer": text, "mode": answer.mode, "citations": cites}

        return await call(ctx, "ask", work)

    @server.tool()
    async def open_citation(
        ctx: Context, doc_id: str, page: int, source_id: str | None = None, question: str | None = None
    ) -> list[TextContent | ImageContent]:
        """The cited page of a document you may read: its text, and the page as a PNG with the cited passage
        highlighted (give the `source_id` of a citation and the question it answered to highlight it)."""

        def work(who: Principal) -> list[TextContent | ImageContent]:
            library = pipeline.LibraryClient(settings, who)
            chunked = library.load_chunks(doc_id)
            on_page = [p for p in chunked.parents if page in p.pages]
            if not on_page:
                raise NotFoundError.of("doc.page_missing")
            source = _source_of(chunked, source_id, doc_id, page) if source_id else None
            image = library.citation_image(doc_id, page, source)
            text = "\n\n".join(p.text for p in on_page)
            return [TextContent(type="text", text=text[:6000]), Image(data=image, format="png").to_image_content()]

        return await call(ctx, "open_citation", work, doc_id)

    return server


def _hit(i: int, hit: Any, base: str) -> dict[str, Any]:
    return {
        "rank": i + 1,
        "doc_id": hit.document.doc_id,
        "file_name": hit.document.file_name,
        "collection": hit.document.collection,
        "pages": hit.parent.pages,
        "section": hit.parent.section,
        "text": hit.parent.text[:1500],
        "ranks": hit.ranks,
        "links": links(
            Cited(hit.document.doc_id, tuple(hit.parent.pages), tuple(hit.best_child.boxes), hit.parent.id), base
        ),
    }


def _record_stdio(settings: Settings, token: str, who: Caller | str, call: dict[str, Any], doc_id: str | None) -> None:
    """The audit record of one tool call over stdio: the token's user, or why the token was refused and its id."""
    fields = call | ({"doc_id": doc_id} if doc_id else {})
    if not isinstance(who, Caller):
        refusal = refused_fields(token, who or "refused_token")
        pipeline.record_event(settings, "api_request", principal=anonymous("mcp"), **fields, **refusal)
    else:
        pipeline.record_event(settings, "api_request", principal=who.principal, **fields, pat_id=who.token_id)


def _source_of(chunked: Any, source_id: str, doc_id: str, page: int) -> Source | None:
    """The highlight of a citation: the boxes, on `page`, of the parent the citation's id names."""
    from rag_core.citations import parent_source_id

    for parent in chunked.parents:
        if source_id.split("#")[0] == parent_source_id(parent):
            boxes = [b for c in chunked.children if c.parent_id == parent.id for b in c.boxes if b.page == page]
            fields = {"file_name": "", "title": "", "section": "", "label": "", "text": ""}
            return Source(
                id=source_id, kind="parent", doc_id=doc_id, pages=[page], parent_id=parent.id, boxes=boxes, **fields
            )
    return None


class _Door:
    """Refuses an MCP request without a valid token (401 JSON) and counts it against the token's rate."""

    def __init__(self, app: ASGIApp, settings: Settings, limiter: RateLimiter) -> None:
        self.app, self.settings, self.limiter = app, settings, limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].rstrip("/") != "/mcp":  # mounted at /: any unknown path
            body = {"error": {"message": "There is no such endpoint; see /docs.", "type": "not_found", "status": 404}}
            await JSONResponse(body, status_code=404)(scope, receive, send)
            return
        if scope["type"] == "http":
            request = Request(scope)
            try:
                who = await run_in_threadpool(lambda: authenticate(self.settings, self.limiter, bearer(request), "mcp"))
            except ApiError as err:
                scope.setdefault("state", {})["refused"] = err.outcome  # for the request's audit record
                body = {"error": {"message": str(err), "type": "authentication_error", "status": err.status}}
                await JSONResponse(body, status_code=err.status, headers=err.headers)(scope, receive, send)
                return
            scope.setdefault("state", {})["caller"] = who
        await self.app(scope, receive, send)


def http_app(settings: Settings, limiter: RateLimiter) -> Starlette:
    """The Streamable HTTP app (route `/mcp`), its door in front; its lifespan must run (the API's does)."""
    server = build_server(settings, limiter)
    app = server.streamable_http_app(stateless_http=True, json_response=True, host=settings.api.address)
    app.add_middleware(_Door, settings=settings, limiter=limiter)
    return app


def run_stdio(settings: Settings) -> None:
    """`python -m rag_core mcp`: the server over stdio, as the token in RAG_API_TOKEN."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise AccessDenied(f"Set {TOKEN_ENV} to your personal API token (the app's API tokens page creates one).")
    limiter = RateLimiter(settings.api.rate_limit_per_minute)
    try:
        authenticate(settings, limiter, token, "mcp")  # a bad token is refused before the server starts
    except ApiError as err:
        start = {"method": "start", "path": "stdio", "status": err.status}
        pipeline.record_event(
            settings, "api_request", principal=anonymous("mcp"), **start, **refused_fields(token, err.outcome)
        )
        raise
    build_server(settings, limiter, stdio_token=token).run("stdio")
