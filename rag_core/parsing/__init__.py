"""Parsing: a file becomes a DoclingDocument with structure and provenance (docs/method.md, "Parsing").

`parse` validates the file (content, not name), picks the backend and returns a
`ParsedDocument`. PDFs go to the Docling full pipeline when its model artefacts are on disk
(`auto`), else to PyMuPDF's layout analysis; DOCX/PPTX/HTML/Markdown go to Docling's
simple pipeline. `parser_options` / `parser_signature` tell the pipeline when a stored
parse must be redone. Language detection is not done here (`rag_core.text`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from rag_core.config import Settings
from rag_core.parsing.base import PARSER_CODE_VERSION, ParsedDocument, Parser, Progress, library_versions
from rag_core.parsing.docling_parser import DoclingPdfParser, DoclingSimpleParser, missing_artifacts
from rag_core.parsing.docling_parser import options as _docling_options
from rag_core.parsing.page_batches import PageBatchRunner
from rag_core.parsing.pymupdf_parser import PyMuPDFParser
from rag_core.parsing.pymupdf_parser import options as _pymupdf_options
from rag_core.parsing.validation import Kind, validate_file

__all__ = [
    "ParsedDocument",
    "PageBatchRunner",
    "Parser",
    "Progress",
    "parse",
    "validate_file",
    "resolve_pdf_backend",
    "parser_for",
    "parser_options",
    "parser_signature",
    "library_versions",
]


def resolve_pdf_backend(settings: Settings) -> str:
    """'docling' or 'pymupdf': the PDF backend `parse` uses now.

    `auto` picks docling only when its artefacts are on disk. An explicit `docling` stays
    `docling` even without them: `parse` then raises `BackendUnavailable` naming the setting.
    """
    backend = settings.parsing.backend
    if backend == "auto":
        return "docling" if missing_artifacts(settings) is None else "pymupdf"
    return backend


def parser_for(kind: Kind | str, settings: Settings, page_batches: PageBatchRunner | None = None) -> Parser:
    """`page_batches` runs the page batches of the pymupdf backend (default: this process and its
    helpers); the Docling backends analyse the whole file in this process."""
    if kind == "pdf":
        return DoclingPdfParser() if resolve_pdf_backend(settings) == "docling" else PyMuPDFParser(page_batches)
    return DoclingSimpleParser(kind)


def page_batched(kind: Kind | str, settings: Settings) -> bool:
    """Whether this kind of file is parsed in page batches (pymupdf PDFs); the Docling backends parse a
    file whole."""
    return kind == "pdf" and resolve_pdf_backend(settings) == "pymupdf"


def parser_options(settings: Settings, kind: Kind | str = "pdf") -> dict:
    """Options that change the parse output of a file of this kind (for the manifest)."""
    if kind != "pdf":
        return {"backend": "docling-simple", "kind": kind}
    if resolve_pdf_backend(settings) == "docling":
        return _docling_options(settings)
    return _pymupdf_options(settings)


def parser_signature(settings: Settings, kind: Kind | str = "pdf") -> str:
    """Hash of options, library versions and code version: a stored parse with another one is stale."""
    payload = {"options": parser_options(settings, kind), "versions": library_versions(), "code": PARSER_CODE_VERSION}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def parse(
    path: Path,
    settings: Settings,
    artifacts_dir: Path,
    progress: Progress | None = None,
    file_name: str | None = None,
    page_batches: PageBatchRunner | None = None,
    kind: Kind | str | None = None,
) -> ParsedDocument:
    """Parse one file into a DoclingDocument; figure crops are written into `artifacts_dir`.

    Raises `InputError` for a file that cannot be ingested and `BackendUnavailable` when the
    configured backend cannot run. `progress(pages_done, pages_total)` is called per page.
    `kind`: what `validate_file` found when the file was admitted (the ingestion checks a file
    once); without it the file is checked here.
    """
    path = Path(path)
    if kind is None:
        kind = validate_file(path, settings, file_name=file_name)
    parser = parser_for(kind, settings, page_batches)
    return parser.parse(path, settings, Path(artifacts_dir), progress=progress, file_name=file_name)
