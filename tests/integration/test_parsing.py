"""Parsing on PDFs generated here with PyMuPDF and on small real ones: structure, provenance, refusals."""

from __future__ import annotations

import sys
from pathlib import Path

import pymupdf
import pytest
from docling_core.types.doc import (
    ContentLayer,
    DocItemLabel,
    DoclingDocument,
    FormulaItem,
    ListItem,
    PictureItem,
    SectionHeaderItem,
    TableItem,
    TextItem,
)

from rag_core.config import Settings
from rag_core.errors import BackendUnavailable, InputError
from rag_core.parsing import ParsedDocument, parse, parser_signature, resolve_pdf_backend, validate_file
from rag_core.parsing.layout_text import Line, join_lines, line_from_spans, split_bullet
from tests.parse_cache import ParseCache
from tests.parsing_support import check_invariants, with_parsing

LOREM = (
    "The chain ladder method estimates outstanding claims from cumulative payments. "
    "Development factors are the ratios of successive cumulative amounts, weighted by volume. "
)


def roundtrip(doc: DoclingDocument, tmp_path: Path) -> DoclingDocument:
    from docling_core.types.doc import ImageRefMode

    target = tmp_path / "document.json"
    doc.save_as_json(target, image_mode=ImageRefMode.PLACEHOLDER)
    loaded = DoclingDocument.load_from_json(target)
    assert loaded.export_to_dict() == doc.export_to_dict()
    return loaded


