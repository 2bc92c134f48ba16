"""The façade the UI and the CLI call: ingest, search, ask, delete, and read-only views.

Only the public entry points live here; the ingestion stages are in `pipeline.ingestion`
and the question flow in `pipeline.asking`. A bad file never raises out of `ingest`: its
result says `refused` with a message for the user, and nothing already stored is touched.
The façade never renders anything and holds no state beyond one store connection per library.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from rag_core import answering, parsing, reranking, understanding
from rag_core.config import Settings
from rag_core.pipeline.asking import answer_question
from rag_core.pipeline.ingestion import Progress, document_folder, ingest_one
from rag_core.embedding import resolve_backend, select_embedder
from rag_core.errors import NotFoundError, RagError
from rag_core.library import clean_file_name, sha256_file
from rag_core.models import Answer, Chunked, DocumentRecord, IngestResult, Language, SearchResult
from rag_core.parsing.files import page_excerpt
from rag_core import retrieval
from rag_core.store import Store
from rag_core.text import detect_language

log = logging.getLogger(__name__)


def open_store(settings: Settings) -> Store:
    """One connection per library and process: it keeps what it learnt of the tables between queries."""
    return _store(settings.db_uri)


@lru_cache(maxsize=8)
def _store(uri: str) -> Store:
    return Store(uri)


# ----- ingestion ----------------------------------------------------------------------------
def ingest(
    paths: Sequence[Path],
    settings: Settings,
    collection: str = "default",
    progress: Progress | None = None,
    file_names: Sequence[str] | None = None,
) -> list[IngestResult]:
    """Ingest files (PDF, DOCX, PPTX, HTML, MD). `file_names` overrides the displayed names (uploads).

    Never raises for a bad file: the result says `refused` with a message for the user.
    """
    collection = clean_collection(collection)
    store = open_store(settings)
    results = []
    for i, path in enumerate(paths):
        name = clean_file_name(file_names[i] if file_names else Path(path).name)
        try:
            results.append(ingest_one(Path(path), name, collection, settings, store, progress))
        except RagError as err:
            results.append(IngestResult(file_name=name, status="refused", message=str(err)))
        except Exception:  # a bug, not the user's fault: log it, keep the batch going
            log.exception("ingestion of %s failed", name)
            results.append(IngestResult(
                file_name=name, status="refused",
                message="This file could not be processed because of an internal error; it has been logged.",
            ))
    if any(r.status == "ingested" for r in results):
        store.optimize(settings.retrieval.ann_min_rows)
    return results


def clean_collection(name: str) -> str:
    cleaned = "".join(ch for ch in name.strip() if ch.isalnum() or ch in " -_.")[:64].strip()
    return cleaned or "default"


def reindex(settings: Settings, progress: Progress | None = None) -> list[IngestResult]:
    """Rebuild the index with the configured embedder from the document folders on disk.

    The folders (sources, parses, chunks) are the truth; the index is derived, so it is
    dropped and rebuilt, and an interrupted reindex can simply be run again.
    """
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
def list_documents(settings: Settings, collection: str | None = None) -> list[DocumentRecord]:
    return open_store(settings).documents(collection)


def list_collections(settings: Settings) -> list[str]:
    return sorted({r.collection for r in list_documents(settings)})


def get_document(doc_id: str, settings: Settings) -> DocumentRecord:
    """Raises NotFoundError for an unknown id (or one whose ingestion never finished)."""
    for record in list_documents(settings):
        if record.doc_id == doc_id:
            return record
    raise NotFoundError("This document is not in the library.")


def delete(doc_id: str, settings: Settings) -> None:
    """Remove the document from search at once, then its rows and its folder."""
    folder = document_folder(settings, doc_id)
    open_store(settings).delete_document(doc_id)
    if folder.root.is_dir():
        shutil.rmtree(folder.root, ignore_errors=True)


def load_chunks(doc_id: str, settings: Settings) -> Chunked:
    get_document(doc_id, settings)
    folder = document_folder(settings, doc_id)
    stage = folder.manifest().get("stages", {}).get("chunk")
    if stage is None:
        raise NotFoundError("This document has no chunks yet; ingest it again.")
    # The chunks must come from the parsed document as it is now on disk.
    inputs = {**stage["inputs"], "document_sha256": sha256_file(folder.document_json)}
    folder.require_fresh("chunk", inputs, "chunking")
    return Chunked.model_validate_json(folder.chunks_json.read_text())


def source_path(doc_id: str, settings: Settings) -> Path:
    """Path of the stored original of a ready document; NotFoundError otherwise (forged ids included)."""
    get_document(doc_id, settings)
    return document_folder(settings, doc_id).source()


def page_pdf(doc_id: str, pages: Sequence[int], settings: Settings) -> tuple[bytes, dict[int, int]]:
    """Only the given pages of a document's PDF, and the map original page -> excerpt page."""
    return page_excerpt(source_path(doc_id, settings), pages)


def artifact_path(doc_id: str, relative: str, settings: Settings) -> Path:
    """A figure crop of a ready document; refuses anything outside its artifacts folder."""
    get_document(doc_id, settings)
    root = document_folder(settings, doc_id).root.resolve()
    path = (root / relative).resolve()
    if root not in path.parents or not path.is_file():
        raise NotFoundError("This figure is not in the library.")
    return path


