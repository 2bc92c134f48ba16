"""The unit folder's guard (tests/unit/conftest.py): a unit test that reaches the PDF layout analysis fails at
once with where it belongs, whatever fallback the parser has for a failing page."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from rag_core.config import Settings
from rag_core.parsing import parse


def test_a_pdf_parse_in_the_unit_folder_fails_naming_where_it_belongs(tmp_path: Path) -> None:
    path = tmp_path / "one.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "One line of text", fontsize=12)
    doc.save(path)
    with pytest.raises(pytest.fail.Exception, match="move this test to tests/integration"):
        parse(path, Settings(data_dir=tmp_path / "data"), tmp_path / "artifacts")
