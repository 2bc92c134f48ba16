"""The façade the UI and the CLI call: ingest, search, ask, delete, read-only views, grants, audit.

Only the public entry points live here or are re-exported here: `ingest` and `reindex` are in
`pipeline.indexing` (the stages of one file in the package `rag_core.ingestion`), `search` in
`pipeline.searching`, the question flow in its own package `rag_core.question` (`ask_stream`
returns its stream of typed events; the stream stores and audits its answer itself), the
access rules in `pipeline.permissions`, the upload queue's verbs in `pipeline.jobs`
(its worker in `rag_core.jobs`). The document verbs stay here because they call one another
through this module (tests replace one, e.g. `get_document`, and the others see it). Every entry
point that reads or writes the library takes the `Principal` who acts (keyword `principal`):
its readable collections are the prefilter of every search channel and listing, and the
viewer, exports and crops check the document against it again before producing bytes. A
forged or unreadable document id is "not found", exactly like a missing one.
A bad file never raises out of `ingest`: its result says `refused` with a message for the
user, and nothing already stored is touched. The façade never renders anything and holds no
state beyond one store connection per library.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rag_core.access import (  # the pages' sign-in builds the principal every entry point takes
    AmbiguousGroupsHeader,
    DuplicateIdentityHeader,
    Principal,
    ReservedUser,
    exposure_refusal,
    principal_from_claims,
    principal_from_headers,
)
from rag_core.access.audit import CSV_COLUMNS as AUDIT_COLUMNS  # the trail's named fields, in order
from rag_core.access.principal import LOOPBACK
from rag_core.citations import (  # what the viewer shows, and its highlights
    LIGHT_COLOR,
    NO_CAPTION,
    ViewerTarget,
    cited_pages,
    highlight_target,
    label_on_pages,
    paragraph_focus,
    scroll_position,
    source_label,
    source_target,
    viewer_annotations,
)
from rag_core.config import Settings
from rag_core.errors import NotFoundError
from rag_core.library import clean_file_name, sha256_file
from rag_core.messages import ENGLISH as ENGLISH_MESSAGES
from rag_core.messages import recognise
from rag_core.models import Answer, Chunked, DocumentRecord
from rag_core.models.documents import NO_HEADING
from rag_core.parsing.files import page_excerpt
from rag_core.pipeline import permissions as perm
from rag_core.pipeline.connection import open_store
from rag_core.pipeline.conversations import (
    ConversationSummary,
    conversation_answers,
    conversation_history,
    list_conversations,
)
from rag_core.pipeline.exports import TableFormat, table_bytes
from rag_core.pipeline.indexing import ingest, reindex, reindex_pages
from rag_core.pipeline.jobs import (
    cancel_job,
    clear_finished_jobs,
    get_job,
    list_jobs,
    live_workers,
    queue_places,
    retry_job,
    submit_files,
    submit_upload,
)
from rag_core.pipeline.page_images import citation_image, crop_boxes, region_image
from rag_core.pipeline.permissions import (  # noqa: F401  (re-exported: the façade's grant and audit verbs)
    audit_csv,
    audit_events,
    can,
    clean_collection,
    create_collection,
    grant,
    list_grants,
    manageable_collections,
    record_event,
    record_sign_in,
    reported_citations,
    revoke,
    writable_collections,
)
from rag_core.pipeline.presentation import document_view, query_terms
from rag_core.pipeline.question_input import QuestionTooLong, check_question, check_turns
from rag_core.pipeline.rechecks import answers_in_scope, search_in_scope, stored_row_check  # noqa: F401
from rag_core.pipeline.searching import search
from rag_core.pipeline.status import answers_backend, backends, library_location
from rag_core.pipeline.time_left import TimeLeft, elapsed_of, progress_of, remaining_of
from rag_core.pipeline.tokens import (
    create_api_token,
    list_api_tokens,
    presented_token_id,
    principal_of_token,
    revoke_api_token,
)
from rag_core.pipeline.word_lists import glossary_info, thesaurus_info, upload_glossary, upload_thesaurus

# the question's modules, not its package: the package's context imports this façade's lower modules
from rag_core.question.events import Checked, Done, Draft, Event, Failed, Found, Queued, Refused, Searching
from rag_core.question.retell import retell  # an answer's own sentences in the page's language
from rag_core.question.sources import cited_sources
from rag_core.question.stream import QuestionStream
from rag_core.storage import document_folder
from rag_core.text import garbled_maths  # a passage whose extracted text is not what the page prints
from rag_core.understanding import term_presence
from rag_core.understanding.followups import Message


# ----- read-only views ------------------------------------------------------------------------
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
    get_document(doc_id, settings, principal=principal)
    folder = document_folder(settings, doc_id)
    stage = folder.manifest().get("stages", {}).get("chunk")
    if stage is None:
        raise NotFoundError.of("doc.no_chunks")
    # The chunks must come from the parsed document as it is now on disk.
    inputs = {**stage["inputs"], "document_sha256": sha256_file(folder.document_json)}
    folder.require_fresh("chunk", inputs, "chunking")
    return Chunked.model_validate_json(folder.chunks_json.read_text())


def _checked_source(doc_id: str, settings: Settings, principal: Principal) -> tuple[DocumentRecord, Path]:
    """The second, independent check before bytes leave the library: grants and table read again."""
    record = perm.readable_record(open_store(settings), doc_id, settings, principal)
    return record, document_folder(settings, doc_id).source()


def source_path(doc_id: str, settings: Settings, *, principal: Principal) -> Path:
    """Path of the stored original of a readable ready document; NotFoundError otherwise (forged ids included)."""
    record, path = _checked_source(doc_id, settings, principal)
    perm.audit_document(settings, "document_opened", principal, record)
    return path


def page_pdf(
    doc_id: str, pages: Sequence[int], settings: Settings, *, principal: Principal
) -> tuple[bytes, dict[int, int]]:
    """Only the given pages of a document's PDF, and the map original page -> excerpt page."""
    record, path = _checked_source(doc_id, settings, principal)
    excerpt = page_excerpt(path, pages)
    perm.audit_document(settings, "page_opened", principal, record, pages=sorted(excerpt[1]))
    return excerpt


