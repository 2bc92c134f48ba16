"""The four stages of one file, one function each, in the order `models.STAGES` gives: parse,
chunk, embed, write (docs/architecture.md, "The walk of one upload").

Each stage records its inputs in the document's manifest (`rag_core.library`); a stage whose
inputs did not change is reused, one whose inputs changed is redone with everything after it
(the manifest forgets the later stages). The document becomes searchable only when its
`documents` row is written, last. A stage raises `RagError` for a bad file; turning that into a
`refused` result is the caller's job (`ingestion.batch`, the worker).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from docling_core.types.doc import ContentLayer, DoclingDocument, TextItem

from rag_core import parsing
from rag_core.config import Settings
from rag_core.embedding import Embedder, select_embedder
from rag_core.errors import InputError
from rag_core.library import CODE_VERSIONS, DocumentFolder, atomic_write_bytes
from rag_core.models import Chunked, DocumentRecord, ProgressEvent, Stage
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

    def parse_whole(
        self, path: Path, settings: Settings, artifacts_dir: Path, file_name: str, kind: str
    ) -> ParsedDocument:
        """The parse of a file that has no page batches (`parsing.page_batched` false), as one task;
        `kind` is the one its admission found (the file is not checked again)."""
        ...

    def embed_passages(
        self, settings: Settings, texts: list[str], progress: Callable[[int, int], None]
    ) -> np.ndarray: ...


@dataclass
class StageRun:
    """What the stages of one file share: the file as admitted, where it goes, and how progress is told.
    `source` is the document folder's own copy (`source.<kind>`), the one every stage reads."""

    source: Path
    kind: str
    doc_id: str
    name: str
    collection: str
    folder: DocumentFolder
    settings: Settings
    store: Store
    progress: Progress | None = None
    executor: StageExecutor | None = None
    started: float = field(default_factory=time.perf_counter)
    seconds: dict[str, float] = field(default_factory=dict)

    def emit(self, stage: Stage, done: int, total: int, message: str = "") -> None:
        if self.progress:
            self.progress(ProgressEvent(file_name=self.name, stage=stage, done=done, total=total, message=message))

    def output_sha(self, stage: Stage) -> str:
        """The recorded output of an earlier stage: the input of the next."""
        return self.folder.manifest()["stages"][stage]["output_sha256"]


