"""Every corpus PDF parses with the offline backend and keeps the provenance and chunking invariants.

To fit the suite budget (under ~4 minutes on 2 cores) each PDF is cut to its first
FIRST_PAGES pages, plus the scanned pages of the CAS report so that OCR runs for real.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from docling_core.types.doc import DoclingDocument, ImageRefMode, SectionHeaderItem, TableItem

from rag_core.chunking import build_chunks
from rag_core.config import Settings
from rag_core.parsing import parse
from tests.parsing_support import assert_chunk_invariants, check_invariants

FIRST_PAGES = 3
EXTRA_PAGES = {"en_CAS_tail_factor_working_party_2013.pdf": [82]}  # image-only page: OCR finds its text


def _cut(source: Path, target: Path) -> list[int]:
    """Write the first pages (and the extra ones) of `source` to `target`; return the kept 1-based numbers."""
    with pymupdf.open(source) as doc:
        keep = sorted(set(range(1, min(doc.page_count, FIRST_PAGES) + 1)) | set(EXTRA_PAGES.get(source.name, [])))
        doc.select([p - 1 for p in keep])
        doc.save(target, garbage=3)
    return keep


def test_all_corpus_pdfs_parse(corpus_dir: Path, tmp_path: Path, settings: Settings) -> None:
    pdfs = sorted(corpus_dir.glob("*.pdf"))
    assert len(pdfs) >= 19
    headings = tables = pictures = 0
    for pdf in pdfs:
        cut = tmp_path / pdf.name
        keep = _cut(pdf, cut)
        artifacts = tmp_path / pdf.stem / "artifacts"
        parsed = parse(cut, settings, artifacts, file_name=pdf.name)
        assert parsed.pages == len(keep), pdf.name
        assert parsed.title, pdf.name
        check_invariants(parsed)
        doc = parsed.document
        # Parents partition into children, ≤ 400 tokens, boxes inside pages, table cells in one parent.
        assert_chunk_invariants(build_chunks(doc, "f" * 64, settings), doc, settings, doc_id="f" * 64)
        assert sum(len(t.text) for t in doc.texts) > 100, f"{pdf.name}: too little text"
        headings += sum(isinstance(t, SectionHeaderItem) for t in doc.texts)
        tables += sum(isinstance(t, TableItem) for t in doc.tables)
        pictures += len(doc.pictures)
        for picture in doc.pictures:
            if picture.image is not None:
                assert (artifacts.parent / str(picture.image.uri)).is_file()
        json_path = tmp_path / pdf.stem / "document.json"
        doc.save_as_json(json_path, image_mode=ImageRefMode.PLACEHOLDER)
        assert DoclingDocument.load_from_json(json_path).export_to_dict() == doc.export_to_dict()
        if pdf.name in EXTRA_PAGES:
            scanned_page = len(keep)  # the extra page is last
            ocr_text = " ".join(t.text for t in doc.texts if t.prov and t.prov[0].page_no == scanned_page)
            assert "Tail" in ocr_text or "tail" in ocr_text, f"OCR found no text on {pdf.name}: {ocr_text[:200]!r}"
            assert not parsed.warnings
    assert headings > 50 and tables >= 1 and pictures >= 5


@pytest.mark.parametrize("name", ["en_EIOPA_guidelines_undertaking_specific_parameters.pdf"])
def test_whole_small_regulation(name: str, corpus_dir: Path, tmp_path: Path, settings: Settings) -> None:
    """A whole document: guideline headings nest under their chapters, footnotes and footers kept."""
    parsed = parse(corpus_dir / name, settings, tmp_path / "artifacts")
    check_invariants(parsed)
    assert parsed.pages == 7
    levels = [t.level for t in parsed.document.texts if isinstance(t, SectionHeaderItem)]
    assert len(levels) >= 10 and max(levels) >= 2


def test_latex_accents_are_searchable(corpus_dir: Path, tmp_path: Path, settings: Settings) -> None:
    """Slides typeset with OT1 fonts write "Ann´ees": the parse and the page channel both read "Années"."""
    from rag_core.parsing.pagetext import page_texts
    from rag_core.text import fold

    cut = tmp_path / "slides.pdf"
    with pymupdf.open(corpus_dir / "fr_slides_provisionnement_IARD.pdf") as doc:
        doc.select([7])
        doc.save(cut)
    parsed = parse(cut, settings, tmp_path / "artifacts")
    chunked = build_chunks(parsed.document, "e" * 64, settings)
    indexed = " ".join(fold(child.context_text) for child in chunked.children)
    assert "annees" in indexed.split() or " annees " in f" {indexed} "
    assert "´" not in indexed and "reglement des sinistres" in indexed
    (page,) = page_texts(cut)
    assert "Années" in page and "´" not in page
