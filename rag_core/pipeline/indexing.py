"""The façade's verbs that write documents into the index: `ingest` (files, uploads) and `reindex`.

They check the principal's rights, run the stages of each file (`pipeline.ingestion`), turn a bad
file into a `refused` result, and audit every upload. Re-exported by `rag_core.pipeline`, which
the pages and the CLI call.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from rag_core import storage
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.errors import RagError
from rag_core.library import clean_file_name
from rag_core.messages import message as english
from rag_core.models import Chunked, DocumentRecord, IngestResult
from rag_core.parsing import pagetext
from rag_core.pipeline import permissions as perm
from rag_core.pipeline.connection import open_store
from rag_core.pipeline.ingestion import Progress, document_folder, ingest_one

log = logging.getLogger(__name__)


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
            results.append(IngestResult(file_name=name, status="refused", message=english("ingest.internal")))
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
    perm.require_admin(principal, "reindex")
    plan = []
    for doc_id in storage.document_ids(settings):
        folder = document_folder(settings, doc_id)
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


def reindex_pages(settings: Settings, *, principal: Principal) -> int:
    """Rewrite the page channel's rows of every document from its stored original and chunks, without
    re-parsing or re-embedding (administrators): after `retrieval.drop_repeated_page_lines` changed,
    or for a library written before the pages' text rules changed. Returns the documents rewritten."""
    perm.require_admin(principal, "reindex")
    store = open_store(settings)
    done = 0
    for record in store.documents():
        folder = document_folder(settings, record.doc_id)
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
