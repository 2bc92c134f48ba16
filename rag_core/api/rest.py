"""The REST routes (`/api/...`): collections and documents the caller may read, search with each
channel's ranks, ask (JSON, or server-sent events as the answer is written), uploads and their
jobs, reported citations. Each passage and citation carries its `links` (`rag_core.api.citations`
serves them, with a citation's page as a picture and its pages as a PDF excerpt).

Each route calls the façade with the caller's principal, so the scope pre-filter, the viewer's
re-check and the audit records are the app's own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, Field
from starlette.responses import StreamingResponse

from rag_core import pipeline
from rag_core.access.names import check_typed
from rag_core.api import schemas
from rag_core.api.auditing import library_time, touched
from rag_core.api.citations import answer_with_links, request_base, search_with_links, sse_with_links
from rag_core.api.errors import stream_error
from rag_core.api.security import Caller
from rag_core.models import Source

router = APIRouter(prefix="/api", tags=["library"])


def caller(request: Request) -> Caller:
    return request.app.state.authenticate(request, "api")


CallerDep = Annotated[Caller, Depends(caller)]


class SearchRequest(BaseModel):
    query: str = Field(description="Not blank, at most RAG_ANSWER__MAX_QUESTION_CHARS characters, as a question")
    collections: list[str] | None = Field(None, description="Only these collections (default: all you may read)")
    doc_ids: list[str] | None = Field(None, description="Only these documents")
    k: int | None = Field(None, ge=1, le=50, description="Number of passages (default: the setting)")


class AskRequest(BaseModel):
    question: str = Field(description="Not blank, at most RAG_ANSWER__MAX_QUESTION_CHARS characters")
    collections: list[str] | None = None
    doc_ids: list[str] | None = None
    conversation_id: str | None = Field(None, max_length=200, description="Your conversation, for follow-ups")
    stream: bool = Field(False, description="Answer as server-sent events: draft, checked, then final")


class ReportRequest(BaseModel):
    question: str = Field(min_length=1, max_length=4000)
    language: str = Field("en", max_length=8)
    source: Source
    quote: str = Field("", max_length=4000)
    comment: str = Field("", max_length=2000)


@router.get("/collections", responses=schemas.ok(schemas.Collections))
def collections(who: CallerDep, request: Request) -> dict[str, Any]:
    """The collections you may read."""
    return {"collections": _library(request, who).list_collections()}


@router.get("/documents", responses=schemas.ok(schemas.Documents))
def documents(who: CallerDep, request: Request, collection: str | None = None) -> dict[str, Any]:
    """The ready documents you may read (of one collection when given)."""
    settings = request.app.state.settings
    if collection is not None:
        _require_collection(collection, settings, who)
    rows = _library(request, who).list_documents(collection)
    return {"documents": [r.model_dump(mode="json") for r in rows]}


def _library(request: Request, who: Caller) -> pipeline.LibraryClient:
    """The library of this server, used as the caller."""
    return pipeline.LibraryClient(request.app.state.settings, who.principal)


def _require_collection(name: str, settings: Any, who: Caller) -> None:
    from rag_core.errors import NotFoundError

    if name not in pipeline.LibraryClient(settings, who.principal).list_collections():
        raise NotFoundError(f"There is no collection '{name}' you may read.")


def _check_scope(settings: Any, who: Caller, collections: list[str] | None) -> None:
    for name in collections or ():
        _require_collection(name, settings, who)


@router.post("/search", responses=schemas.ok(schemas.SearchResponse))
def search(body: SearchRequest, who: CallerDep, request: Request) -> dict[str, Any]:
    """Ranked passages of the documents you may read, with each search channel's rank."""
    settings = request.app.state.settings
    _check_scope(settings, who, body.collections)
    with library_time(request):
        result = _library(request, who).search(body.query, body.collections, body.doc_ids, k=body.k)
    return search_with_links(result.model_dump(mode="json"), request_base(request))


ASK_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "model": schemas.AskResponse,
        "description": "The answer; with `stream: true`, server-sent events",
        "content": {"text/event-stream": {}},
    }
}


