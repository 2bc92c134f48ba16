"""The ingestion stages of one file: parse -> chunk -> embed -> write
(docs/architecture.md, "Data flow").

Each stage records its inputs in the document's manifest (`rag_core.library`); a stage whose
inputs did not change is reused, one whose inputs changed is redone with everything after it.
The document becomes searchable only when its `documents` row is written, last. This module
raises `RagError` for a bad file; turning that into a `refused` result is the façade's job.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from docling_core.types.doc import ContentLayer, DoclingDocument, TextItem

from rag_core import parsing, storage
from rag_core.config import Settings
from rag_core.embedding import select_embedder
from rag_core.errors import InputError
from rag_core.library import CODE_VERSIONS, DocumentFolder, atomic_write_bytes, sha256_file
from rag_core.messages import message as english
from rag_core.models import Chunked, DocumentRecord, IngestResult, ProgressEvent, Stage
from rag_core.parsing.base import ParsedDocument
from rag_core.parsing.files import load_document, save_document
from rag_core.parsing.page_batches import PageBatchRunner
from rag_core.parsing.pagetext import searchable_page_texts
from rag_core.store import Store
from rag_core.text import detect_language
from rag_core.understanding import term_presence

Progress = Callable[[ProgressEvent], None]


class StageExecutor(Protocol):
    """Runs the heavy parts of the stages elsewhere (the Ray executor, `rag_core.jobs.ray_runner`):
    the page batches of the parse and the embedding. The stages, their manifest and the library
    write stay here, so a document ingested through an executor is the one a local run gives."""

    page_batches: PageBatchRunner | None

    def parse_whole(self, path: Path, settings: Settings, artifacts_dir: Path, file_name: str) -> ParsedDocument:
        """The parse of a file that has no page batches (`parsing.page_batched` false), as one task."""
        ...

    def embed_passages(
        self, settings: Settings, texts: list[str], progress: Callable[[int, int], None]
    ) -> np.ndarray: ...


def keep_held_labels(settings: Settings, doc_id: str) -> None:
    """Find the glossary terms the document's passages hold now, not on the first question that
    needs them (`understanding.term_presence`). A broken glossary does not stop an ingestion:
    they are found on first use once it is fixed."""
    term_presence.forget(settings, doc_id)
    try:
        term_presence.term_presence(settings, [doc_id])
    except InputError:
        pass


def document_folder(settings: Settings, doc_id: str) -> DocumentFolder:
    return storage.document_folder(settings, doc_id)


def _parser_options(kind: str, settings: Settings) -> dict[str, Any]:
    """What decides the parse output (parser, options, library and code versions; not limits)."""
    return {
        "kind": kind,
        "options": parsing.parser_options(settings, kind),
        "signature": parsing.parser_signature(settings, kind),
    }


def ingest_one(
    path: Path,
    name: str,
    collection: str,
    settings: Settings,
    store: Store,
    progress: Progress | None,
    guard: Callable[[DocumentRecord | None], None] | None = None,
    executor: StageExecutor | None = None,
) -> IngestResult:
    """Run the stages of one file. `guard` sees the stored record of the same bytes (None when
    new) before anything is written, and raises to refuse the file (access control).
    `executor` runs the page batches and the embedding (default: this process)."""
    started = time.perf_counter()
    kind = parsing.validate_file(path, settings, file_name=name)
    doc_id = sha256_file(path)
    if guard is not None:
        guard(next((r for r in store.documents() if r.doc_id == doc_id), None))
    folder = document_folder(settings, doc_id)
    with folder.locked():
        folder.sweep_temporary_files()
        return _run_stages(path, kind, doc_id, folder, name, collection, settings, store, progress, started, executor)


def _run_stages(
    path: Path,
    kind: str,
    doc_id: str,
    folder: DocumentFolder,
    name: str,
    collection: str,
    settings: Settings,
    store: Store,
    progress: Progress | None,
    started: float,
    executor: StageExecutor | None = None,
) -> IngestResult:
    from rag_core import chunking  # docling-core's chunker pulls in transformers: ~10 s, only when ingesting

    source = folder.root / f"source.{kind}"
    if not source.is_file():
        tmp = folder.root / f".source.{kind}.tmp"
        shutil.copyfile(path, tmp)
        tmp.replace(source)
    seconds: dict[str, float] = {}

    def emit(stage: Stage, done: int, total: int, message: str = "") -> None:
        if progress:
            progress(ProgressEvent(file_name=name, stage=stage, done=done, total=total, message=message))

    # parse
    parse_inputs = {"source_sha256": doc_id, "parser": _parser_options(kind, settings), "code": CODE_VERSIONS["parse"]}
    t0 = time.perf_counter()
    manifest = folder.manifest()
    if folder.is_fresh("parse", parse_inputs):
        doc = load_document(folder.document_json)
        info = manifest["stages"]["parse"]
        emit("parse", info["pages"], info["pages"], "reused")
    else:
        if executor is not None and not parsing.page_batched(kind, settings):
            parsed = executor.parse_whole(source, settings, folder.artifacts, name)
            emit("parse", parsed.pages, parsed.pages)
        else:
            parsed = parsing.parse(
                source,
                settings,
                folder.artifacts,
                progress=lambda d, t: emit("parse", d, t),
                file_name=name,
                page_batches=executor.page_batches if executor else None,
            )
        doc = parsed.document
        save_document(doc, folder.document_json)
        info = {
            "parser": parsed.parser,
            "options": parsed.options,
            "versions": parsed.versions,
            "pages": parsed.pages,
            "warnings": parsed.warnings,
            "title": parsed.title,
            "author": parsed.author,
            "date": parsed.date,
        }
        folder.record_stage("parse", parse_inputs, time.perf_counter() - t0, info)
    seconds["parse"] = time.perf_counter() - t0

    # chunk
    chunk_inputs = {
        "document_sha256": folder.manifest()["stages"]["parse"]["output_sha256"],
        "max_tokens": settings.chunking.max_tokens,
        "versions": chunking.chunking_versions(),
        "code": CODE_VERSIONS["chunk"],
    }
    t0 = time.perf_counter()
    if folder.is_fresh("chunk", chunk_inputs):
        chunked = Chunked.model_validate_json(folder.chunks_json.read_text())
        emit("chunk", len(chunked.children), len(chunked.children), "reused")
    else:
        chunked = chunking.build_chunks(doc, doc_id, settings, progress=lambda d, t: emit("chunk", d, t))
        if not chunked.children:
            raise no_children_error(doc)
        atomic_write_bytes(folder.chunks_json, chunked.model_dump_json().encode())
        folder.record_stage(
            "chunk",
            chunk_inputs,
            time.perf_counter() - t0,
            {"parents": len(chunked.parents), "children": len(chunked.children)},
        )
    seconds["chunk"] = time.perf_counter() - t0
    keep_held_labels(settings, doc_id)

    # embed
    embedder = select_embedder(settings)
    store.check_embedder(embedder.name, embedder.dim)
    embed_inputs = {
        "chunks_sha256": folder.manifest()["stages"]["chunk"]["output_sha256"],
        "embedder": embedder.name,
        "code": CODE_VERSIONS["embed"],
    }
    t0 = time.perf_counter()
    if folder.is_fresh("embed", embed_inputs):
        vectors = np.load(folder.vectors)
        emit("embed", len(vectors), len(vectors), "reused")
    else:
        texts = [c.context_text for c in chunked.children]
        if executor is not None:
            vectors = executor.embed_passages(settings, texts, lambda d, t: emit("embed", d, t))
        else:
            vectors = embedder.embed_passages(texts, progress=lambda d, t: emit("embed", d, t))
        tmp = folder.root / ".vectors.tmp.npy"
        np.save(tmp, vectors)
        tmp.replace(folder.vectors)
        folder.record_stage(
            "embed", embed_inputs, time.perf_counter() - t0, {"model": embedder.name, "dim": embedder.dim}
        )
    seconds["embed"] = time.perf_counter() - t0

    # write
    write_inputs = {
        "vectors_sha256": folder.manifest()["stages"]["embed"]["output_sha256"],
        "collection": collection,
        "file_name": name,
        "code": CODE_VERSIONS["write"],
        # only when on, so that libraries written before this setting existed stay fresh
        **({"drop_repeated_page_lines": True} if settings.retrieval.drop_repeated_page_lines else {}),
    }
    existing = {r.doc_id: r for r in store.documents()}.get(doc_id)
    if existing is not None and folder.is_fresh("write", write_inputs):
        return IngestResult(
            file_name=name,
            status="already_present",
            doc_id=doc_id,
            record=existing,
            message=english("ingest.already_present", collection=existing.collection),
            stage_seconds=seconds,
        )
    t0 = time.perf_counter()
    emit("write", 0, 1)
    record = DocumentRecord(
        doc_id=doc_id,
        file_name=name,
        title=info.get("title") or Path(name).stem,
        author=info.get("author") or "",
        date=info.get("date") or "",
        collection=collection,
        language=detect_language(" ".join(c.text for c in chunked.children[:200])),
        pages=info["pages"],
        parents=len(chunked.parents),
        children=len(chunked.children),
        tables=sum(1 for p in chunked.parents for it in p.items if it.kind == "table"),
        parser=info["parser"],
        embedder=embedder.name,
        ingested_at=datetime.now(UTC).isoformat(timespec="seconds"),
        elapsed_s=round(time.perf_counter() - started, 2),
        warnings=info.get("warnings", []),
    )
    store.write_document(
        record,
        chunked.parents,
        chunked.children,
        vectors,
        embedder.name,
        searchable_page_texts(source, kind, chunked.children, settings.retrieval.drop_repeated_page_lines),
    )
    folder.record_stage("write", write_inputs, time.perf_counter() - t0, {"collection": collection})
    emit("write", 1, 1)
    seconds["write"] = time.perf_counter() - t0
    verb = "Updated" if existing is not None else "Ingested"
    return IngestResult(
        file_name=name,
        status="ingested",
        doc_id=doc_id,
        record=record,
        stage_seconds=seconds,
        message=english(
            "ingest.done",
            verb=verb,
            pages=record.pages,
            parents=record.parents,
            children=record.children,
            seconds=f"{record.elapsed_s:.1f}",
            parser=record.parser,
        ),
    )


def read_characters(doc: DoclingDocument) -> int:
    """Characters the parse read anywhere in the document: every text item of every layer, every table cell."""
    layers = set(ContentLayer)
    count = sum(
        len(item.text.strip())
        for item, _ in doc.iterate_items(included_content_layers=layers)
        if isinstance(item, TextItem)
    )
    return count + sum(len(cell.text.strip()) for table in doc.tables for cell in table.data.table_cells)


def no_children_error(doc: DoclingDocument) -> InputError:
    """Why a document gave no passage: "no text" only when neither the text layer nor OCR gave a character."""
    characters = read_characters(doc)
    if not characters:
        return InputError.of("file.no_text")
    return InputError.of("file.no_passage", characters=characters)