def parse_stage(run: StageRun) -> tuple[DoclingDocument, dict[str, Any]]:
    """The parsed document and what the parse recorded (parser, pages, warnings, title)."""
    settings, folder = run.settings, run.folder
    inputs = {
        "source_sha256": run.doc_id,
        "parser": _parser_options(run.kind, settings),
        "code": CODE_VERSIONS["parse"],
    }
    t0 = time.perf_counter()
    if folder.is_fresh("parse", inputs):
        info = folder.manifest()["stages"]["parse"]
        run.emit("parse", info["pages"], info["pages"], "reused")
        doc = load_document(folder.document_json)
    else:
        executor = run.executor
        if executor is not None and not parsing.page_batched(run.kind, settings):
            parsed = executor.parse_whole(run.source, settings, folder.artifacts, run.name, run.kind)
            run.emit("parse", parsed.pages, parsed.pages)
        else:
            parsed = parsing.parse(
                run.source,
                settings,
                folder.artifacts,
                progress=lambda d, t: run.emit("parse", d, t),
                file_name=run.name,
                page_batches=executor.page_batches if executor else None,
                kind=run.kind,
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
        folder.record_stage("parse", inputs, time.perf_counter() - t0, info)
    run.seconds["parse"] = time.perf_counter() - t0
    return doc, info


def chunk_stage(run: StageRun, doc: DoclingDocument) -> Chunked:
    """Parents and children of the parsed document; then the glossary terms they hold."""
    from rag_core import chunking  # docling-core's chunker pulls in transformers: ~10 s, only when ingesting

    folder = run.folder
    inputs = {
        "document_sha256": run.output_sha("parse"),
        "max_tokens": run.settings.chunking.max_tokens,
        "versions": chunking.chunking_versions(),
        "code": CODE_VERSIONS["chunk"],
    }
    t0 = time.perf_counter()
    if folder.is_fresh("chunk", inputs):
        chunked = Chunked.model_validate_json(folder.chunks_json.read_text())
        run.emit("chunk", len(chunked.children), len(chunked.children), "reused")
    else:
        chunked = chunking.build_chunks(doc, run.doc_id, run.settings, progress=lambda d, t: run.emit("chunk", d, t))
        if not chunked.children:
            raise no_children_error(doc)
        atomic_write_bytes(folder.chunks_json, chunked.model_dump_json().encode())
        counts = {"parents": len(chunked.parents), "children": len(chunked.children)}
        folder.record_stage("chunk", inputs, time.perf_counter() - t0, counts)
    run.seconds["chunk"] = time.perf_counter() - t0
    keep_held_labels(run.settings, run.doc_id)
    return chunked


def embed_stage(run: StageRun, chunked: Chunked) -> tuple[np.ndarray, Embedder]:
    """One vector per child, from the configured embedder (the store refuses another one's vectors)."""
    folder = run.folder
    embedder = select_embedder(run.settings)
    run.store.check_embedder(embedder.name, embedder.dim)
    inputs = {"chunks_sha256": run.output_sha("chunk"), "embedder": embedder.name, "code": CODE_VERSIONS["embed"]}
    t0 = time.perf_counter()
    if folder.is_fresh("embed", inputs):
        vectors = np.load(folder.vectors)
        run.emit("embed", len(vectors), len(vectors), "reused")
    else:
        texts = [c.context_text for c in chunked.children]
        if run.executor is not None:
            vectors = run.executor.embed_passages(run.settings, texts, lambda d, t: run.emit("embed", d, t))
        else:
            vectors = embedder.embed_passages(texts, progress=lambda d, t: run.emit("embed", d, t))
        tmp = folder.root / ".vectors.tmp.npy"
        np.save(tmp, vectors)
        tmp.replace(folder.vectors)
        folder.record_stage("embed", inputs, time.perf_counter() - t0, {"model": embedder.name, "dim": embedder.dim})
    run.seconds["embed"] = time.perf_counter() - t0
    return vectors, embedder


def write_inputs(run: StageRun) -> dict[str, Any]:
    settings = run.settings
    return {
        "vectors_sha256": run.output_sha("embed"),
        "collection": run.collection,
        "file_name": run.name,
        "code": CODE_VERSIONS["write"],
        # only when on, so that libraries written before this setting existed stay fresh
        **({"drop_repeated_page_lines": True} if settings.retrieval.drop_repeated_page_lines else {}),
    }


def write_stage(
    run: StageRun, info: dict[str, Any], chunked: Chunked, vectors: np.ndarray, embedder: Embedder
) -> DocumentRecord:
    """The document's rows (record, parents, children with their vectors, pages) in one batched write:
    the moment it becomes searchable. The caller has checked that the write is not already done."""
    t0 = time.perf_counter()
    run.emit("write", 0, 1)
    record = DocumentRecord(
        doc_id=run.doc_id,
        file_name=run.name,
        title=info.get("title") or Path(run.name).stem,
        author=info.get("author") or "",
        date=info.get("date") or "",
        collection=run.collection,
        language=detect_language(" ".join(c.text for c in chunked.children[:200])),
        pages=info["pages"],
        parents=len(chunked.parents),
        children=len(chunked.children),
        tables=sum(1 for p in chunked.parents for it in p.items if it.kind == "table"),
        parser=info["parser"],
        embedder=embedder.name,
        ingested_at=datetime.now(UTC).isoformat(timespec="seconds"),
        elapsed_s=round(time.perf_counter() - run.started, 2),
        warnings=info.get("warnings", []),
    )
    drop_repeated = run.settings.retrieval.drop_repeated_page_lines
    pages = searchable_page_texts(run.source, run.kind, chunked.children, drop_repeated)
    run.store.write_document(record, chunked.parents, chunked.children, vectors, embedder.name, pages)
    run.folder.record_stage("write", write_inputs(run), time.perf_counter() - t0, {"collection": run.collection})
    run.emit("write", 1, 1)
    run.seconds["write"] = time.perf_counter() - t0
    return record


def keep_held_labels(settings: Settings, doc_id: str) -> None:
    """Find the glossary terms the document's passages hold now, not on the first question that
    needs them (`understanding.term_presence`). A broken glossary does not stop an ingestion:
    they are found on first use once it is fixed."""
    term_presence.forget(settings, doc_id)
    try:
        term_presence.term_presence(settings, [doc_id])
    except InputError:
        pass


def _parser_options(kind: str, settings: Settings) -> dict[str, Any]:
    """What decides the parse output (parser, options, library and code versions; not limits)."""
    return {
        "kind": kind,
        "options": parsing.parser_options(settings, kind),
        "signature": parsing.parser_signature(settings, kind),
    }


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
