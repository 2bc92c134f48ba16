"""The document verbs, checked against the principal who acts: list, read, open, delete.

Every verb takes the `Principal` (keyword `principal`): the listings are filtered by its readable
collections, and the viewer's bytes, the page excerpts and the figure crops check the document against
the grants and the table again before anything leaves the library (`permissions.readable_record`). A
forged or unreadable document id is "not found", exactly like a missing one. Opening, deleting and
inspecting a document is written to the audit trail. The façade (`rag_core.pipeline`) re-exports
these verbs; the evaluation reads its corpus through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.errors import NotFoundError
from rag_core.library import sha256_file
from rag_core.models import Chunked, DocumentRecord
from rag_core.parsing.files import page_excerpt
from rag_core.services import permissions as perm
from rag_core.services.connection import open_store
from rag_core.storage import document_folder
from rag_core.understanding import term_presence


def list_documents(settings: Settings, collection: str | None = None, *, principal: Principal) -> list[DocumentRecord]:
    """The ready documents the principal may read (of one collection when given)."""
    return perm.readable_records(open_store(settings), settings, principal, collection)


def list_collections(settings: Settings, *, principal: Principal) -> list[str]:
    """Collections the principal may read, with or without documents."""
    return perm.collections_where(open_store(settings), settings, "read", principal)


def readable_document_ids(
    settings: Settings,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    *,
    principal: Principal,
) -> list[str]:
    """The search scope: ids of the readable ready documents, within `collections` and `doc_ids` when given."""
    store = open_store(settings)
    return perm.readable_scope(settings, principal).document_ids(store.documents(), collections, doc_ids)


def get_document(doc_id: str, settings: Settings, *, principal: Principal) -> DocumentRecord:
    """Raises NotFoundError for an unknown, unreadable or unfinished id (one message for all)."""
    return perm.readable_record(open_store(settings), doc_id, settings, principal)


def delete(doc_id: str, settings: Settings, *, principal: Principal) -> None:
    """Remove the document from search at once, then its rows and its folder (`manage` needed)."""
    record = get_document(doc_id, settings, principal=principal)
    perm.require(settings, record.collection, "manage", principal)
    folder = document_folder(settings, doc_id)
    open_store(settings).delete_document(doc_id)
    folder.remove()
    term_presence.forget(settings, doc_id)
    perm.audit_document(settings, "deletion", principal, record)


def load_chunks(doc_id: str, settings: Settings, *, principal: Principal) -> Chunked:
    """The parents and children of a readable ready document, as chunked from its parse now on disk."""
    get_document(doc_id, settings, principal=principal)
    folder = document_folder(settings, doc_id)
    stage = folder.manifest().get("stages", {}).get("chunk")
    if stage is None:
        raise NotFoundError.of("doc.no_chunks")
    # The chunks must come from the parsed document as it is now on disk.
    inputs = {**stage["inputs"], "document_sha256": sha256_file(folder.document_json)}
    folder.require_fresh("chunk", inputs, "chunking")
    return Chunked.model_validate_json(folder.chunks_json.read_text())


def checked_source(doc_id: str, settings: Settings, principal: Principal) -> tuple[DocumentRecord, Path]:
    """The second, independent check before bytes leave the library: grants and table read again."""
    record = perm.readable_record(open_store(settings), doc_id, settings, principal)
    return record, document_folder(settings, doc_id).source()


def source_path(doc_id: str, settings: Settings, *, principal: Principal) -> Path:
    """Path of the stored original of a readable ready document; NotFoundError otherwise (forged ids included)."""
    record, path = checked_source(doc_id, settings, principal)
    perm.audit_document(settings, "document_opened", principal, record)
    return path


def page_pdf(
    doc_id: str, pages: Sequence[int], settings: Settings, *, principal: Principal
) -> tuple[bytes, dict[int, int]]:
    """Only the given pages of a document's PDF, and the map original page -> excerpt page."""
    record, path = checked_source(doc_id, settings, principal)
    excerpt = page_excerpt(path, pages)
    perm.audit_document(settings, "page_opened", principal, record, pages=sorted(excerpt[1]))
    return excerpt


def artifact_path(doc_id: str, relative: str, settings: Settings, *, principal: Principal) -> Path:
    """A figure crop of a readable ready document; refuses anything outside its artifacts folder."""
    record, _ = checked_source(doc_id, settings, principal)
    root = document_folder(settings, doc_id).root.resolve()
    path = (root / relative).resolve()
    if root not in path.parents or not path.is_file():
        raise NotFoundError.of("doc.figure_missing")
    perm.audit_document(settings, "figure_exported", principal, record, figure=relative)
    return path


def record_inspection(doc_id: str, settings: Settings, *, principal: Principal) -> DocumentRecord:
    """Write that the principal looked at every chunk and table of a readable document (the
    Inspect page calls it once per document and session, not on each rerun); NotFoundError otherwise."""
    record = get_document(doc_id, settings, principal=principal)
    perm.audit_document(settings, "document_inspected", principal, record)
    return record
