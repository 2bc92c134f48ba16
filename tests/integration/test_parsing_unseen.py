"""Layouts the PDF parser was not tuned on (PDFs built by tests/unseen_pdfs.py): text inside
"pictures", the "no text" refusal, two-page spreads, right-to-left text, decoration pictures."""

from __future__ import annotations

from pathlib import Path

import pytest
from docling_core.types.doc import ContentLayer, DocItemLabel, PictureItem, TextItem

from rag_core import chunking
from rag_core.config import Settings
from rag_core.parsing import ParsedDocument
from rag_core.parsing.layout_text import line_from_spans
from tests import unseen_pdfs
from tests.parse_cache import ParseCache


def _settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"parsing": settings.parsing.model_copy(update={"backend": "pymupdf"})})


def _parse(name: str, tmp_path: Path, settings: Settings, cache: ParseCache) -> ParsedDocument:
    """The parse of the PDF `name` builds, shared with test_parsing_golden.py's (one build, one parse a run)."""
    pdf = cache.file(f"{name}.pdf", unseen_pdfs.BUILDERS[name])
    return cache.parse(pdf, _settings(settings), tmp_path / "artifacts")


def _texts(parsed: ParsedDocument) -> list[TextItem]:
    return [item for item, _ in parsed.document.iterate_items(traverse_pictures=True) if isinstance(item, TextItem)]


def _pictures(parsed: ParsedDocument) -> list[PictureItem]:
    return [item for item, _ in parsed.document.iterate_items() if isinstance(item, PictureItem)]


def test_a_form_the_layout_model_calls_a_picture_is_text(
    tmp_path: Path, settings: Settings, parse_cache: ParseCache
) -> None:
    parsed = _parse("picture_form", tmp_path, settings, parse_cache)
    texts = {t.text for t in _texts(parsed)}
    for i in range(12):
        assert f"Field {i + 1}: policy holder name and address, contract number {1000 + i}" in texts
    assert not _pictures(parsed)  # mostly text: not a picture
    chunked = chunking.build_chunks(parsed.document, "f" * 20, _settings(settings))
    indexed = " ".join(c.text for c in chunked.children)
    assert "contract number 1011" in indexed
    boxes = [b for c in chunked.children for b in c.boxes if 400 < b.y0 < 430]
    assert boxes and all(70 < b.x0 < 90 for b in boxes)  # "Field 12" is highlighted where it is printed


def test_text_inside_a_picture_becomes_its_children(
    tmp_path: Path, settings: Settings, parse_cache: ParseCache
) -> None:
    parsed = _parse("picture_chart", tmp_path, settings, parse_cache)
    doc = parsed.document
    chart = next(p for p in _pictures(parsed) if p.prov[0].bbox.t > 300)
    children = [ref.resolve(doc) for ref in chart.children]
    labels = {c.text: c for c in children if isinstance(c, TextItem) and c.label == DocItemLabel.TEXT}
    assert set(labels) == {"Cumulative paid claims", "Development year"}
    box = labels["Development year"].prov[0].bbox
    assert 295 < box.l < 305 and 620 < box.b < 640
    chunked = chunking.build_chunks(doc, "c" * 20, _settings(settings))
    holder = next(c for c in chunked.children if "Development year" in c.text)
    assert any(295 < b.x0 < 305 and 620 < b.y1 < 640 for b in holder.boxes)
    item = next(i for p in chunked.parents for i in p.items if i.ref == chart.self_ref)
    assert item.inner_text == "Cumulative paid claims\nDevelopment year"  # what Inspect shows under the figure


def test_a_header_band_picture_has_the_logo_box_and_its_text_is_text(
    tmp_path: Path, settings: Settings, parse_cache: ParseCache
) -> None:
    parsed = _parse("picture_chart", tmp_path, settings, parse_cache)
    top = [p.prov[0].bbox for p in _pictures(parsed) if p.prov[0].bbox.t < 150]
    assert len(top) == 1
    assert (round(top[0].l), round(top[0].t), round(top[0].r), round(top[0].b)) == (50, 30, 130, 110)
    assert "MUTUELLE DES ACTUAIRES" in {t.text for t in _texts(parsed)}


def test_text_only_in_a_footer_is_indexed_rather_than_refused(
    tmp_path: Path, settings: Settings, parse_cache: ParseCache
) -> None:
    parsed = _parse("footer_only", tmp_path, settings, parse_cache)
    chunked = chunking.build_chunks(parsed.document, "p" * 20, _settings(settings))
    assert [c.text for c in chunked.children] == ["Page 7"]  # ingestion refuses only when there is no child


