"""The OCR engines as the parser configures them, on real corpus pages and the real RapidOCR models.

- A table image is detected once: that detection decides whether it is a table and gives the
  crops that are read, in one recognition call.
- A page without a text layer (the CAS report's scanned page) is read by the engine the product
  gives pymupdf4llm, whose ONNX sessions run on one thread (two page processes share two cores).
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from rag_core.config import Settings
from rag_core.parsing import parse, table_images
from rag_core.parsing.document_builder import Block
from tests.parsing_support import with_parsing


def test_a_scanned_page_is_read_by_the_products_single_thread_engine(
    corpus_dir: Path, tmp_path: Path, settings: Settings
) -> None:
    from pymupdf4llm.ocr import rapidocr_391_backend as backend

    pdf = tmp_path / "scan.pdf"
    with pymupdf.open(corpus_dir / "en_CAS_tail_factor_working_party_2013.pdf") as doc:
        doc.select([81])  # page 82: an image, no text layer
        doc.save(pdf)
    with pymupdf.open(pdf) as doc:
        assert not doc[0].get_text().strip()
    parsed = parse(pdf, with_parsing(settings, workers=1), tmp_path / "artifacts")
    text = " ".join(t.text for t in parsed.document.texts)
    assert "tail" in text.lower()
    engine = backend.ENGINE
    assert getattr(engine, "_rag_product", False)
    for part in (engine.text_det, engine.text_rec):
        assert part.session.session.get_session_options().intra_op_num_threads == 1


class _CountingEngine:
    """The real RapidOCR engine of `table_images`, counting its detections and recognitions."""

    def __init__(self, engine) -> None:
        self.engine, self.detections, self.recognitions = engine, 0, 0

    def __call__(self, image, **kwargs):
        self.detections += bool(kwargs.get("use_det", True))
        self.recognitions += bool(kwargs.get("use_rec", True))
        return self.engine(image, **kwargs)

    def recognize_txt(self, crops):
        self.recognitions += 1
        return self.engine.recognize_txt(crops)


def test_a_table_image_is_detected_once_and_its_crops_recognised_together(
    corpus_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One detection of the picture decides whether it is a table and gives the crops that are
    read (a detection at a second resolution cost as much again: the detector scales both to 736 px)."""
    counting = _CountingEngine(table_images._get_engine())
    monkeypatch.setattr(table_images, "_get_engine", lambda: counting)
    with pymupdf.open(corpus_dir / "fr_rapport_provisionnement_non_vie_triangles_cadences.pdf") as doc:
        page = doc[3]
        bbox = tuple(page.get_image_info()[0]["bbox"])  # "Figure 1.1 - Triangle des ouvertures"
        block = table_images.read_table_picture(page, Block("picture", 4, bbox))
    assert (counting.detections, counting.recognitions) == (1, 1)
    assert block is not None and block.kind == "table" and (block.n_rows, block.n_cols) == (11, 11)
    texts = {(c.row, c.col): c.text for c in block.cells}
    assert [texts[(1, c)] for c in range(4)] == ["2005", "31 116", "33 092", "33 280"]