def inspect(doc_id: str, settings: Settings) -> dict[str, Any]:
    """Stable JSON view of one document: record, section tree, parents, children, tables."""
    record = get_document(doc_id, settings)
    chunked = load_chunks(doc_id, settings)
    sections: list[dict[str, Any]] = []
    seen: set[tuple[str, ...]] = set()
    for parent in chunked.parents:
        for depth in range(1, len(parent.heading_path) + 1):
            path = tuple(parent.heading_path[:depth])
            if path not in seen:
                seen.add(path)
                sections.append({"title": path[-1], "level": depth, "path": list(path), "parents": []})
        if parent.heading_path:
            next(s for s in sections if s["path"] == parent.heading_path)["parents"].append(parent.id)
    return {
        "document": record.model_dump(mode="json"),
        "sections": sections,
        "parents": [
            {"id": p.id, "index": p.index, "section": p.heading_path, "pages": p.pages, "tokens": p.tokens,
             "children": len(p.child_ids)} for p in chunked.parents
        ],
        "children": [
            {"id": c.id, "parent_id": c.parent_id, "start": c.start, "end": c.end, "tokens": c.tokens,
             "pages": c.pages, "boxes": [b.model_dump() for b in c.boxes]} for c in chunked.children
        ],
        "tables": [
            {"ref": it.ref, "parent_id": p.id, "caption": it.caption, "page": it.page,
             "shape": [it.n_rows, it.n_cols]} for p in chunked.parents for it in p.items if it.kind == "table"
        ],
    }


# ----- questions --------------------------------------------------------------------------------
def search(
    query: str,
    settings: Settings,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    k: int | None = None,
    candidate_k: int | None = None,
    thesaurus: bool | None = None,
    language: Language | None = None,
) -> SearchResult:
    """Ranked parents; the thesaurus (when on, or when `thesaurus` says so) adds weighted lexical terms.

    `language` is the question's (detected when None); the glossary translates its terms for the
    documents written in the other language."""
    store = open_store(settings)
    scope = store.document_ids(collections, doc_ids)
    use = settings.understanding.thesaurus if thesaurus is None else thesaurus
    terms = understanding.expansion_terms(query, settings) if use else ()
    language = language or detect_language(query)  # type: ignore[assignment]
    return retrieval.search(query, store, select_embedder(settings), settings, scope, k=k, candidate_k=candidate_k,
                            extra_terms=terms, language=language,
                            translation=understanding.translation(query, language, settings))


def ask(
    question: str,
    settings: Settings,
    conversation_id: str | None = None,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
) -> Answer:
    started = time.perf_counter()
    reply = answering.greeting_reply(question)
    if reply is not None:
        answer = Answer(question=question, language=detect_language(question),  # type: ignore[arg-type]
                        mode="greeting", missing_information=reply,
                        elapsed_s=time.perf_counter() - started)
    else:
        history = understanding.read_history(settings, conversation_id)
        answer = answer_question(
            question, settings, lambda q, k: search(q, settings, collections, doc_ids, k=k), history)
    if conversation_id:
        _store_answer(settings, conversation_id, answer)
    return answer


def _store_answer(settings: Settings, conversation_id: str, answer: Answer) -> None:
    path = understanding.conversation_path(settings, conversation_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(answer.model_dump_json() + "\n")


def backends(settings: Settings) -> dict[str, str]:
    """What runs now for each concern, and how to enable the production backend."""
    pdf = parsing.resolve_pdf_backend(settings)
    emb = resolve_backend(settings)
    llm = settings.llm_key() is not None or settings.llm_base_url() is not None
    return {
        "parser": pdf + ("" if pdf == "docling" else " (set RAG_PARSING__DOCLING_ARTIFACTS_PATH for Docling's full pipeline)"),
        "embedder": emb + ("" if emb == "bge-m3" else " (set RAG_EMBEDDING__BGE_M3_PATH for BAAI/bge-m3)"),
        "reranker": reranking.reranker_status(settings),
        "answers": f"LLM {settings.llm.model}" if llm else "extractive (set OPENAI_API_KEY / OPENAI_BASE_URL for LLM answers)",
    }


def thesaurus_info(settings: Settings) -> dict[str, Any] | None:
    """The thesaurus in use (name, path, concepts), or None when expansion is off."""
    thesaurus = understanding.load_thesaurus(settings)
    if thesaurus is None:
        return None
    return {"name": thesaurus.name, "path": str(understanding.thesaurus_path(settings)),
            "concepts": len(thesaurus.concepts)}


def upload_thesaurus(data: bytes, settings: Settings) -> int:
    """Check and store the user's thesaurus (it replaces the bundled one); returns its number of concepts."""
    return len(understanding.save_uploaded_thesaurus(data, settings).concepts)


def glossary_info(settings: Settings) -> dict[str, Any] | None:
    """The bilingual glossary in use (name, entries, the user's extension), or None when translation is off."""
    glossary = understanding.load_glossary(settings)
    if glossary is None:
        return None
    extension = understanding.glossary_extension_path(settings)
    return {"name": glossary.name, "entries": len(glossary.entries), "extension": str(extension) if extension else None}


def upload_glossary(data: bytes, settings: Settings) -> int:
    """Check and store the user's glossary (it extends the bundled one); returns its number of entries."""
    return len(understanding.save_uploaded_glossary(data, settings).entries)


def temp_upload(data: bytes, suffix: str) -> Path:
    """Write uploaded bytes to a temporary file for `ingest` (the caller removes it)."""
    fd, name = tempfile.mkstemp(suffix=suffix)
    with open(fd, "wb") as handle:
        handle.write(data)
    return Path(name)
