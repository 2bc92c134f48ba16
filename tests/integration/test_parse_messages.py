"""A parse warning in the page's language: it runs the PDF layout analysis, so it lives here, not in the unit
folder (the fast loop)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core.config import Settings


def _in(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import rag_app.ui.i18n

    monkeypatch.setattr(rag_app.ui.i18n, "lang", lambda: lang)


def test_a_page_warning_stored_with_a_document_is_shown_in_french(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A parse warning is stored as English text with the document; the import's result shows it translated."""
    import pymupdf

    from rag_app.ui.i18n import user_message
    from rag_core.parsing import parse
    from tests.parsing_support import with_parsing

    path = tmp_path / "scan.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "A page with text", fontsize=12)
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 60), 0)
    pix.clear_with(200)
    doc.new_page().insert_image(pymupdf.Rect(100, 100, 400, 400), pixmap=pix)  # a page without text layer
    doc.save(path)
    parsed = parse(path, with_parsing(Settings(data_dir=tmp_path / "data"), ocr=False), tmp_path / "artifacts")
    (warning,) = parsed.warnings
    _in("fr", monkeypatch)
    assert user_message(warning) == (
        "La page 2 n'a pas de couche texte et l'OCR est désactivé (RAG_PARSING__OCR) ; son contenu ne peut pas "
        "être recherché."
    )