def test_a_two_page_spread_reads_the_left_page_then_the_right(
    tmp_path: Path, settings: Settings, parse_cache: ParseCache
) -> None:
    parsed = _parse("spread_scan", tmp_path, settings, parse_cache)  # OCR: the sheet has no text layer
    stream = " ".join(t.text for t in _texts(parsed))
    order = [stream.find(f"{side}{n:02d} ") for side in "LR" for n in range(1, 31)]
    found = [pos for pos in order if pos >= 0]
    assert len(found) >= 50, stream[:300]  # OCR read the line numbers
    assert found == sorted(found), stream[:600]


def test_arabic_ligatures_and_word_order(tmp_path: Path, settings: Settings, parse_cache: ParseCache) -> None:
    if not unseen_pdfs.DEJAVU.is_file():
        pytest.fail(f"{unseen_pdfs.DEJAVU} is missing: install fonts-dejavu-core (make install does)")
    parsed = _parse("arabic", tmp_path, settings, parse_cache)
    texts = [t.text for t in _texts(parsed)]
    assert texts == [unseen_pdfs.ARABIC_LINE, unseen_pdfs.ARABIC_LINE]


def test_right_to_left_spans_are_read_right_to_left_with_spaces() -> None:
    spans = [
        {"text": "فعالة", "bbox": (100, 0, 140, 12), "size": 12},
        {"text": "تعتبر", "bbox": (143, 0, 180, 12), "size": 12},
    ]
    assert line_from_spans(spans, (100, 0, 180, 12)).text == "تعتبر فعالة"
    latin = [
        {"text": "loss", "bbox": (100, 0, 120, 12), "size": 12},
        {"text": "ratio", "bbox": (123, 0, 150, 12), "size": 12},
    ]
    assert line_from_spans(latin, (100, 0, 150, 12)).text == "loss ratio"


def test_edge_strips_repeated_on_every_page_are_not_pictures(
    tmp_path: Path, settings: Settings, parse_cache: ParseCache
) -> None:
    parsed = _parse("decorated", tmp_path, settings, parse_cache)
    boxes = [(p.prov[0].page_no, round(p.prov[0].bbox.l), round(p.prov[0].bbox.r)) for p in _pictures(parsed)]
    assert boxes == [(1, 60, 110), (2, 60, 110), (3, 60, 110)]  # the logos stay, the strips go
    body = [t for t in _texts(parsed) if t.content_layer == ContentLayer.BODY]
    assert sum("paragraph" in t.text for t in body) == 15


def test_a_heading_printed_as_images_of_its_lines_is_read_from_their_replacement_text(
    tmp_path: Path, settings: Settings, parse_cache: ParseCache
) -> None:
    parsed = _parse("image_headings", tmp_path, settings, parse_cache)
    headers = {t.text: t for t in _texts(parsed) if t.label == DocItemLabel.SECTION_HEADER}
    first, second = unseen_pdfs.IMAGE_HEADINGS
    assert first in headers and second in headers
    assert headers[first].prov[0].page_no == 2 and headers[second].prov[0].page_no == 3
    box = headers[first].prov[0].bbox  # over all its line images (16 pt each from y=90), where it is printed
    bottom = 90 + 16 * len(unseen_pdfs.heading_lines(first))
    assert 70 < box.l < 75 and abs(min(box.t, box.b) - 90) < 2 and abs(max(box.t, box.b) - bottom) < 2
    assert not _pictures(parsed)  # the images are the heading's lines, not figures
    chunked = chunking.build_chunks(parsed.document, "h" * 20, _settings(settings))
    under = [p for p in chunked.parents if "predominate" in p.text and 3 in p.pages]
    assert under and under[0].heading_path[-1] == second  # the passage is labelled with its chapter


def test_replacement_texts_survive_an_earlier_layout_analysis_of_the_same_document(tmp_path: Path) -> None:
    import pymupdf

    from rag_core.parsing.layout_runtime import document_layout
    from rag_core.parsing.replacement_text import read_replacement_texts

    layout = document_layout()  # the layout models active, as in a parse (rag_core.deferred_import)
    pdf = unseen_pdfs.image_headings(tmp_path / "image_headings.pdf")
    with pymupdf.open(pdf) as doc:
        list(layout.parse_document(doc, pages=[0], use_ocr=layout.OCRMode.NEVER).pages)
        # a batch analysed earlier in this process: the document's own pages no longer give the text
        read = read_replacement_texts(doc, [1, 2])
    assert [text for _box, text in read[1] + read[2]] == list(unseen_pdfs.IMAGE_HEADINGS)