def artifact_path(doc_id: str, relative: str, settings: Settings, *, principal: Principal) -> Path:
    """A figure crop of a readable ready document; refuses anything outside its artifacts folder."""
    record, _ = _checked_source(doc_id, settings, principal)
    root = document_folder(settings, doc_id).root.resolve()
    path = (root / relative).resolve()
    if root not in path.parents or not path.is_file():
        raise NotFoundError.of("doc.figure_missing")
    perm.audit_document(settings, "figure_exported", principal, record, figure=relative)
    return path


def export_table(
    doc_id: str, table_ref: str, settings: Settings, fmt: TableFormat = "csv", *, principal: Principal
) -> bytes:
    """One table of a readable document as CSV or Excel bytes (`table_ref` as `inspect` lists it)."""
    record, _ = _checked_source(doc_id, settings, principal)
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


def record_inspection(doc_id: str, settings: Settings, *, principal: Principal) -> DocumentRecord:
    """Write that the principal looked at every chunk and table of a readable document (the
    Inspect page calls it once per document and session, not on each rerun); NotFoundError otherwise."""
    record = get_document(doc_id, settings, principal=principal)
    perm.audit_document(settings, "document_inspected", principal, record)
    return record


# ----- questions --------------------------------------------------------------------------------
def ask(
    question: str,
    settings: Settings,
    conversation_id: str | None = None,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    *,
    principal: Principal,
) -> Answer:
    """Answer from the readable documents; the conversation is the principal's own. An error written
    for the user is raised (`RagError`)."""
    return ask_stream(question, settings, conversation_id, collections, doc_ids, principal=principal).result()


def ask_stream(
    question: str,
    settings: Settings,
    conversation_id: str | None = None,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    *,
    principal: Principal,
    history: Sequence[Message] | None = None,
) -> QuestionStream:
    """`ask` as typed events (`rag_core.question.events`): `Searching`, `Found`, `Draft` (unverified,
    display only), `Checked` (a paragraph verified once complete), `Queued`, then one of `Done`,
    `Refused` or `Failed`; `stop()` keeps what was verified. Only the final (or stopped) answer is
    stored and audited, by the stream itself. `history` (the earlier turns a chat client sends, oldest
    first) replaces the stored conversation's for the follow-up rewrite. Nothing runs until iterated,
    but the question is checked at once (`check_question`: InputError before any work starts)."""
    question = check_question(question, settings)
    check_turns(text for _, text in history or ())
    return QuestionStream(question, settings, principal, conversation_id, collections, doc_ids, history)


# The entry points, the types they take and return, and what the pages need to show them (sign-in,
# labels, highlights, the user's messages); nothing private, nothing only a test needs.
__all__ = [
    "AUDIT_COLUMNS",
    "AmbiguousGroupsHeader",
    "Checked",
    "ConversationSummary",
    "Done",
    "Draft",
    "DuplicateIdentityHeader",
    "ENGLISH_MESSAGES",
    "Event",
    "Failed",
    "Found",
    "LIGHT_COLOR",
    "LOOPBACK",
    "NO_CAPTION",
    "NO_HEADING",
    "Principal",
    "QuestionStream",
    "QuestionTooLong",
    "Queued",
    "Refused",
    "ReservedUser",
    "Searching",
    "Settings",
    "TableFormat",
    "TimeLeft",
    "ViewerTarget",
    "answers_backend",
    "answers_in_scope",
    "artifact_path",
    "ask",
    "ask_stream",
    "audit_csv",
    "audit_events",
    "backends",
    "can",
    "cancel_job",
    "check_question",
    "citation_image",
    "cited_pages",
    "cited_sources",
    "clean_file_name",
    "clear_finished_jobs",
    "conversation_answers",
    "conversation_history",
    "crop_boxes",
    "create_api_token",
    "create_collection",
    "delete",
    "elapsed_of",
    "export_table",
    "exposure_refusal",
    "get_document",
    "garbled_maths",
    "get_job",
    "glossary_info",
    "grant",
    "highlight_target",
    "label_on_pages",
    "ingest",
    "inspect",
    "library_location",
    "list_api_tokens",
    "list_collections",
    "list_conversations",
    "list_documents",
    "list_grants",
    "list_jobs",
    "live_workers",
    "load_chunks",
    "manageable_collections",
    "open_store",
    "page_pdf",
    "paragraph_focus",
    "principal_from_claims",
    "principal_from_headers",
    "presented_token_id",
    "principal_of_token",
    "progress_of",
    "query_terms",
    "queue_places",
    "readable_document_ids",
    "recognise",
    "record_event",
    "record_inspection",
    "record_sign_in",
    "region_image",
    "reindex",
    "reindex_pages",
    "remaining_of",
    "reported_citations",
    "retell",
    "retry_job",
    "revoke",
    "revoke_api_token",
    "scroll_position",
    "search",
    "search_in_scope",
    "source_label",
    "source_path",
    "source_target",
    "submit_files",
    "submit_upload",
    "thesaurus_info",
    "upload_glossary",
    "upload_thesaurus",
    "viewer_annotations",
    "writable_collections",
]
