"""Docling backends: the full PDF pipeline (layout + TableFormer) and the simple pipeline.

The full pipeline needs model artefacts on disk (`settings.parsing.docling_artifacts_path`):
without them it raises `BackendUnavailable` at once, before Docling can try the model hub.
The simple pipeline (DOCX, PPTX, HTML, Markdown) needs no model and works offline; those
documents have no page provenance.
"""

from __future__ import annotations

import logging
from io import BytesIO
from pathlib import Path

from rag_core.config import Settings
from rag_core.errors import BackendUnavailable, InputError
from rag_core.messages import message
from rag_core.parsing.base import ParsedDocument, Progress, library_versions

log = logging.getLogger(__name__)

NAME = "docling"
SIMPLE_NAME = "docling-simple"
_SETTING = "RAG_PARSING__DOCLING_ARTIFACTS_PATH"
# Folders `docling-tools models download` writes for the default layout model (heron) and
# TableFormer; checked by name so a missing model fails here, at once, not at the hub.
# (Importing docling's option classes to read them costs ~10 s of torch import.)
REQUIRED_MODEL_FOLDERS = ("docling-project--docling-layout-heron", "docling-project--docling-models")


def missing_artifacts(settings: Settings) -> str | None:
    """Why the full pipeline cannot run now, or None when its models are on disk."""
    why = _why_missing(settings)
    return message(why[0], **why[1]) if why else None


def _why_missing(settings: Settings) -> tuple[str, dict[str, object]] | None:
    """The message key and values of `missing_artifacts`."""
    path = settings.parsing.docling_artifacts_path
    if path is None:
        return "backend.docling_unset", {"setting": _SETTING}
    path = Path(path).expanduser()
    if not path.is_dir():
        return "backend.docling_no_folder", {"path": path, "setting": _SETTING}
    missing = [name for name in REQUIRED_MODEL_FOLDERS if not (path / name).is_dir()]
    if missing:
        return "backend.docling_lacks", {"path": path, "missing": ", ".join(missing), "setting": _SETTING}
    return None


def options(settings: Settings) -> dict:
    return {
        "backend": NAME,
        "do_table_structure": True,
        "ocr": settings.parsing.ocr,
        "artifacts_path": str(settings.parsing.docling_artifacts_path or ""),
    }


class DoclingPdfParser:
    """Docling's full PDF pipeline, from local artefacts only."""

    name = NAME

    def parse(
        self,
        path: Path,
        settings: Settings,
        artifacts_dir: Path,
        progress: Progress | None = None,
        file_name: str | None = None,
    ) -> ParsedDocument:
        why = _why_missing(settings)
        if why:
            raise BackendUnavailable.of(why[0], **why[1])
        from docling.datamodel.base_models import InputFormat
        from docling.datamodel.pipeline_options import PdfPipelineOptions
        from docling.document_converter import DocumentConverter, PdfFormatOption

        pipeline = PdfPipelineOptions(
            artifacts_path=settings.parsing.docling_artifacts_path, do_table_structure=True, do_ocr=settings.parsing.ocr
        )
        converter = DocumentConverter(
            allowed_formats=[InputFormat.PDF],
            format_options={InputFormat.PDF: PdfFormatOption(pipeline_options=pipeline)},
        )
        name = file_name or path.name
        document = _convert(converter, path, Path(name).stem + ".pdf")
        pages = len(document.pages)
        if progress is not None:
            progress(pages, pages)
        return ParsedDocument(
            document=document,
            parser=NAME,
            options=options(settings),
            versions=library_versions(),
            pages=pages,
            warnings=[],
            title=_title(document, name),
        )


class DoclingSimpleParser:
    """DOCX, PPTX, HTML and Markdown through Docling's model-free backends."""

    name = SIMPLE_NAME

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def parse(
        self,
        path: Path,
        settings: Settings,
        artifacts_dir: Path,
        progress: Progress | None = None,
        file_name: str | None = None,
    ) -> ParsedDocument:
        from docling.datamodel.base_models import InputFormat
        from docling.document_converter import DocumentConverter

        formats = {"docx": InputFormat.DOCX, "pptx": InputFormat.PPTX, "html": InputFormat.HTML, "md": InputFormat.MD}
        converter = DocumentConverter(allowed_formats=[formats[self.kind]])
        name = file_name or path.name
        document = _convert(converter, path, f"{Path(name).stem}.{self.kind}")
        pages = len(document.pages)
        if progress is not None:
            progress(1, 1)
        return ParsedDocument(
            document=document,
            parser=SIMPLE_NAME,
            options={"backend": SIMPLE_NAME, "kind": self.kind},
            versions=library_versions(),
            pages=pages,
            warnings=[],
            title=_title(document, name),
        )


def _convert(converter, path: Path, stream_name: str):
    from docling.datamodel.base_models import ConversionStatus, DocumentStream

    # A stream with the right suffix: stored uploads may carry another name than the user's.
    source = DocumentStream(name=stream_name, stream=BytesIO(Path(path).read_bytes()))
    try:
        result = converter.convert(source, raises_on_error=False)
    except Exception as err:
        log.warning("docling conversion failed", exc_info=True)
        if "huggingface" in type(err).__module__ or "LocalEntryNotFound" in type(err).__name__:
            raise BackendUnavailable.of("backend.docling_load", setting=_SETTING) from None
        raise InputError.of("doc.unreadable") from None
    if result.status not in (ConversionStatus.SUCCESS, ConversionStatus.PARTIAL_SUCCESS):
        log.warning("docling conversion status %s: %s", result.status, result.errors)
        raise InputError.of("doc.unreadable")
    return result.document


def _title(document, file_name: str) -> str:
    from docling_core.types.doc import DocItemLabel, SectionHeaderItem

    first_heading = ""
    for item, _ in document.iterate_items():
        if getattr(item, "label", None) == DocItemLabel.TITLE and item.text.strip():
            return item.text.strip()
        if isinstance(item, SectionHeaderItem) and item.level == 1 and not first_heading and item.text.strip():
            first_heading = item.text.strip()
    return first_heading or Path(file_name).stem
