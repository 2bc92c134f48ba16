"""The façade the UI and the CLI call: ingest, search, ask, delete, and read-only views.

IN PROGRESS: signatures are the contract; bodies land in the next commits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rag_core.config import Settings
from rag_core.models import Answer, Chunked, DocumentRecord, IngestResult, ProgressEvent, SearchResult

Progress = Callable[[ProgressEvent], None]


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
    raise NotImplementedError


def list_documents(settings: Settings, collection: str | None = None) -> list[DocumentRecord]:
    raise NotImplementedError


def list_collections(settings: Settings) -> list[str]:
    raise NotImplementedError


def delete(doc_id: str, settings: Settings) -> None:
    raise NotImplementedError


def get_document(doc_id: str, settings: Settings) -> DocumentRecord:
    """Raises NotFoundError for an unknown id."""
    raise NotImplementedError


def load_chunks(doc_id: str, settings: Settings) -> Chunked:
    raise NotImplementedError


def source_path(doc_id: str, settings: Settings) -> Path:
    """Path of the stored original file of a known document; NotFoundError otherwise."""
    raise NotImplementedError


def inspect(doc_id: str, settings: Settings) -> dict[str, Any]:
    """Stable JSON view: document, section tree, parents, children, tables."""
    raise NotImplementedError


def search(
    query: str,
    settings: Settings,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    k: int | None = None,
) -> SearchResult:
    raise NotImplementedError


def ask(
    question: str,
    settings: Settings,
    conversation_id: str | None = None,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
) -> Answer:
    raise NotImplementedError


def backends(settings: Settings) -> dict[str, str]:
    """Which backend is in use for parser, embedder, reranker, llm, and how to enable production ones."""
    raise NotImplementedError
