"""A citation's page as a picture with its highlight, for clients without a PDF viewer (the API,
the MCP server). The document is checked against the principal again before any byte is read."""

from __future__ import annotations

from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.models import Source
from rag_core.parsing.files import page_png
from rag_core.pipeline import permissions as perm
from rag_core.pipeline.connection import open_store
from rag_core.storage import document_folder


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
