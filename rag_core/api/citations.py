"""Citations that open as they are returned, on every channel.

Each citation (REST ask and search, `/v1` chat, MCP) carries `links`: `image`, the address of the
cited page as a PNG with the quote highlighted, and `pdf`, the address of the cited pages alone as a
PDF. A link is `GET /api/citations/{image|pdf}?ref=...`: the `ref` holds the document id, the
cited pages and the highlight boxes (compressed JSON, base64url). It is not a credential: it is
followed with a personal token (`Authorization: Bearer`), and the document is checked against the
token's user again, so a link shared with someone who may not read the document gives them the
same 404 as a document that does not exist.

`POST /api/citations/image|pdf` take a citation as any channel returns it: the `source` object of
`/api/ask`, a chat or MCP citation posted as it is (document id, pages, boxes), or its link. Only
the cited pages are served: they must be pages of one passage of the document, as its stored
chunks say, so a list of arbitrary pages is refused.
"""

from __future__ import annotations

import base64
import json
import urllib.parse
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from rag_core import pipeline
from rag_core.api.auditing import touched
from rag_core.api.security import Caller
from rag_core.config import Settings
from rag_core.errors import InputError, NotFoundError
from rag_core.models import HighlightBox, Source

router = APIRouter(prefix="/api/citations", tags=["citations"])
MAX_REF_CHARS = 8000
DAMAGED = "This citation link is damaged; copy it again from the answer."
NOT_IN_DOCUMENT = "The cited page is not in this document."
NOT_CITED = "This page is not one of the cited pages; open the citation's own pages."
NOT_ONE_PASSAGE = "Only the pages of one cited passage are served; open each citation on its own."


def caller(request: Request) -> Caller:
    return request.app.state.authenticate(request, "api")


CallerDep = Annotated[Caller, Depends(caller)]


@dataclass(frozen=True)
class Cited:
    """What a citation names: a document, its cited pages, the quote's boxes (and its passage, when known)."""

    doc_id: str
    pages: tuple[int, ...]
    boxes: tuple[HighlightBox, ...] = field(default=())
    parent_id: str = ""


def encode_ref(cited: Cited) -> str:
    boxes = [[b.page, round(b.x0, 1), round(b.y0, 1), round(b.x1, 1), round(b.y1, 1)] for b in cited.boxes]
    data = {"d": cited.doc_id, "p": list(cited.pages), "b": boxes, "s": cited.parent_id}
    packed = zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 9)
    return base64.urlsafe_b64encode(packed).decode().rstrip("=")


def decode_ref(ref: str) -> Cited:
    """The citation a link's `ref` names; InputError for anything that is not one."""
    try:
        if len(ref) > MAX_REF_CHARS:
            raise ValueError("too long")
        raw = zlib.decompress(base64.urlsafe_b64decode(ref + "=" * (-len(ref) % 4)), bufsize=MAX_REF_CHARS * 4)
        data = json.loads(raw)
        boxes = tuple(
            HighlightBox(page=int(p), x0=float(a), y0=float(b), x1=float(c), y1=float(d)) for p, a, b, c, d in data["b"]
        )
        pages = tuple(int(p) for p in data["p"])
        return Cited(str(data["d"]), pages, boxes, str(data.get("s") or ""))
    except (ValueError, TypeError, KeyError, zlib.error):
        raise InputError(DAMAGED) from None


def base_url(settings: Settings, request_base: str | None) -> str:
    """Where clients reach the API: `api.public_url` when set, else the address the request came to,
    else (stdio) the configured address and port."""
    if settings.api.public_url or not request_base:
        return settings.api.url()
    return request_base.rstrip("/")


def links(cited: Cited, base: str) -> dict[str, str]:
    ref = encode_ref(cited)
    return {kind: f"{base}/api/citations/{kind}?ref={ref}" for kind in ("image", "pdf")}


def source_links(source: dict[str, Any], base: str) -> dict[str, str]:
    """The links of a source as the channels dump it (`doc_id`, `pages`, `boxes`, maybe `parent_id`)."""
    boxes = tuple(HighlightBox.model_validate(b) for b in source.get("boxes") or ())
    cited = Cited(source["doc_id"], tuple(source.get("pages") or ()), boxes, source.get("parent_id") or "")
    return links(cited, base)


