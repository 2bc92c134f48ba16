"""One file through the stages: admitted once, then parse, chunk, embed and write under the document's lock.

`admit` is the one check of a file's bytes (type, size, pages, damage: `parsing.validate_file`) and
the one hash that names the document; an upload is admitted once, where it arrives (an inline
ingestion, or the upload queue's submission, whose job row then carries the kind and the hash to the
worker). `ingest_one` runs the stages of an admitted file (`ingestion.stages`); `guard` sees the
stored record of the same bytes just before, to refuse the file (access control, which the callers
own: this package knows no principal).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rag_core import parsing, storage
from rag_core.config import Settings
from rag_core.ingestion.stages import (
    Progress,
    StageExecutor,
    StageRun,
    chunk_stage,
    embed_stage,
    parse_stage,
    write_inputs,
    write_stage,
)
from rag_core.library import sha256_file
from rag_core.messages import message as english
from rag_core.models import DocumentRecord, IngestResult
from rag_core.store import Store

Guard = Callable[[DocumentRecord | None], None]


@dataclass(frozen=True)
class Upload:
    """A file admitted for ingestion: its bytes at `path`, the name the user gave, its kind (`parsing.Kind`)
    and its document id (the SHA-256 of its bytes)."""

    path: Path
    name: str
    kind: str
    doc_id: str


def admit(path: Path, name: str, settings: Settings) -> Upload:
    """Check a file once and name it by its bytes; `InputError` with the user's message for a bad file."""
    kind = parsing.validate_file(path, settings, file_name=name)
    return Upload(Path(path), name, kind, sha256_file(path))


def stored_record(store: Store, doc_id: str) -> DocumentRecord | None:
    """The ready document with these bytes, if the library holds it (in any collection)."""
    return next((r for r in store.documents() if r.doc_id == doc_id), None)


def ingest_one(
    upload: Upload,
    collection: str,
    settings: Settings,
    store: Store,
    progress: Progress | None = None,
    guard: Guard | None = None,
    executor: StageExecutor | None = None,
) -> IngestResult:
    """Run the stages of an admitted file, reusing those its manifest says are fresh (a job resumed
    after a crash starts after its last finished stage). `guard` sees the stored record of the same
    bytes (None when new) before anything is written, and raises to refuse the file. `executor`
    runs the page batches and the embedding (default: this process)."""
    started = time.perf_counter()
    if guard is not None:
        guard(stored_record(store, upload.doc_id))
    folder = storage.document_folder(settings, upload.doc_id)
    with folder.locked():
        folder.sweep_temporary_files()
        source = folder.root / f"source.{upload.kind}"
        if not source.is_file():
            tmp = folder.root / f".source.{upload.kind}.tmp"
            shutil.copyfile(upload.path, tmp)
            tmp.replace(source)
        run = StageRun(source, upload.kind, upload.doc_id, upload.name, collection, folder, settings, store)
        run.progress, run.executor, run.started = progress, executor, started
        return _run_stages(run)


def _run_stages(run: StageRun) -> IngestResult:
    """parse -> chunk -> embed -> write, each stage's output the next one's input; the write is skipped
    when the document is stored already with the same inputs."""
    doc, info = parse_stage(run)
    chunked = chunk_stage(run, doc)
    vectors, embedder = embed_stage(run, chunked)
    existing = stored_record(run.store, run.doc_id)
    if existing is not None and run.folder.is_fresh("write", write_inputs(run)):
        return IngestResult(
            file_name=run.name,
            status="already_present",
            doc_id=run.doc_id,
            record=existing,
            message=english("ingest.already_present", collection=existing.collection),
            stage_seconds=run.seconds,
        )
    record = write_stage(run, info, chunked, vectors, embedder)
    return IngestResult(
        file_name=run.name,
        status="ingested",
        doc_id=run.doc_id,
        record=record,
        stage_seconds=run.seconds,
        message=english(
            "ingest.done",
            verb="Updated" if existing is not None else "Ingested",
            pages=record.pages,
            parents=record.parents,
            children=record.children,
            seconds=f"{record.elapsed_s:.1f}",
            parser=record.parser,
        ),
    )
