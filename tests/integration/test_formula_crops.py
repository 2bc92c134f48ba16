"""A formula the text layer garbled, on a real corpus page: its passage is recognised as garbled and the
façade crops its boxes as a PNG of the expected size, for a reader of its collection only; the clean
prose, tables and formulas of corpus documents are never taken for garbled."""

from __future__ import annotations

import struct
from pathlib import Path

import pymupdf
import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.citations import build_sources
from rag_core.config import Settings
from rag_core.errors import NotFoundError
from rag_core.models import Child
from rag_core.parsing.unicode_text import clean_text

ADMIN = Principal.local_operator()
READER = Principal("alice@example.org", frozenset({"actuaries"}))
OUTSIDER = Principal("bob@example.org")
MACK_SLIDES = "fr_slides_provisionnement_IARD.pdf"
MACK_PAGE = 23  # Mack's hypotheses: "i̸ = i′" and "E [Cij | …]" whose brackets the text layer loses
CLEAN_PDFS = (  # prose, tables of figures and clean formulas, in French and English
    "en_Mack2008_prediction_error_Bornhuetter_Ferguson.pdf",
    "en_actuar_credibility_theory.pdf",
    "fr_rapport_provisionnement_non_vie_ChainLadder_Mack_Bootstrap.pdf",
    "fr_rapport_provisionnement_non_vie_triangles_cadences.pdf",
)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def library(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, str, list[Child]]:
    """The corpus page ingested alone (a one-page PDF cut from the real one), in a collection "actuaries" read."""
    root = tmp_path_factory.mktemp("formula-crops")
    with pymupdf.open(corpus_dir / MACK_SLIDES) as src, pymupdf.open() as out:
        out.insert_pdf(src, from_page=MACK_PAGE - 1, to_page=MACK_PAGE - 1)
        out.save(root / "mack_hypotheses.pdf")
    settings = Settings(data_dir=root / "data")
    (result,) = pipeline.ingest([root / "mack_hypotheses.pdf"], settings, collection="maths", principal=ADMIN)
    assert result.status == "ingested", result.message
    pipeline.grant(settings, "maths", principal=ADMIN, group="actuaries", role="read")
    children = pipeline.load_chunks(result.doc_id, settings, principal=ADMIN).children
    return settings, result.doc_id, children


def test_the_real_garbled_passage_is_recognised_and_its_neighbour_is_not(library) -> None:
    _, _, children = library
    garbled = [c for c in children if pipeline.garbled_maths(c.text)]
    assert len(garbled) == 1 and "indépendants pour" in garbled[0].text
    assert "\ufffd" in garbled[0].text  # what the reader would have seen: "E �Cij | …�"
    assert any(not pipeline.garbled_maths(c.text) and len(c.text) > 40 for c in children)


def test_the_crop_is_the_passage_boxes_as_printed(library) -> None:
    settings, doc_id, children = library
    child = next(c for c in children if pipeline.garbled_maths(c.text))
    boxes = [b for b in child.boxes if b.page == child.boxes[0].page]
    data = pipeline.region_image(doc_id, child.boxes, settings, principal=READER, margin=4.0)
    x0, y0 = min(b.x0 for b in boxes) - 4, min(b.y0 for b in boxes) - 4
    x1, y1 = max(b.x1 for b in boxes) + 4, max(b.y1 for b in boxes) + 4
    with pymupdf.open(pipeline.source_path(doc_id, settings, principal=ADMIN)) as pdf:
        page = pdf[0].rect
    x0, y0, x1, y1 = max(x0, page.x0), max(y0, page.y0), min(x1, page.x1), min(y1, page.y1)
    width, height = png_size(data)
    assert abs(width - 2 * (x1 - x0)) <= 2 and abs(height - 2 * (y1 - y0)) <= 2  # drawn at 144 dpi
    assert width < 2 * page.width and height < 2 * page.height / 2  # a region, not the page