def with_links(cites: list[dict[str, Any]], base: str) -> list[dict[str, Any]]:
    """Chat and MCP citations, each with its `links`."""
    return [{**c, "links": source_links(c, base)} for c in cites]


def answer_with_links(answer: dict[str, Any], base: str) -> dict[str, Any]:
    """The REST answer (`Answer` dumped), each source with its `links`."""
    return {**answer, "sources": [{**s, "links": source_links(s, base)} for s in answer.get("sources") or ()]}


def search_with_links(result: dict[str, Any], base: str) -> dict[str, Any]:
    """The REST search result, each passage with the links of its best child's boxes on the passage's pages."""
    parents = []
    for hit in result.get("parents") or ():
        parent = hit["parent"]
        boxes = tuple(HighlightBox.model_validate(b) for b in (hit.get("best_child") or {}).get("boxes") or ())
        cited = Cited(hit["document"]["doc_id"], tuple(parent["pages"]), boxes, parent["id"])
        parents.append({**hit, "links": links(cited, base)})
    return {**result, "parents": parents}


def sse_with_links(events: Iterable[str], base: str) -> Iterator[str]:
    """The server-sent events of a streamed answer, the sources of `checked` and `final` with their links."""
    for text in events:
        name, _, data = text.partition("\ndata: ")
        if name == "event: final":
            text = f"{name}\ndata: {json.dumps(answer_with_links(json.loads(data), base), ensure_ascii=False)}\n\n"
        elif name == "event: checked":
            event = json.loads(data)
            event["sources"] = [{**s, "links": source_links(s, base)} for s in event.get("sources") or ()]
            text = f"{name}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n"
        yield text


def request_base(request: Request) -> str:
    return base_url(request.app.state.settings, str(request.base_url))


class CitationRequest(BaseModel):
    """A citation as any channel returns it: `source` (from /api/ask), `link` (its `links.image` or
    `links.pdf`), or the citation itself (`doc_id`, `pages`, `boxes`: a chat or MCP citation as is)."""

    model_config = ConfigDict(extra="ignore")
    source: Source | None = Field(None, description="A source of /api/ask, as returned")
    link: str | None = Field(None, max_length=MAX_REF_CHARS + 200, description="A citation's link, as returned")
    doc_id: str | None = Field(None, max_length=200, description="The cited document (chat and MCP citations)")
    pages: list[int] = Field(default_factory=list, max_length=50, description="The cited pages")
    boxes: list[HighlightBox] = Field(default_factory=list, max_length=500, description="The quote's boxes")
    parent_id: str | None = Field(None, max_length=200, description="The cited passage, when known")
    page: int | None = Field(None, ge=1, description="The one page to show (default: the first cited page)")


def _cited_of(body: CitationRequest) -> Cited:
    if body.source is not None:
        s = body.source
        return Cited(s.doc_id, tuple(s.pages), tuple(s.boxes), s.parent_id)
    if body.link:
        ref = urllib.parse.parse_qs(urllib.parse.urlsplit(body.link).query).get("ref", [""])[0]
        return decode_ref(ref)
    if body.doc_id:
        pages = body.pages or ([body.page] if body.page else [])  # `doc_id` and `page`, as open_citation takes
        return Cited(body.doc_id, tuple(pages), tuple(body.boxes), body.parent_id or "")
    raise InputError("Send a citation: its `source`, its `link`, or its `doc_id`, `pages` and `boxes`.")


def checked(cited: Cited, settings: Settings, who: Caller) -> tuple[Cited, set[int]]:
    """The citation, once its document is readable by the caller (the same 404 as a missing one
    otherwise) and its pages are those of one passage of the document; and the document's pages."""
    chunked = pipeline.LibraryClient(settings, who.principal).load_chunks(cited.doc_id)
    pages, known = set(cited.pages), {p for parent in chunked.parents for p in parent.pages}
    if not pages or not pages <= known:
        raise NotFoundError(NOT_IN_DOCUMENT)
    passages = [p for p in chunked.parents if not cited.parent_id or p.id == cited.parent_id]
    if not any(pages <= set(p.pages) for p in passages):
        raise NotFoundError(NOT_ONE_PASSAGE)
    return Cited(cited.doc_id, tuple(sorted(pages)), cited.boxes, cited.parent_id), known


