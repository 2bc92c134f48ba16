"""Several files at once: an inline ingestion, a rebuild of the index, the page rows rewritten, and
what a cancelled job leaves behind removed.

None of these checks who acts: the indexing verbs (`services.indexing`, re-exported by the façade) and
the worker (`rag_core.jobs`) check the principal's rights and write the audit trail, then call these.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from rag_core import storage
from rag_core.config import Settings
from rag_core.errors import RagError
from rag_core.ingestion.run import Guard, admit, ingest_one
from rag_core.ingestion.stages import Progress
from rag_core.messages import message as english
from rag_core.models import Chunked, IngestResult
from rag_core.parsing import pagetext
from rag_core.store import Store
from rag_core.understanding import term_presence

log = logging.getLogger(__name__)


def ingest_files(
    files: Sequence[tuple[Path, str]],
    collection: str,
    settings: Settings,
    store: Store,
    progress: Progress | None = None,
    guard: Guard | None = None,
    after_each: Callable[[IngestResult], None] | None = None,
) -> list[IngestResult]:
    """Admit and ingest each (path, name) into `collection`. Never raises for a bad file: its result
    says `refused` with a message for the user, and the batch goes on. `after_each` sees each result
    as it comes (the façade audits it)."""
    results = []
    for path, name in files:
        try:
            results.append(ingest_one(admit(path, name, settings), collection, settings, store, progress, guard))
        except RagError as err:
            results.append(IngestResult(file_name=name, status="refused", message=str(err)))
        except Exception:  # a bug, not the user's fault: log it, keep the batch going
            log.exception("ingestion of %s failed", name)
            results.append(IngestResult(file_name=name, status="refused", message=english("ingest.internal")))
        if after_each is not None:
            after_each(results[-1])
    if any(r.status == "ingested" for r in results):
        store.optimize(settings.retrieval.ann_min_rows)
    return results


def rebuild_index(settings: Settings, store: Store, progress: Progress | None = None) -> list[IngestResult]:
    """Drop the index and write it again from the document folders on disk (their sources, parses and
    chunks are the truth; the index is derived), with the configured embedder. Run again after an
    interruption."""
    plan = []
    for doc_id in storage.document_ids(settings):
        folder = storage.document_folder(settings, doc_id)
        write = folder.manifest().get("stages", {}).get("write")
        if write:
            plan.append((folder, write["inputs"]["collection"], write["inputs"]["file_name"]))
    store.drop_all()
    results = []
    for folder, collection, name in plan:
        try:
            results.append(ingest_one(admit(folder.source(), name, settings), collection, settings, store, progress))
        except RagError as err:
            results.append(IngestResult(file_name=name, status="refused", message=str(err)))
    store.optimize(settings.retrieval.ann_min_rows)
    return results


def rewrite_page_rows(settings: Settings, store: Store) -> int:
    """Rewrite the page channel's rows of every document from its stored original and chunks, without
    re-parsing or re-embedding (after `retrieval.drop_repeated_page_lines` changed, or for a library
    written before the pages' text rules changed). Returns the documents rewritten."""
    done = 0
    for record in store.documents():
        folder = storage.document_folder(settings, record.doc_id)
        chunks = folder.chunks_json
        if not chunks.is_file():
            continue
        chunked = Chunked.model_validate_json(chunks.read_text())
        source = folder.source()
        kind = source.suffix.lstrip(".").lower()
        texts = pagetext.searchable_page_texts(
            source, kind, chunked.children, settings.retrieval.drop_repeated_page_lines
        )
        store.replace_pages(record, chunked.parents, texts)
        done += 1
    if done:
        store.optimize(settings.retrieval.ann_min_rows)
    return done


def discard(doc_id: str, settings: Settings, store: Store) -> None:
    """Remove what an ingestion that was stopped left of a document new to the library: its rows
    (nothing searchable) and its folder. The caller leaves alone a document that was there before."""
    folder = storage.document_folder(settings, doc_id)
    with folder.locked():
        store.delete_document(doc_id)
        term_presence.forget(settings, doc_id)
    folder.remove()
