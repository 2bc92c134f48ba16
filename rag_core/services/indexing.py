"""The verbs that write documents into the index: `ingest` (files, uploads), `reindex` and
`reindex_pages`.

They check the principal's rights, hand the files to the ingestion package (`rag_core.ingestion`:
each file admitted once, then its stages), and audit every upload. Re-exported by
`rag_core.pipeline`, which the pages, the API and the CLI call.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rag_core import ingestion
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.ingestion import Progress
from rag_core.library import clean_file_name
from rag_core.models import DocumentRecord, IngestResult
from rag_core.services import permissions as perm
from rag_core.services.connection import open_store


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
    target = perm.target_collection(store, settings, collection, principal, into_existing)

    def guard(existing: DocumentRecord | None) -> None:
        perm.check_existing_copy(existing, target, settings, principal)

    def audit(result: IngestResult) -> None:
        perm.audit(
            settings,
            "upload",
            principal,
            collection=target,
            file_name=result.file_name,
            status=result.status,
            doc_id=result.doc_id,
        )

    files = [(Path(p), clean_file_name(file_names[i] if file_names else Path(p).name)) for i, p in enumerate(paths)]
    return ingestion.ingest_files(files, target, settings, store, progress, guard, after_each=audit)


def reindex(settings: Settings, progress: Progress | None = None, *, principal: Principal) -> list[IngestResult]:
    """Rebuild the index with the configured embedder from the document folders on disk (administrators).

    The folders (sources, parses, chunks) are the truth; the index is derived, so it is
    dropped and rebuilt, and an interrupted reindex can simply be run again.
    """
    perm.require_admin(principal, "reindex")
    return ingestion.rebuild_index(settings, open_store(settings), progress)


def reindex_pages(settings: Settings, *, principal: Principal) -> int:
    """Rewrite the page channel's rows of every document from its stored original and chunks, without
    re-parsing or re-embedding (administrators): after `retrieval.drop_repeated_page_lines` changed,
    or for a library written before the pages' text rules changed. Returns the documents rewritten."""
    perm.require_admin(principal, "reindex")
    return ingestion.rewrite_page_rows(settings, open_store(settings))