@router.post("/ask", response_model=None, responses=ASK_RESPONSES)
def ask(body: AskRequest, who: CallerDep, request: Request) -> dict[str, Any] | StreamingResponse:
    """The app's answer object: paragraphs, citations (document, page, boxes, quote), numbers and
    their checks, refusals. With `stream: true`, server-sent events `draft`, `checked`, `final`."""
    settings = request.app.state.settings
    _check_scope(settings, who, body.collections)
    library = _library(request, who)
    args = (body.question, body.conversation_id, body.collections, body.doc_ids)
    if not body.stream:
        with library_time(request):
            answer = library.ask(*args)
        return answer_with_links(answer.model_dump(mode="json"), request_base(request))
    stream = library.ask_stream(*args)
    events = sse_with_links(sse_events(stream), request_base(request))
    return StreamingResponse(events, media_type="text/event-stream")


def sse_events(stream: Iterable[pipeline.Event]) -> Iterator[str]:
    """The façade's events as server-sent events (`draft`, `checked`, `final`); an error ends the stream
    with an `error` event, a bug's too (its text stays in the log). The search events are the page's only."""
    try:
        yield from _events(stream)
    except Exception as err:
        yield _sse("error", stream_error(err))


def _events(stream: Iterable[pipeline.Event]) -> Iterator[str]:
    for event in stream:
        if isinstance(event, pipeline.Draft):
            yield _sse("draft", {"index": event.index, "text": event.text})
        elif isinstance(event, pipeline.Checked):
            paragraph = event.paragraph.model_dump(mode="json") if event.paragraph else None
            sources = [s.model_dump(mode="json") for s in event.sources]
            yield _sse("checked", {"index": event.index, "paragraph": paragraph, "sources": sources})
        elif isinstance(event, pipeline.Done):
            yield _sse("final", event.answer.model_dump(mode="json"))
        elif isinstance(event, pipeline.Failed):
            yield _sse("error", {"error": {"message": str(event.error), "type": type(event.error).__name__}})


def _sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


@router.post("/uploads", status_code=202, responses={202: {"model": schemas.Job}})
async def upload(
    request: Request,
    who: CallerDep,
    file_name: Annotated[str, Query(min_length=1, max_length=255)],
    collection: str | None = None,
    into_existing: bool = False,
) -> dict[str, Any]:
    """Queue the request body (the file's bytes) for ingestion; a job is created (see /api/jobs/{id})."""
    from starlette.concurrency import run_in_threadpool

    if collection is not None:
        check_typed(collection)  # refused as the app's rule reads it, before any byte of the body
    data = await request.body()
    library = _library(request, who)
    job = await run_in_threadpool(
        lambda: library.submit_upload(data, file_name, collection, into_existing=into_existing)
    )
    return _job(job)


@router.get("/jobs", responses=schemas.ok(schemas.Jobs))
def jobs(who: CallerDep, request: Request) -> dict[str, Any]:
    """Your upload jobs (every job of the collections you manage)."""
    return {"jobs": [_job(j) for j in _library(request, who).list_jobs()]}


@router.get("/jobs/{job_id}", responses=schemas.ok(schemas.Job))
def job(job_id: str, who: CallerDep, request: Request) -> dict[str, Any]:
    """One job's state, stage and progress."""
    return _job(_library(request, who).get_job(job_id))


def _job(job: Any) -> dict[str, Any]:
    keys = ("id", "file_name", "collection", "state", "stage", "done", "total", "message", "doc_id")
    return {k: getattr(job, k) for k in keys} | {"progress": pipeline.progress_of(job)}


@router.post("/citations/report", status_code=201, responses={201: {"model": schemas.Reported}})
def report(body: ReportRequest, who: CallerDep, request: Request) -> dict[str, Any]:
    """Report a wrong citation (recorded under your name); the document must be one you may read."""
    from rag_core.errors import NotFoundError
    from rag_core.pipeline import evaluating

    settings = request.app.state.settings
    touched(request, body.source.doc_id)
    document = _library(request, who).get_document(body.source.doc_id)
    if not body.source.pages or any(not 1 <= p <= document.pages for p in body.source.pages):
        raise NotFoundError("The cited page is not in this document.")
    # the document's own name is recorded, not the one the body says
    source = body.source.model_copy(update={"file_name": document.file_name})
    record = evaluating.report_citation(
        settings,
        principal=who.principal,
        question=body.question,
        language=body.language,
        source=source,
        quote=body.quote,
        comment=body.comment,
    )
    return {"reported": record}
