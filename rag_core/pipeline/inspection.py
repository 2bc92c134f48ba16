"""The façade's verbs that show what a document holds: `inspect` (its structure, chunks and tables) and
`export_table` (one table as CSV or Excel bytes). Both check the document against the principal first
(`services.documents`) and write the act to the audit trail; the views themselves are pure functions
(`presentation.document_view`, `exports.table_bytes`).
"""

from __future__ import annotations

from typing import Any

from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.errors import NotFoundError
from rag_core.pipeline.exports import TableFormat, table_bytes
from rag_core.pipeline.presentation import document_view
from rag_core.services import permissions as perm
from rag_core.services.documents import checked_source, load_chunks, record_inspection


def export_table(
    doc_id: str, table_ref: str, settings: Settings, fmt: TableFormat = "csv", *, principal: Principal
) -> bytes:
    """One table of a readable document as CSV or Excel bytes (`table_ref` as `inspect` lists it)."""
    record, _ = checked_source(doc_id, settings, principal)
    chunked = load_chunks(doc_id, settings, principal=principal)
    item = next((it for p in chunked.parents for it in p.items if it.kind == "table" and it.ref == table_ref), None)
    if item is None:
        raise NotFoundError.of("doc.table_missing")
    data = table_bytes(item, fmt, record.language or "en")
    perm.audit_document(settings, "table_exported", principal, record, table=table_ref, page=item.page, format=fmt)
    return data


def inspect(doc_id: str, settings: Settings, *, principal: Principal) -> dict[str, Any]:
    """Stable JSON view of one document: record, section tree, parents, children, tables (recorded
    in the audit trail as an inspection)."""
    record = record_inspection(doc_id, settings, principal=principal)
    return document_view(record, load_chunks(doc_id, settings, principal=principal))
