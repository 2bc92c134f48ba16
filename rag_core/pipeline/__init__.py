"""The façade the pages, the CLI, the API, the MCP server and the benchmarks call: one library, as one principal.

`LibraryClient(settings, principal)` (`client.py`) owns the pair every entry point takes and offers the
verbs as its methods; the same verbs stay module-level functions here (`verb(..., settings, principal=...)`)
for the callers written before it. This package only assembles: the document verbs are in
`rag_core.services.documents`, ingest and reindex in `rag_core.services.indexing`, the access rules, grants
and audit trail in `rag_core.services.permissions`, the stored conversations in
`rag_core.services.conversations`; `search` is `pipeline.searching`, the question verbs `pipeline.asking`
(the flow itself is the package `rag_core.question`), the upload queue's verbs `pipeline.jobs` (its worker
in `rag_core.jobs`). Nothing below this package imports it (tests/unit/test_layers.py holds the import
direction that docs/architecture.md states). Every verb that reads or writes the library takes the
`Principal` who acts: its readable collections are the prefilter of every search channel and listing, and
the viewer, exports and crops check the document against it again before producing bytes. A forged or
unreadable document id is "not found", exactly like a missing one. A bad file never raises out of
`ingest`: its result says `refused` with a message for the user, and nothing already stored is touched.
The façade never renders anything and holds no state beyond one store connection per library.
"""

from __future__ import annotations

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
from rag_core.library import clean_file_name
from rag_core.messages import ENGLISH as ENGLISH_MESSAGES
from rag_core.messages import recognise
from rag_core.models.documents import NO_HEADING
from rag_core.pipeline.asking import ask, ask_stream
from rag_core.pipeline.client import LibraryClient
from rag_core.pipeline.evaluating import reported_citations
from rag_core.pipeline.exports import TableFormat
from rag_core.pipeline.inspection import export_table, inspect
from rag_core.pipeline.jobs import (
    cancel_job,
    clear_finished_jobs,
    get_job,
    list_jobs,
    live_workers,
    queue_places,
    retry_job,
    submit_upload,
)
from rag_core.pipeline.page_images import citation_image, crop_boxes, region_image
from rag_core.pipeline.presentation import query_terms
from rag_core.pipeline.question_input import QuestionTooLong, check_question
from rag_core.pipeline.searching import search
from rag_core.pipeline.status import backends, library_location
from rag_core.pipeline.time_left import TimeLeft, elapsed_of, progress_of, remaining_of
from rag_core.pipeline.tokens import (
    create_api_token,
    list_api_tokens,
    presented_token_id,
    principal_of_token,
    revoke_api_token,
)
from rag_core.pipeline.word_lists import glossary_info, thesaurus_info, upload_glossary, upload_thesaurus
from rag_core.question import (
    Checked,
    Done,
    Draft,
    Event,
    Failed,
    Found,
    QuestionStream,
    Queued,
    Refused,
    Searching,
    cited_sources,
)
from rag_core.question.retell import retell  # an answer's own sentences in the page's language
from rag_core.services.conversations import ConversationSummary, conversation_answers, list_conversations
from rag_core.services.documents import (
    artifact_path,
    delete,
    get_document,
    list_collections,
    list_documents,
    load_chunks,
    page_pdf,
    record_inspection,
    source_path,
)
from rag_core.services.indexing import ingest, reindex, reindex_pages
from rag_core.services.permissions import (
    audit_csv,
    audit_events,
    create_collection,
    grant,
    list_grants,
    manageable_collections,
    record_event,
    record_sign_in,
    revoke,
    writable_collections,
)
from rag_core.services.rechecks import answers_in_scope, search_in_scope
from rag_core.text import garbled_maths  # a passage whose extracted text is not what the page prints

# The entry points, the types they take and return, and what the pages need to show them (sign-in,
# labels, highlights, the user's messages); nothing private, no raw store, nothing only a test needs
# (tests reach the lower modules, `rag_core.services.*`, directly).
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
    "LibraryClient",
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
    "answers_in_scope",
    "artifact_path",
    "ask",
    "ask_stream",
    "audit_csv",
    "audit_events",
    "backends",
    "cancel_job",
    "check_question",
    "citation_image",
    "cited_pages",
    "cited_sources",
    "clean_file_name",
    "clear_finished_jobs",
    "conversation_answers",
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
    "page_pdf",
    "paragraph_focus",
    "principal_from_claims",
    "principal_from_headers",
    "presented_token_id",
    "principal_of_token",
    "progress_of",
    "query_terms",
    "queue_places",
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
    "submit_upload",
    "thesaurus_info",
    "upload_glossary",
    "upload_thesaurus",
    "viewer_annotations",
    "writable_collections",
]