def test_a_quote_crops_its_own_lines(library) -> None:
    """An answer's paragraph quotes one sentence of the passage: the crop is of that sentence's lines only."""
    settings, doc_id, children = library
    found = pipeline.search("hypothèses du modèle de Mack indépendants", settings, k=3, principal=ADMIN)
    source = next(s for s in build_sources(found, 3) if s.kind == "parent" and pipeline.garbled_maths(s.text))
    quote = "les mêmes que ceux de Chain-Ladder."  # the end of the page's closing sentence
    quoted = pipeline.crop_boxes(source, quote)
    whole = pipeline.crop_boxes(source)
    assert quoted and set(quoted) < set(whole)  # a few lines of the passage
    assert len({b.page for b in quoted}) == 1
    formula = pipeline.crop_boxes(source, "E \ufffdCij | Ci1, . . . , Ci(j\u22121)\ufffd")
    assert formula and max(b.y1 for b in formula) <= min(b.y0 for b in quoted) + 1  # the formula's line, above


def test_a_paragraph_crops_its_whole_text_before_its_quote(library) -> None:
    """An answer's paragraph holds more than its quote (the formula an announcing line brought in): the crop
    is of the paragraph's lines when the passage holds them, else of the quote's."""
    settings, _, _ = library
    found = pipeline.search("hypothèses du modèle de Mack indépendants", settings, k=3, principal=ADMIN)
    source = next(s for s in build_sources(found, 3) if s.kind == "parent" and pipeline.garbled_maths(s.text))
    quote = "λj−1Ci(j−1), pour j = 2, . . . , J"  # the second hypothesis's end
    paragraph = (
        "(Ci′j)j=1,...,J sont indépendants pour i\u0338 = i′ (2) E \ufffdCij | Ci1, . . . , Ci(j−1)\ufffd = " + quote
    )
    quoted = pipeline.crop_boxes(source, quote)
    whole = pipeline.crop_boxes(source, paragraph, quote)
    assert set(quoted) < set(whole) and min(b.y0 for b in whole) < min(b.y0 for b in quoted)  # the lines above too
    assert pipeline.crop_boxes(source, "no line of this page says this", quote) == quoted


def test_a_principal_who_may_not_read_gets_no_crop(library) -> None:
    settings, doc_id, children = library
    child = next(c for c in children if pipeline.garbled_maths(c.text))
    with pytest.raises(NotFoundError):
        pipeline.region_image(doc_id, child.boxes, settings, principal=OUTSIDER)
    with pytest.raises(NotFoundError):  # a forged id is "not found" like an unreadable one
        pipeline.region_image("0" * 64, child.boxes, settings, principal=ADMIN)
    with pytest.raises(NotFoundError):  # no box: nothing to crop
        pipeline.region_image(doc_id, [], settings, principal=READER)


def test_a_document_that_is_not_a_pdf_has_no_crop(library, tmp_path: Path) -> None:
    """A Markdown file prints no page: whatever boxes are asked for, no crop (and no error of the renderer)."""
    settings, _, children = library
    note = tmp_path / "note.md"
    note.write_text("# Mack\n\nLes estimateurs sont indépendants pour i\u0338 = j.\n", encoding="utf-8")
    (result,) = pipeline.ingest([note], settings, collection="maths", principal=ADMIN)
    assert result.status == "ingested", result.message
    with pytest.raises(NotFoundError):
        pipeline.region_image(result.doc_id, children[0].boxes, settings, principal=READER)


@pytest.mark.parametrize("name", CLEAN_PDFS)
def test_clean_corpus_text_is_never_taken_for_garbled(corpus_dir: Path, name: str) -> None:
    """Every text block of these documents (as the parser cleans the text layer's characters)."""
    flagged = []
    with pymupdf.open(corpus_dir / name) as pdf:
        blocks = [clean_text(block[4]) for page in pdf for block in page.get_text("blocks")]
    flagged = [text for text in blocks if pipeline.garbled_maths(text)]
    assert len(blocks) > 100 and flagged == []