def _one_page(cited: Cited, page: int | None, settings: Settings, who: Caller) -> tuple[Cited, int]:
    """The checked citation and the page to show: `page` when it is one of the cited pages."""
    cited, known = checked(cited, settings, who)
    if page is None:
        return cited, cited.pages[0]
    if page not in cited.pages:
        raise NotFoundError(NOT_CITED if page in known else NOT_IN_DOCUMENT)
    return cited, page


def _image(cited: Cited, page: int | None, settings: Settings, who: Caller) -> Response:
    cited, shown = _one_page(cited, page, settings, who)
    fields = {"file_name": "", "title": "", "section": "", "label": "", "text": ""}
    pages, boxes = list(cited.pages), list(cited.boxes)
    source = Source(
        id=cited.doc_id,
        kind="parent",
        doc_id=cited.doc_id,
        pages=pages,
        parent_id=cited.parent_id,
        boxes=boxes,
        **fields,
    )
    data = pipeline.LibraryClient(settings, who.principal).citation_image(cited.doc_id, shown, source)
    return Response(data, media_type="image/png")


def _pdf(cited: Cited, settings: Settings, who: Caller) -> Response:
    cited, _ = checked(cited, settings, who)
    data, mapping = pipeline.LibraryClient(settings, who.principal).page_pdf(cited.doc_id, list(cited.pages))
    return Response(data, media_type="application/pdf", headers={"X-Page-Map": json.dumps(mapping)})


BINARY = {"schema": {"type": "string", "format": "binary"}}
PNG: dict[int | str, dict[str, Any]] = {
    200: {"content": {"image/png": BINARY}, "description": "The page as a PNG, the quote highlighted"}
}
PDF: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/pdf": BINARY}, "description": "The cited pages alone, as a PDF"}
}
RefQuery = Annotated[str, Query(min_length=1, max_length=MAX_REF_CHARS, description="A citation link's `ref`")]
PageQuery = Annotated[int | None, Query(ge=1, description="One of the cited pages (default: the first)")]


@router.get("/image", responses=PNG, response_class=Response)
def open_image(ref: RefQuery, who: CallerDep, request: Request, page: PageQuery = None) -> Response:
    """Follow a citation's `links.image`: the cited page with the quote highlighted."""
    cited = decode_ref(ref)
    touched(request, cited.doc_id)
    return _image(cited, page, request.app.state.settings, who)


@router.get("/pdf", responses=PDF, response_class=Response)
def open_pdf(ref: RefQuery, who: CallerDep, request: Request) -> Response:
    """Follow a citation's `links.pdf`: the cited pages alone; header `X-Page-Map` maps original to excerpt pages."""
    cited = decode_ref(ref)
    touched(request, cited.doc_id)
    return _pdf(cited, request.app.state.settings, who)


@router.post("/image", responses=PNG, response_class=Response)
def citation_image(body: CitationRequest, who: CallerDep, request: Request) -> Response:
    """A citation's page as a PNG with the passage highlighted (the document is checked again)."""
    cited = _cited_of(body)
    touched(request, cited.doc_id)
    return _image(cited, body.page, request.app.state.settings, who)


@router.post("/pdf", responses=PDF, response_class=Response)
def citation_pdf(body: CitationRequest, who: CallerDep, request: Request) -> Response:
    """Only the cited pages of the PDF (or `page` alone, when it is one of them); header `X-Page-Map`."""
    cited = _cited_of(body)
    touched(request, cited.doc_id)
    if body.page is not None:
        cited, page = _one_page(cited, body.page, request.app.state.settings, who)
        cited = Cited(cited.doc_id, (page,), cited.boxes, cited.parent_id)
    return _pdf(cited, request.app.state.settings, who)
