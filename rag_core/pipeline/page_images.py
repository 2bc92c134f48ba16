"""A citation's page as a picture with its highlight, for clients without a PDF viewer (the API,
the MCP server), and a passage's region as a picture, for the pages to show a formula whose
extracted text is garbled (`rag_core.text.garbled_maths`) as the page prints it. The document is
checked against the principal again before any byte is read."""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.access import Principal
from rag_core.citations import quote_highlight
from rag_core.config import Settings
from rag_core.errors import NotFoundError
from rag_core.models import HighlightBox, Source
from rag_core.parsing.files import page_png, region_png
from rag_core.services import permissions as perm
from rag_core.services.connection import open_store
from rag_core.storage import document_folder

CROP_ZOOM = 2.0  # a crop drawn at 144 dpi: a formula's indices stay legible


def citation_image(doc_id: str, page: int, source: Source | None, settings: Settings, *, principal: Principal) -> bytes:
    """Page `page` of a readable document as a PNG, the source's boxes on that page highlighted
    (only when the source is of that document); NotFoundError for anything else, forged ids and
    pages included. Audited as an opened page."""
    record = perm.readable_record(open_store(settings), doc_id, settings, principal)
    boxes = []
    if source is not None and source.doc_id == doc_id:
        boxes = [(b.x0, b.y0, b.x1, b.y1) for b in source.boxes if b.page == page]
    data = page_png(document_folder(settings, doc_id).source(), int(page), boxes)
    perm.audit_document(settings, "page_opened", principal, record, pages=[int(page)], image=True)
    return data


def crop_boxes(source: Source, *quotes: str) -> list[HighlightBox]:
    """The boxes of a passage as one page prints them: the lines of the first of `quotes` found in the
    source (an answer's whole paragraph, then its quote), else the cited passage's (the best child's, the
    item's); those of their first page."""
    found = (quote_highlight(source, quote) for quote in quotes if quote)
    tiers = next((tiers for tiers in found if tiers), None)
    boxes = tiers[0] if tiers else source.boxes
    if not boxes:
        return []
    first = min(b.page for b in boxes)
    return [b for b in boxes if b.page == first]


def region_image(
    doc_id: str, boxes: Sequence[HighlightBox], settings: Settings, *, principal: Principal, margin: float = 4.0
) -> bytes:
    """The union of `boxes` on the page of the first one (the others' pages left out), `margin`
    points wider, as a PNG drawn at 144 dpi: a formula the text layer garbled, shown as printed.
    NotFoundError for a document the principal may not read, a forged id, a document that is not a
    PDF, no box or a page not in the document. Audited as an opened page."""
    record = perm.readable_record(open_store(settings), doc_id, settings, principal)
    if not boxes or not record.file_name.lower().endswith(".pdf"):  # another format prints no page
        raise NotFoundError.of("doc.page_missing")
    page = boxes[0].page
    on_page = [b for b in boxes if b.page == page]
    rect = (
        min(b.x0 for b in on_page),
        min(b.y0 for b in on_page),
        max(b.x1 for b in on_page),
        max(b.y1 for b in on_page),
    )
    data = region_png(document_folder(settings, doc_id).source(), int(page), rect, zoom=CROP_ZOOM, margin=margin)
    perm.audit_document(settings, "page_opened", principal, record, pages=[int(page)], image=True)
    return data