@pytest.fixture(scope="module")
def report_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two pages: title, nested numbered headings, paragraphs, a bullet list, a table, a footer."""
    path = tmp_path_factory.mktemp("pdf") / "report.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    y = 60
    page.insert_text((72, y), "Reserving Report 2025", fontsize=22, fontname="hebo")
    y += 50
    for number, heading, size in (("1", "Claims data", 16), ("1.1", "Payment triangles", 13)):
        page.insert_text((72, y), f"{number} {heading}", fontsize=size, fontname="hebo")
        y += 22
        rect = pymupdf.Rect(72, y, 520, y + 80)
        page.insert_textbox(rect, LOREM * 2, fontsize=10)
        y += 95
    for bullet in ("Paid claims by accident year", "Incurred claims by accident year"):
        page.insert_text((80, y), f"• {bullet}", fontsize=10)
        y += 16
    y += 20
    page.insert_text((72, y), "Table 1: Cumulative payments", fontsize=10, fontname="hebo")
    y += 8
    rows = [
        ["Year", "Dev 1", "Dev 2", "Dev 3"],
        ["2021", "100", "150", "170"],
        ["2022", "110", "160", "180"],
        ["2023", "120", "175", "190"],
    ]
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            cell = pymupdf.Rect(72 + c * 90, y + r * 20, 162 + c * 90, y + (r + 1) * 20)
            page.draw_rect(cell, color=(0, 0, 0), width=0.7)
            page.insert_text((cell.x0 + 5, cell.y1 - 6), text, fontsize=10)
    for pno in (1, 2):
        if pno == 2:
            page = doc.new_page()
            page.insert_text((72, 72), "2 Method", fontsize=16, fontname="hebo")
            page.insert_textbox(pymupdf.Rect(72, 90, 520, 200), LOREM * 2, fontsize=10)
        page.insert_text((280, 800), f"Page {pno}", fontsize=8)
    doc.save(path)
    return path


@pytest.fixture(scope="module")
def parsed_report(report_pdf: Path, tmp_path_factory: pytest.TempPathFactory) -> ParsedDocument:
    settings = Settings(data_dir=tmp_path_factory.mktemp("data"))
    return parse(report_pdf, settings, tmp_path_factory.mktemp("doc") / "artifacts")


def test_headings_have_levels_and_nest(parsed_report: ParsedDocument) -> None:
    doc = parsed_report.document
    headings = {h.text: h for h in doc.texts if isinstance(h, SectionHeaderItem)}
    assert headings["1 Claims data"].level == 1
    assert headings["1.1 Payment triangles"].level == 2
    assert headings["2 Method"].level == 1
    # 1.1's SECTION group sits inside 1's SECTION group: a two-level heading path
    inner_group = headings["1.1 Payment triangles"].parent.resolve(doc)
    outer_group = inner_group.parent.resolve(doc)
    assert outer_group.children[0].resolve(doc) is headings["1 Claims data"]
    assert parsed_report.title == "Reserving Report 2025"


def test_paragraphs_lists_and_furniture(parsed_report: ParsedDocument) -> None:
    doc = parsed_report.document
    body = [t for t in doc.texts if t.label == DocItemLabel.TEXT]
    assert any("weighted by volume. The chain ladder" in t.text for t in body), "lines of a paragraph are joined"
    items = [t for t in doc.texts if isinstance(t, ListItem)]
    assert [i.text for i in items] == ["Paid claims by accident year", "Incurred claims by accident year"]
    furniture = [t for t in doc.texts if t.content_layer == ContentLayer.FURNITURE]
    assert {t.text for t in furniture} >= {"Page 1", "Page 2"}
    assert all(t.label == DocItemLabel.PAGE_FOOTER for t in furniture if t.text.startswith("Page"))


def test_table_grid_and_caption(parsed_report: ParsedDocument) -> None:
    doc = parsed_report.document
    assert len(doc.tables) == 1
    table: TableItem = doc.tables[0]
    assert (table.data.num_rows, table.data.num_cols) == (4, 4)
    grid = [[cell.text for cell in row] for row in table.data.grid]
    assert grid[0] == ["Year", "Dev 1", "Dev 2", "Dev 3"]
    assert grid[3] == ["2023", "120", "175", "190"]
    assert all(cell.bbox is not None for cell in table.data.table_cells)
    assert table.caption_text(doc) == "Table 1: Cumulative payments"


def test_provenance_and_roundtrip(parsed_report: ParsedDocument, tmp_path: Path) -> None:
    check_invariants(parsed_report)
    paragraph = next(t for t in parsed_report.document.texts if t.label == DocItemLabel.TEXT and len(t.prov) > 2)
    assert len({p.bbox.t for p in paragraph.prov}) == len(paragraph.prov), "one provenance per line"
    roundtrip(parsed_report.document, tmp_path)


def test_signature_and_options(parsed_report: ParsedDocument, settings: Settings) -> None:
    assert parsed_report.parser == "pymupdf"
    assert parsed_report.options["ocr"] is True
    assert set(parsed_report.versions) == {"pymupdf", "pymupdf4llm", "docling", "docling-core"}
    other = with_parsing(settings, ocr=False)
    assert parser_signature(settings) != parser_signature(other)
    assert parser_signature(settings) == parser_signature(settings)


def test_picture_crop_saved_with_caption(tmp_path: Path, settings: Settings) -> None:
    path = tmp_path / "figure.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Development pattern", fontsize=16, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 90, 520, 150), LOREM, fontsize=10)
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 120), 0)
    for x in range(200):
        for y in range(120):
            pix.set_pixel(x, y, (x % 256, (y * 2) % 256, 120))
    page.insert_image(pymupdf.Rect(150, 200, 450, 380), pixmap=pix)
    page.insert_text((150, 398), "Figure 1: Cumulative development factors", fontsize=10)
    doc.save(path)
    artifacts = tmp_path / "doc" / "artifacts"
    parsed = parse(path, settings, artifacts)
    pictures = parsed.document.pictures
    assert len(pictures) == 1
    uri = Path(str(pictures[0].image.uri))
    assert uri.parts[0] == "artifacts" and (artifacts.parent / uri).is_file()
    assert (artifacts.parent / uri).read_bytes()[:4] == b"\x89PNG"
    assert pictures[0].caption_text(parsed.document) == "Figure 1: Cumulative development factors"
    check_invariants(parsed)
    roundtrip(parsed.document, tmp_path)


def test_image_only_page_warns(tmp_path: Path, settings: Settings) -> None:
    path = tmp_path / "scan.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "A page with text", fontsize=12)
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 60), 0)
    pix.clear_with(200)
    page.insert_image(pymupdf.Rect(100, 100, 400, 400), pixmap=pix)
    doc.save(path)
    off = with_parsing(settings, ocr=False)
    parsed = parse(path, off, tmp_path / "a")
    assert parsed.warnings == [
        "Page 2 has no text layer and OCR is off (RAG_PARSING__OCR); its content cannot be searched."
    ]
    parsed = parse(path, settings, tmp_path / "b")  # a blank grey image: OCR finds nothing
    assert parsed.warnings == ["Page 2 has no text layer; OCR found no text."]
    check_invariants(parsed)


def test_progress_reports_every_page(report_pdf: Path, settings: Settings, tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []
    parse(report_pdf, settings, tmp_path / "artifacts", progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 2), (2, 2)]


# ---- text assembly -------------------------------------------------------------------------


def test_lost_spaces_are_restored_and_hyphens_joined() -> None:
    spans = [
        {"text": "Chain", "size": 10, "bbox": (0, 0, 25, 10)},
        {"text": "ladder", "size": 10, "bbox": (28, 0, 55, 10)},
        {"text": "s", "size": 10, "bbox": (55.5, 0, 60, 10)},
    ]
    assert line_from_spans(spans, (0, 0, 60, 10)).text == "Chain ladders"
    joined = join_lines(
        [
            Line("the actu-", (0, 0, 1, 1)),
            Line("arial method", (0, 2, 1, 3)),
            Line("2-", (0, 4, 1, 5)),
            Line("Year", (0, 6, 1, 7)),
        ]
    )
    assert joined.text == "the actuarial method 2- Year"
    assert [joined.text[s:e] for s, e, _ in joined.spans] == ["the actu", "arial method", "2-", "Year"]
    assert split_bullet([Line("• Paid claims", (0, 0, 1, 1))])[0] == "•"
    assert split_bullet([Line("1. Paid claims", (0, 0, 1, 1))])[0] is None


# ---- refusals ------------------------------------------------------------------------------


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _assert_refused(path: Path, settings: Settings, expected: str, tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        parse(path, settings, tmp_path / "artifacts")
    assert expected in str(err.value)


def test_bad_inputs_are_refused(report_pdf: Path, tmp_path: Path, settings: Settings) -> None:
    good = report_pdf.read_bytes()
    _assert_refused(_write(tmp_path, "empty.pdf", b""), settings, "is empty (0 bytes)", tmp_path)
    _assert_refused(_write(tmp_path, "random.pdf", bytes(range(256)) * 40), settings, "is not a PDF", tmp_path)
    _assert_refused(
        _write(tmp_path, "page.pdf", b"<!DOCTYPE html><html><body>Login</body></html>"),
        settings,
        "is a web page (HTML)",
        tmp_path,
    )
    _assert_refused(_write(tmp_path, "cut.pdf", good[:300]), settings, "damaged or incomplete", tmp_path)
    _assert_refused(_write(tmp_path, "notes.txt", b"plain text"), settings, "cannot be read", tmp_path)
    _assert_refused(
        _write(
            tmp_path,
            "zero.pdf",
            b"%PDF-1.7\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
            b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
        ),
        settings,
        "no page",
        tmp_path,
    )
    small = with_parsing(settings, max_file_mb=0.001)
    _assert_refused(report_pdf, small, "RAG_PARSING__MAX_FILE_MB", tmp_path)
    short = with_parsing(settings, max_pages=1)
    _assert_refused(report_pdf, short, "has 2 pages", tmp_path)


def test_encrypted_pdf_is_refused(report_pdf: Path, tmp_path: Path, settings: Settings) -> None:
    doc = pymupdf.open(report_pdf)
    path = tmp_path / "locked.pdf"
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    _assert_refused(
        path, settings, "This PDF is password-protected; remove the password and upload it again.", tmp_path
    )


def test_kind_comes_from_content(report_pdf: Path, tmp_path: Path, settings: Settings) -> None:
    assert validate_file(_write(tmp_path, "report.bin", report_pdf.read_bytes()), settings) == "pdf"
    assert validate_file(_write(tmp_path, "x.htm", b"<html><body><p>Hi</p></body></html>"), settings) == "html"
    assert validate_file(_write(tmp_path, "x.md", b"# Title\n\nText\n"), settings) == "md"
    assert validate_file(_write(tmp_path, "source", b"# T\n"), settings, file_name="notes.md") == "md"


# ---- backends ------------------------------------------------------------------------------


def test_docling_backend_without_artefacts_fails_fast(
    report_pdf: Path, tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert resolve_pdf_backend(settings) == "pymupdf"
    forced = with_parsing(settings, backend="docling")
    # fast: refused before Docling's converter (and its torch import, its model download) is touched
    monkeypatch.setitem(sys.modules, "docling.document_converter", None)  # importing it now raises
    with pytest.raises(BackendUnavailable, match="RAG_PARSING__DOCLING_ARTIFACTS_PATH"):
        parse(report_pdf, forced, tmp_path / "artifacts")
    empty_dir = with_parsing(forced, docling_artifacts_path=tmp_path)
    with pytest.raises(BackendUnavailable, match="RAG_PARSING__DOCLING_ARTIFACTS_PATH"):
        parse(report_pdf, empty_dir, tmp_path / "artifacts")
    auto = with_parsing(settings, docling_artifacts_path=tmp_path)
    assert resolve_pdf_backend(auto) == "pymupdf"


def test_docx_and_markdown_parse_offline(tmp_path: Path, settings: Settings) -> None:
    import docx

    word = docx.Document()
    word.add_heading("Provisions techniques", level=1)
    word.add_paragraph("Le provisionnement non-vie repose sur les triangles.")
    word.add_heading("Méthode Chain Ladder", level=2)
    table = word.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text, table.cell(1, 0).text, table.cell(1, 1).text = (
        "An",
        "Payé",
        "2021",
        "100",
    )
    word.save(tmp_path / "note.docx")
    parsed = parse(tmp_path / "note.docx", settings, tmp_path / "a")
    assert parsed.parser == "docling-simple" and parsed.title == "Provisions techniques"
    levels = {h.text: h.level for h in parsed.document.texts if isinstance(h, SectionHeaderItem)}
    assert levels.get("Méthode Chain Ladder") == 2
    assert parsed.document.tables[0].data.num_rows == 2

    md = _write(
        tmp_path,
        "guide.md",
        b"# Guide\n\n## Tail factors\n\nA tail factor extends the triangle.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    )
    parsed = parse(md, settings, tmp_path / "b")
    assert parsed.title == "Guide"
    assert any(isinstance(t, TextItem) and "tail factor extends" in t.text for t in parsed.document.texts)
    assert len(parsed.document.tables) == 1
    roundtrip(parsed.document, tmp_path)


# ---- small real PDFs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "levels"),
    [
        # the vignette's sections are all at one level: its author line under the title is no section
        ("en_actuar_coverage_modifications.pdf", 1),
        ("fr_aide_memoire_ACT2008_credibilite_provisionnement.pdf", 2),
    ],
)
def test_corpus_pdf_structure(
    name: str, levels: int, corpus_dir: Path, tmp_path: Path, settings: Settings, parse_cache: ParseCache
) -> None:
    parsed = parse_cache.parse(corpus_dir / name, settings, tmp_path / "artifacts")
    check_invariants(parsed)
    doc = parsed.document
    headings = [t for t in doc.texts if isinstance(t, SectionHeaderItem)]
    assert len(headings) >= 4 and len({h.level for h in headings}) >= levels
    assert not any("Goulet" in h.text for h in headings)  # a byline names no section
    assert any(isinstance(t, FormulaItem) for t in doc.texts)
    assert any(t.content_layer == ContentLayer.FURNITURE for t in doc.texts)
    assert all(isinstance(p, PictureItem) for p in doc.pictures)
    roundtrip(doc, tmp_path)
