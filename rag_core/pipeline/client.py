"""`LibraryClient`: one library, used as one principal. It owns the pair every entry point takes (the
settings that name the library, the `Principal` who acts) and offers the façade's verbs as its methods,
so a caller opens the library once and cannot hand one verb another principal than the next:

    library = LibraryClient(settings, principal)
    library.ingest([path], collection="reserving")
    answer = library.ask("What is the discount rate?")

Each method delegates to the module that does the work (`services.documents`, `services.indexing`,
`services.permissions`, `services.conversations`, `services.rechecks`, and the façade's own `searching`,
`asking`, `inspection`, `page_images`, `jobs`, `tokens`, `word_lists`), so the checks, the audit
trail and the errors are exactly those of the module-level functions the façade also exports. The
store connection is the process-wide one of `services.connection`; nothing else is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from rag_core.access import Grant, Principal, Role
from rag_core.config import Settings
from rag_core.ingestion import Progress
from rag_core.models import Answer, Chunked, DocumentRecord, HighlightBox, IngestResult, Language, SearchResult, Source
from rag_core.pipeline import asking, evaluating, inspection, page_images, searching, tokens, word_lists
from rag_core.pipeline import jobs as job_verbs
from rag_core.pipeline.exports import TableFormat
from rag_core.question import QuestionStream
from rag_core.services import conversations, documents, indexing, rechecks
from rag_core.services import permissions as perm
from rag_core.services.conversations import ConversationSummary
from rag_core.store import Job
from rag_core.understanding.followups import Message

Since = str | date | datetime | None


class LibraryClient:
    """The façade's verbs for one library (`settings`) and one principal (who acts in every call)."""

    def __init__(self, settings: Settings, principal: Principal) -> None:
        self.settings = settings
        self.principal = principal

    def __repr__(self) -> str:  # the settings hold secrets: name the library and the user only
        return f"LibraryClient(user={self.principal.user!r})"

    # ----- documents ------------------------------------------------------------------------
    def list_documents(self, collection: str | None = None) -> list[DocumentRecord]:
        return documents.list_documents(self.settings, collection, principal=self.principal)

    def list_collections(self) -> list[str]:
        return documents.list_collections(self.settings, principal=self.principal)

    def readable_document_ids(
        self, collections: Sequence[str] | None = None, doc_ids: Sequence[str] | None = None
    ) -> list[str]:
        return documents.readable_document_ids(self.settings, collections, doc_ids, principal=self.principal)

    def get_document(self, doc_id: str) -> DocumentRecord:
        return documents.get_document(doc_id, self.settings, principal=self.principal)

    def delete(self, doc_id: str) -> None:
        documents.delete(doc_id, self.settings, principal=self.principal)

    def load_chunks(self, doc_id: str) -> Chunked:
        return documents.load_chunks(doc_id, self.settings, principal=self.principal)

    def source_path(self, doc_id: str) -> Path:
        return documents.source_path(doc_id, self.settings, principal=self.principal)

    def page_pdf(self, doc_id: str, pages: Sequence[int]) -> tuple[bytes, dict[int, int]]:
        return documents.page_pdf(doc_id, pages, self.settings, principal=self.principal)

    def artifact_path(self, doc_id: str, relative: str) -> Path:
        return documents.artifact_path(doc_id, relative, self.settings, principal=self.principal)

    def export_table(self, doc_id: str, table_ref: str, fmt: TableFormat = "csv") -> bytes:
        return inspection.export_table(doc_id, table_ref, self.settings, fmt, principal=self.principal)

    def inspect(self, doc_id: str) -> dict[str, Any]:
        return inspection.inspect(doc_id, self.settings, principal=self.principal)

    def record_inspection(self, doc_id: str) -> DocumentRecord:
        return documents.record_inspection(doc_id, self.settings, principal=self.principal)

    def citation_image(self, doc_id: str, page: int, source: Source | None) -> bytes:
        return page_images.citation_image(doc_id, page, source, self.settings, principal=self.principal)

    def region_image(self, doc_id: str, boxes: Sequence[HighlightBox], margin: float = 4.0) -> bytes:
        return page_images.region_image(doc_id, boxes, self.settings, principal=self.principal, margin=margin)

    # ----- writing the index ----------------------------------------------------------------
    def ingest(
        self,
        paths: Sequence[Path],
        collection: str | None = None,
        progress: Progress | None = None,
        file_names: Sequence[str] | None = None,
        *,
        into_existing: bool = False,
    ) -> list[IngestResult]:
        return indexing.ingest(
            paths,
            self.settings,
            collection,
            progress,
            file_names,
            principal=self.principal,
            into_existing=into_existing,
        )

    def reindex(self, progress: Progress | None = None) -> list[IngestResult]:
        return indexing.reindex(self.settings, progress, principal=self.principal)

    def reindex_pages(self) -> int:
        return indexing.reindex_pages(self.settings, principal=self.principal)

    # ----- search and questions -------------------------------------------------------------
    def search(
        self,
        query: str,
        collections: Sequence[str] | None = None,
        doc_ids: Sequence[str] | None = None,
        k: int | None = None,
        candidate_k: int | None = None,
        thesaurus: bool | None = None,
        language: Language | None = None,
    ) -> SearchResult:
        return searching.search(
            query, self.settings, collections, doc_ids, k, candidate_k, thesaurus, language, principal=self.principal
        )

    def ask(
        self,
        question: str,
        conversation_id: str | None = None,
        collections: Sequence[str] | None = None,
        doc_ids: Sequence[str] | None = None,
    ) -> Answer:
        return asking.ask(question, self.settings, conversation_id, collections, doc_ids, principal=self.principal)

    def ask_stream(
        self,
        question: str,
        conversation_id: str | None = None,
        collections: Sequence[str] | None = None,
        doc_ids: Sequence[str] | None = None,
        history: Sequence[Message] | None = None,
    ) -> QuestionStream:
        return asking.ask_stream(
            question, self.settings, conversation_id, collections, doc_ids, principal=self.principal, history=history
        )

    def search_in_scope(self, result: SearchResult) -> SearchResult:
        return rechecks.search_in_scope(result, self.settings, principal=self.principal)

    def answers_in_scope(self, answers: Sequence[Answer | None]) -> list[bool]:
        return rechecks.answers_in_scope(answers, self.settings, principal=self.principal)

    def conversation_history(self, conversation_id: str) -> list[Message]:
        return conversations.conversation_history(self.settings, conversation_id, principal=self.principal)

    def conversation_answers(self, conversation_id: str) -> list[Answer]:
        return conversations.conversation_answers(self.settings, conversation_id, principal=self.principal)

    def list_conversations(self, limit: int = 30) -> list[ConversationSummary]:
        return conversations.list_conversations(self.settings, principal=self.principal, limit=limit)

    # ----- grants and the audit trail -------------------------------------------------------
    def grant(self, collection: str, role: Role, *, user: str | None = None, group: str | None = None) -> Grant:
        return perm.grant(self.settings, collection, principal=self.principal, user=user, group=group, role=role)

    def revoke(self, collection: str, *, user: str | None = None, group: str | None = None) -> Grant | None:
        return perm.revoke(self.settings, collection, principal=self.principal, user=user, group=group)

    def list_grants(self) -> list[Grant]:
        return perm.list_grants(self.settings, principal=self.principal)

    def can(self, collection: str, action: Role) -> bool:
        return perm.can(self.settings, collection, action, principal=self.principal)

    def manageable_collections(self) -> list[str]:
        return perm.manageable_collections(self.settings, principal=self.principal)

    def writable_collections(self) -> list[str]:
        return perm.writable_collections(self.settings, principal=self.principal)

    def create_collection(self, name: str) -> str:
        return perm.create_collection(self.settings, name, principal=self.principal)

    def audit_events(self, user: str | None = None, since: Since = None, document: str | None = None) -> list[dict]:
        return perm.audit_events(self.settings, principal=self.principal, user=user, since=since, document=document)

    def audit_csv(self, user: str | None = None, since: Since = None, document: str | None = None) -> bytes:
        return perm.audit_csv(self.settings, principal=self.principal, user=user, since=since, document=document)

    def record_sign_in(self) -> None:
        perm.record_sign_in(self.settings, principal=self.principal)

    def record_event(self, event: str, **fields: Any) -> None:
        perm.record_event(self.settings, event, principal=self.principal, **fields)

    def reported_citations(self) -> bytes:
        return evaluating.reported_citations(self.settings, principal=self.principal)

    # ----- the upload queue, API tokens, word lists -----------------------------------------
    def submit_upload(
        self, data: bytes, file_name: str, collection: str | None = None, *, into_existing: bool = False
    ) -> Job:
        return job_verbs.submit_upload(
            data, file_name, self.settings, collection, principal=self.principal, into_existing=into_existing
        )

    def submit_files(
        self, paths: Sequence[Path], collection: str | None = None, *, into_existing: bool = False
    ) -> list[Job]:
        return job_verbs.submit_files(
            paths, self.settings, collection, principal=self.principal, into_existing=into_existing
        )

    def list_jobs(self, limit: int = 50) -> list[Job]:
        return job_verbs.list_jobs(self.settings, principal=self.principal, limit=limit)

    def get_job(self, job_id: str) -> Job:
        return job_verbs.get_job(job_id, self.settings, principal=self.principal)

    def cancel_job(self, job_id: str) -> str:
        return job_verbs.cancel_job(job_id, self.settings, principal=self.principal)

    def retry_job(self, job_id: str) -> Job:
        return job_verbs.retry_job(job_id, self.settings, principal=self.principal)

    def clear_finished_jobs(self) -> None:
        job_verbs.clear_finished_jobs(self.settings, principal=self.principal)

    def create_api_token(self, name: str, days: int | None = None) -> tuple[str, dict[str, Any]]:
        return tokens.create_api_token(self.settings, name, principal=self.principal, days=days)

    def list_api_tokens(self) -> list[dict[str, Any]]:
        return tokens.list_api_tokens(self.settings, principal=self.principal)

    def revoke_api_token(self, token_id: str) -> None:
        tokens.revoke_api_token(self.settings, token_id, principal=self.principal)

    def upload_thesaurus(self, data: bytes) -> int:
        return word_lists.upload_thesaurus(data, self.settings, principal=self.principal)

    def upload_glossary(self, data: bytes) -> int:
        return word_lists.upload_glossary(data, self.settings, principal=self.principal)
