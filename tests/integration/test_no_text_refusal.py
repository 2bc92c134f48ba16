"""A file is refused for "no text" only when neither its text layer nor OCR gave a single character.

Through the façade's `ingest`, on PDFs the tests build: a form whose text the layout model calls a
picture and a page whose only text is its footer are ingested; a page with nothing but a drawn
rectangle is refused as having no text. A parse that read characters but gave no passage is
never told it has no text.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
from docling_core.types.doc import ContentLayer, DocItemLabel, DoclingDocument

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.ingestion import no_children_error, read_characters
from rag_core.models import IngestResult
from tests import unseen_pdfs

NO_TEXT = "No text could be read from this file"
LOCAL = Principal.local_operator()


def _ingest(path: Path, settings: Settings) -> IngestResult:
    (result,) = pipeline.ingest([path], settings, principal=LOCAL)
    return result


def test_text_the_layout_calls_a_picture_or_a_footer_is_ingested(tmp_path: Path, settings: Settings) -> None:
    for make in (unseen_pdfs.picture_form, unseen_pdfs.footer_only):
        result = _ingest(make(tmp_path / f"{make.__name__}.pdf"), settings)
        assert result.status == "ingested", (make.__name__, result.message)
        assert NO_TEXT not in result.message


def test_a_page_without_a_character_is_refused_as_having_no_text(tmp_path: Path, settings: Settings) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_rect(pymupdf.Rect(100, 100, 300, 200), color=(0, 0, 0), width=2)
    doc.save(tmp_path / "frame.pdf")
    result = _ingest(tmp_path / "frame.pdf", settings)
    assert result.status == "refused" and NO_TEXT in result.message, result


def test_characters_read_but_no_passage_is_not_called_no_text() -> None:
    doc = DoclingDocument(name="furniture")
    assert read_characters(doc) == 0 and NO_TEXT in str(no_children_error(doc))
    doc.add_text(label=DocItemLabel.PAGE_FOOTER, text="Page 7", content_layer=ContentLayer.FURNITURE)
    assert read_characters(doc) == 6
    message = str(no_children_error(doc))
    assert NO_TEXT not in message and "6 characters" in message
