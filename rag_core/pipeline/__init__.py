"""The façade the UI and the CLI call: ingest, search, ask, delete, read-only views, grants, audit.

Only the public entry points live here; the ingestion stages are in `pipeline.ingestion`,
the question flow in `pipeline.asking`, the access rules in `pipeline.permissions`, the upload
queue's verbs in `pipeline.jobs`
(its worker in `rag_core.jobs`). Every entry
point that reads or writes the library takes the `Principal` who acts (keyword `principal`):
its readable collections are the prefilter of every search channel and listing, and the
viewer, exports and crops check the document against it again before producing bytes. A
forged or unreadable document id is "not found", exactly like a missing one.
A bad file never raises out of `ingest`: its result says `refused` with a message for the
user, and nothing already stored is touched. The façade never renders anything and holds no
state beyond one store connection per library.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from rag_core import answering, parsing, reranking, retrieval, understanding
from rag_core.access import Principal
from rag_core.answering import Checked, Draft, Final  # noqa: F401  (re-exported: the events of ask_stream)
from rag_core.citations import ViewerTarget, highlight_target, source_label, source_target, viewer_annotations  # noqa: F401  (re-exported: what the viewer shows, and its highlights)
from rag_core.config import Settings
from rag_core.embedding import resolve_backend, select_embedder
from rag_core.errors import NotFoundError, RagError
from rag_core.library import clean_file_name, sha256_file  # clean_file_name: also the pages' (uploads refused)
from rag_core.llm import llm_configured
from rag_core.models import Answer, Chunked, DocumentRecord, IngestResult, Language, SearchResult
from rag_core.parsing.files import page_excerpt
from rag_core.pipeline import permissions as perm
from rag_core.pipeline.asking import AskStream, QuestionRun, accessible_library, answers_backend
from rag_core.pipeline.connection import _store, open_store  # noqa: F401  (_store: tests clear its cache)
from rag_core.pipeline.conversations import conversation_history  # noqa: F401
from rag_core.pipeline.conversations import store_answer as _store_answer
from rag_core.pipeline.exports import TableFormat, table_bytes
from rag_core.pipeline.ingestion import Progress, document_folder, ingest_one
from rag_core.pipeline.jobs import (  # noqa: F401  (re-exported: the upload queue's verbs)
    cancel_job,
    elapsed_of,
    get_job,
    list_jobs,
    live_workers,
    progress_of,
    remaining_of,
    retry_job,
    submit_files,
    submit_upload,
)
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
from rag_core.pipeline.rechecks import answers_in_scope, search_in_scope, stored_row_check  # noqa: F401
from rag_core.pipeline.views import answer_sources, document_view, search_sources
from rag_core.pipeline.word_lists import glossary_info, thesaurus_info, upload_glossary, upload_thesaurus  # noqa: F401  (re-exported: the shared thesaurus and glossary)
from rag_core.text import detect_language
from rag_core.understanding import term_presence

log = logging.getLogger(__name__)
_SEARCHES = ThreadPoolExecutor(max_workers=3, thread_name_prefix="search")  # a question's sub-questions at once


# ----- ingestion ----------------------------------------------------------------------------
def ingest(
    paths: Sequence[Path],
    settings: Settings,
    collection: str | None = None,
    progress: Progress | None = None,
    file_names: Sequence[str] | None = None,
    *,
    principal: Principal,
    into_existing: bool = False,
) -> list[IngestResult]:
    """Ingest files (PDF, DOCX, PPTX, HTML, MD). `file_names` overrides the displayed names (uploads).

    `collection` (default: the library's default collection) is looked up up to case and Unicode
    width. Needs `write` on it; a collection another user created is refused unless
    `into_existing` says the principal means it; a new one is created, with `manage` for the
    principal, unless its name is reserved or a look-alike (AccessDenied or InputError). Never
    raises for a bad file: the result says `refused` with a message for the user.
    """
    store = open_store(settings)
    collection = perm.target_collection(store, settings, collection, principal, into_existing)

    def guard(existing: DocumentRecord | None) -> None:
        perm.check_existing_copy(existing, collection, settings, principal)

    results = []
    for i, path in enumerate(paths):
        name = clean_file_name(file_names[i] if file_names else Path(path).name)
        try:
            results.append(ingest_one(Path(path), name, collection, settings, store, progress, guard))
        except RagError as err:
            results.append(IngestResult(file_name=name, status="refused", message=str(err)))
        except Exception:  # a bug, not the user's fault: log it, keep the batch going
            log.exception("ingestion of %s failed", name)
            results.append(
                IngestResult(
                    file_name=name,
                    status="refused",
                    message="This file could not be processed because of an internal error; it has been logged.",
                )
            )
        last = results[-1]
        perm.audit(
            settings,
            "upload",
            principal,
            collection=collection,
            file_name=last.file_name,
            status=last.status,
            doc_id=last.doc_id,
        )
    if any(r.status == "ingested" for r in results):
        store.optimize(settings.retrieval.ann_min_rows)
    return results


def reindex(settings: Settings, progress: Progress | None = None, *, principal: Principal) -> list[IngestResult]:
    """Rebuild the index with the configured embedder from the document folders on disk (administrators).

    The folders (sources, parses, chunks) are the truth; the index is derived, so it is
    dropped and rebuilt, and an interrupted reindex can simply be run again.
    """
    perm.require_admin(principal, "rebuild the index")
    plan = []
    for manifest_path in sorted(settings.documents_dir.glob("*/manifest.json")):
        folder = document_folder(settings, manifest_path.parent.name)
        write = folder.manifest().get("stages", {}).get("write")
        if write:
            plan.append((folder, write["inputs"]["collection"], write["inputs"]["file_name"]))
    store = open_store(settings)
    store.drop_all()
    results = []
    for folder, collection, name in plan:
        try:
            results.append(ingest_one(folder.source(), name, collection, settings, store, progress))
        except RagError as err:
            results.append(IngestResult(file_name=name, status="refused", message=str(err)))
    store.optimize(settings.retrieval.ann_min_rows)
    return results


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
    if folder.root.is_dir():
        shutil.rmtree(folder.root, ignore_errors=True)
    term_presence.forget(settings, doc_id)
    perm.audit(settings, "deletion", principal, doc_id=doc_id, file_name=record.file_name, collection=record.collection)


def load_chunks(doc_id: str, settings: Settings, *, principal: Principal) -> Chunked:
    get_document(doc_id, settings, principal=principal)
    folder = document_folder(settings, doc_id)
    stage = folder.manifest().get("stages", {}).get("chunk")
    if stage is None:
        raise NotFoundError("This document has no chunks yet; ingest it again.")
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
    perm.audit(
        settings, "document_opened", principal, doc_id=doc_id, file_name=record.file_name, collection=record.collection
    )
    return path


def page_pdf(
    doc_id: str, pages: Sequence[int], settings: Settings, *, principal: Principal
) -> tuple[bytes, dict[int, int]]:
    """Only the given pages of a document's PDF, and the map original page -> excerpt page."""
    record, path = _checked_source(doc_id, settings, principal)
    excerpt = page_excerpt(path, pages)
    perm.audit(
        settings,
        "page_opened",
        principal,
        doc_id=doc_id,
        file_name=record.file_name,
        collection=record.collection,
        pages=sorted(excerpt[1]),
    )
    return excerpt


def artifact_path(doc_id: str, relative: str, settings: Settings, *, principal: Principal) -> Path:
    """A figure crop of a readable ready document; refuses anything outside its artifacts folder."""
    record, _ = _checked_source(doc_id, settings, principal)
    root = document_folder(settings, doc_id).root.resolve()
    path = (root / relative).resolve()
    if root not in path.parents or not path.is_file():
        raise NotFoundError("This figure is not in the library.")
    perm.audit(
        settings,
        "figure_exported",
        principal,
        doc_id=doc_id,
        file_name=record.file_name,
        collection=record.collection,
        figure=relative,
    )
    return path


def export_table(
    doc_id: str, table_ref: str, settings: Settings, fmt: TableFormat = "csv", *, principal: Principal
) -> bytes:
    """One table of a readable document as CSV or Excel bytes (`table_ref` as `inspect` lists it)."""
    record, _ = _checked_source(doc_id, settings, principal)
    chunked = load_chunks(doc_id, settings, principal=principal)
    item = next((it for p in chunked.parents for it in p.items if it.kind == "table" and it.ref == table_ref), None)
    if item is None:
        raise NotFoundError("This table is not in the library.")
    data = table_bytes(item, fmt)
    perm.audit(
        settings,
        "table_exported",
        principal,
        doc_id=doc_id,
        file_name=record.file_name,
        collection=record.collection,
        table=table_ref,
        page=item.page,
        format=fmt,
    )
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
    perm.audit(
        settings,
        "document_inspected",
        principal,
        doc_id=doc_id,
        file_name=record.file_name,
        collection=record.collection,
    )
    return record


# ----- questions --------------------------------------------------------------------------------
def _search(
    query: str,
    settings: Settings,
    scope: Sequence[str],
    k: int | None = None,
    candidate_k: int | None = None,
    thesaurus: bool | None = None,
    language: Language | None = None,
) -> SearchResult:
    use = settings.understanding.thesaurus if thesaurus is None else thesaurus
    terms = understanding.expansion_terms(query, settings) if use else ()
    language = language or detect_language(query)  # type: ignore[assignment]
    return retrieval.search(
        query,
        open_store(settings),
        select_embedder(settings),
        settings,
        scope,
        k=k,
        candidate_k=candidate_k,
        extra_terms=terms,
        language=language,
        translation=understanding.translation(query, language, settings),
    )


def _resolve(
    settings: Settings, principal: Principal, collections: Sequence[str] | None, doc_ids: Sequence[str] | None
) -> tuple[list[str], list[str]]:
    """The search scope (document ids) and the collections they lie in, from one read of the table."""
    records = open_store(settings).documents()
    scope = perm.readable_scope(settings, principal).document_ids(records, collections, doc_ids)
    in_scope = set(scope)
    return scope, sorted({r.collection for r in records if r.doc_id in in_scope})


def _scope_fields(
    settings: Settings,
    searched: list[str],
    text_key: str,
    text: str,
    collections: Sequence[str] | None,
    doc_ids: Sequence[str] | None,
) -> dict[str, Any]:
    """What the audit records of a question's scope: the collections searched, and the filters asked for."""
    fields: dict[str, Any] = {
        "scope": searched,
        "collections": list(collections) if collections is not None else None,
        "documents": [{"doc_id": d} for d in doc_ids] if doc_ids is not None else None,
    }
    if settings.audit.mask_questions:
        fields[f"{text_key}_masked"] = True
    else:
        fields[text_key] = text
    return fields


def search(
    query: str,
    settings: Settings,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    k: int | None = None,
    candidate_k: int | None = None,
    thesaurus: bool | None = None,
    language: Language | None = None,
    *,
    principal: Principal,
) -> SearchResult:
    """Ranked parents of the readable documents (within `collections` / `doc_ids` when given);
    the thesaurus (when on, or when `thesaurus` says so) adds weighted lexical terms. `language`
    is the question's (detected when None); the glossary translates its terms for the documents
    written in the other language."""
    scope, searched = _resolve(settings, principal, collections, doc_ids)
    result = _search(query, settings, scope, k=k, candidate_k=candidate_k, thesaurus=thesaurus, language=language)
    perm.audit(
        settings,
        "search",
        principal,
        results=search_sources(result),
        **_scope_fields(settings, searched, "query", query, collections, doc_ids),
    )
    return result


def ask(
    question: str,
    settings: Settings,
    conversation_id: str | None = None,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    *,
    principal: Principal,
) -> Answer:
    """Answer from the readable documents; the conversation is the principal's own."""
    return ask_stream(question, settings, conversation_id, collections, doc_ids, principal=principal).result()


def ask_stream(
    question: str,
    settings: Settings,
    conversation_id: str | None = None,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    *,
    principal: Principal,
) -> AskStream:
    """`ask` as events while the model writes: `answering.Draft` (unverified, display only), `Checked` (a
    paragraph verified once complete), then `Final`; `stop()` keeps what was verified. Only the final (or
    stopped) answer is stored and audited, as `ask` does."""
    started = time.perf_counter()
    searched: list[str] = []

    def start() -> Answer | QuestionRun:
        language = detect_language(question)  # once per question; every step is given it
        reply = answering.greeting_reply(question)
        if reply is not None:
            return Answer(
                question=question,
                language=language,  # type: ignore[arg-type]
                mode="greeting",
                missing_information=reply,
                elapsed_s=time.perf_counter() - started,
            )
        scope, found = _resolve(settings, principal, collections, doc_ids)
        searched.extend(found)
        history = understanding.read_history(
            settings, conversation_id, user=principal.user, keep=stored_row_check(settings, principal)
        )
        run = QuestionRun(
            question,
            settings,
            history,
            language=language,  # type: ignore[arg-type]
            library=accessible_library(settings, scope) if settings.answer.check_terms else None,
        )
        _run_searches(run, settings, scope)
        return run

    def finish(answer: Answer) -> None:
        if conversation_id:
            _store_answer(settings, conversation_id, answer, principal)
        context, cited = answer_sources(answer)
        perm.audit(
            settings,
            "question",
            principal,
            conversation_id=conversation_id,
            mode=answer.mode,
            context=context,
            cited=cited,
            **_scope_fields(settings, searched, "question", question, collections, doc_ids),
        )

    return AskStream(start, finish)


def _run_searches(run: QuestionRun, settings: Settings, scope: Sequence[str]) -> None:
    """The searches the question asks for, round by round (each round's in parallel), within `scope`."""
    requests = run.searches()
    while requests:
        results = list(_SEARCHES.map(lambda r: _search(r.query, settings, scope, k=r.k, language=r.language), requests))
        requests = run.searched(results)


def backends(settings: Settings) -> dict[str, str]:
    """What runs now for each concern, and how to enable the production backend."""
    pdf = parsing.resolve_pdf_backend(settings)
    emb = resolve_backend(settings)
    llm = llm_configured(settings)
    return {
        "parser": pdf
        + ("" if pdf == "docling" else " (set RAG_PARSING__DOCLING_ARTIFACTS_PATH for Docling's full pipeline)"),
        "embedder": emb + ("" if emb == "bge-m3" else " (set RAG_EMBEDDING__BGE_M3_PATH for BAAI/bge-m3)"),
        "reranker": reranking.reranker_status(settings),
        "answers": answers_backend(settings)
        if llm
        else "extractive (set OPENAI_API_KEY / OPENAI_BASE_URL for LLM answers)",
    }


def temp_upload(data: bytes, suffix: str) -> Path:
    """Write uploaded bytes to a temporary file for `ingest` (the caller removes it)."""
    fd, name = tempfile.mkstemp(suffix=suffix)
    with open(fd, "wb") as handle:
        handle.write(data)
    return Path(name)
