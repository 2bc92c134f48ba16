"""Tables of real PDFs: whole-word cells, header spans, captions, and tables read from pictures by OCR.

Each test parses only the pages it needs (cut with PyMuPDF). The OCR test reads the two
triangle images of one page of the triangles report (about 15-30 s on a loaded 2-core machine).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pymupdf
import pytest
from docling_core.types.doc import DocItemLabel, PictureItem, RefItem, SectionHeaderItem, TableItem
from openpyxl import load_workbook

from rag_core.chunking import build_chunks
from rag_core.config import Settings
from rag_core.parsing import parse
from rag_core.parsing.document_builder import table_source
from rag_core.pipeline.exports import table_bytes
from tests.parsing_support import check_invariants, with_parsing


def _cut(source: Path, pages: list[int], target: Path) -> Path:
    with pymupdf.open(source) as doc:
        doc.select([p - 1 for p in pages])
        doc.save(target)
    return target


def _grid(table: TableItem) -> list[list[str]]:
    return [[cell.text for cell in row] for row in table.data.grid]


def _spans(table: TableItem) -> dict[str, tuple[int, int]]:
    return {c.text: (c.row_span, c.col_span) for c in table.data.table_cells if c.row_span > 1 or c.col_span > 1}


def test_mack_tables_have_whole_words_spans_and_captions(corpus_dir: Path, tmp_path: Path, settings: Settings) -> None:
    pdf = _cut(corpus_dir / "en_Mack2008_prediction_error_Bornhuetter_Ferguson.pdf", [20, 21], tmp_path / "mack.pdf")
    parsed = parse(pdf, with_parsing(settings, workers=1), tmp_path / "artifacts")
    check_invariants(parsed)
    doc = parsed.document
    assert len(doc.tables) == 4
    captions = [[c.resolve(doc).text for c in t.captions] for t in doc.tables]
    assert captions[0] == ["Table 0, Part A. Cumulative Paid Loss Amounts"]
    assert captions[3] == ["Table 2. Reserves and Errors"]
    headings = [t.text for t in doc.texts if isinstance(t, SectionHeaderItem)]
    assert not any(h.startswith("Table") for h in headings), headings
    part_a = _grid(doc.tables[0])
    assert part_a[0][:4] == ["Acc.Year", "Premium", "Dev.Yr. 1", "2"]
    assert part_a[1][:4] == ["1992", "41020", "234", "4877"]
    assert part_a[2][-1] == "" and part_a[2][-2] == "35826"  # the triangle's empty corner stays empty
    assert part_a[13][:4] == ["2004", "226454", "2411", ""]
    reserves = doc.tables[3]
    assert _spans(reserves) == {
        "Bornh/Ferg 1": (1, 2),
        "Coeff. of Var.": (1, 3),
        "Bornh/Ferg 2": (1, 4),
        "Chain Ladder": (1, 4),
    }
    grid = _grid(reserves)
    assert grid[1][:4] == ["Year i", "Claims U", "c.v.(U)", "Reserve R"]
    assert grid[2][:4] == ["1992", "32299.9", "10.0%", "1130"]
    header_rows = {c.start_row_offset_idx for c in reserves.data.table_cells if c.column_header}
    assert header_rows == {0, 1}
    assert all(
        c.row_header for c in reserves.data.table_cells if c.start_col_offset_idx == 0 and c.start_row_offset_idx >= 2
    )
    assert {table_source(t) for t in doc.tables} == {"text layer"}
    # a long table sliced into several children: each slice carries both header rows, so it reads alone
    chunked = build_chunks(doc, "m" * 64, settings)
    slices = [c for c in chunked.children if reserves.self_ref in c.item_refs]
    assert len(slices) >= 2
    for child in slices:
        header = child.context_text[child.context_text.index("|") :].splitlines()[0]
        assert (
            "Accident - Year i" in header
            and "Bornh/Ferg 1 - Reserve R" in header
            and "Chain Ladder - Proc.Error" in header
        )
    assert any(re.search(r"\|\s*2004\s*\|", c.context_text) for c in slices[1:])  # the rows go on
    # where a table was read is bookkeeping, not table text
    assert not any("text layer" in c.context_text for c in chunked.children)
    assert not any("text layer" in item.text for p in chunked.parents for item in p.items)
    # exported in English, the figures are numbers a spreadsheet sums: "41020", "32299.9", "10.0%"
    items = {item.ref: item for p in chunked.parents for item in p.items if item.kind == "table"}
    premiums = pd.read_csv(io.StringIO(table_bytes(items[doc.tables[0].self_ref], "csv", "en").decode("utf-8")))
    assert premiums["Premium"].dtype.kind in "if" and premiums["Premium"].iloc[0] == 41020
    assert premiums["Premium"].sum() == sum(int(row[1]) for row in part_a[1:] if row[1].isdigit())
    sheet = load_workbook(io.BytesIO(table_bytes(items[reserves.self_ref], "xlsx", "en")))["table"]
    values = [cell.value for cell in next(r for r in sheet.iter_rows() if r[0].value == 1992)][:4]
    assert values[1:] == [pytest.approx(32299.9), pytest.approx(0.1), 1130]


def test_ruled_groups_and_partial_rules_make_spans(
    docling_fixtures_dir: Path, tmp_path: Path, settings: Settings
) -> None:
    parsed = parse(docling_fixtures_dir / "2305.03393v1-pg9.pdf", with_parsing(settings, workers=1), tmp_path / "a")
    (table,) = parsed.document.tables
    assert (table.data.num_rows, table.data.num_cols) == (6, 8)
    assert _spans(table) == {
        "# enc-layers": (2, 1),
        "# dec-layers": (2, 1),
        "Language": (2, 1),
        "TEDs": (1, 3),
        "mAP (0.75)": (2, 1),
        "Inference time (secs)": (2, 1),
    }
    grid = _grid(table)
    assert grid[1][3:6] == ["simple", "complex", "all"]
    assert grid[2] == ["6", "6", "OTSL HTML", "0.965 0.969", "0.934 0.927", "0.955 0.955", "0.88 0.857", "2.73 5.39"]


def _contents_page_checks(pdf: Path, tmp_path: Path, settings: Settings, entries: list[str]) -> None:
    """A contents page is navigation, not data: in the document it is Docling's own label for it,
    "document_index" (never a "table"); in the index it is no table item to cite or export, and
    its entries are searchable text, in order, highlighted on their page."""
    document = parse(pdf, with_parsing(settings, workers=1), tmp_path / "a").document
    assert document.tables and {t.label for t in document.tables} == {DocItemLabel.DOCUMENT_INDEX}
    chunked = build_chunks(document, "c" * 64, settings)
    assert not [item for p in chunked.parents for item in p.items]
    assert not any(c.item_refs for c in chunked.children)
    text = " ".join(c.text for c in chunked.children)
    assert "|" not in text  # entries as lines, not a Markdown grid
    positions = [text.find(e) for e in entries]
    assert -1 not in positions and positions == sorted(positions)
    assert all(c.boxes and c.pages == [1] for c in chunked.children)


def test_a_table_of_contents_is_a_document_index_not_a_table(
    docling_fixtures_dir: Path, tmp_path: Path, settings: Settings
) -> None:
    pdf = _cut(docling_fixtures_dir / "redp5110_sampled.pdf", [2], tmp_path / "contents.pdf")
    entries = ["Authors xi", "1.1 Security fundamentals 2", "3.1.1 Row permission and column mask definitions 14"]
    _contents_page_checks(pdf, tmp_path, settings, entries)


def test_a_wide_table_of_contents_is_a_document_index_not_a_table(
    corpus_dir: Path, tmp_path: Path, settings: Settings
) -> None:
    """The triangles report's contents page (chapter | section | title | page)."""
    pdf = _cut(corpus_dir / "fr_rapport_provisionnement_non_vie_triangles_cadences.pdf", [2], tmp_path / "toc.pdf")
    entries = ["1.1 Les triangles de liquidation", "1.2.2 Triangle des Règlements"]
    _contents_page_checks(pdf, tmp_path, settings, entries)


def test_table_images_are_read_by_ocr(corpus_dir: Path, tmp_path: Path, settings: Settings) -> None:
    pdf = _cut(corpus_dir / "fr_rapport_provisionnement_non_vie_triangles_cadences.pdf", [4], tmp_path / "tri.pdf")
    parsed = parse(pdf, with_parsing(settings, workers=1), tmp_path / "artifacts")
    check_invariants(parsed)
    doc = parsed.document
    assert len(doc.tables) == 2
    openings, payments = doc.tables
    for table in doc.tables:
        assert table_source(table) == "OCR of a picture"
        picture = RefItem(cref=table.meta.rag__picture).resolve(doc)  # linked to its picture
        assert isinstance(picture, PictureItem) and picture.image is not None
        box = picture.prov[0].bbox
        for cell in table.data.table_cells:
            if cell.text:
                assert box.l - 0.5 <= cell.bbox.l <= cell.bbox.r <= box.r + 0.5
                assert box.t - 0.5 <= cell.bbox.t <= cell.bbox.b <= box.b + 0.5
    assert [c.resolve(doc).text for c in payments.captions] == ["Figure 1.2 – Triangle des règlements"]
    grid = _grid(openings)
    assert (openings.data.num_rows, openings.data.num_cols) == (11, 11)
    # the development-year header read from the image is the header row, not a row of data
    assert grid[0] == [""] + [str(year) for year in range(1, 11)]
    assert {c.start_row_offset_idx for c in openings.data.table_cells if c.column_header} == {0}
    assert grid[1][:3] == ["2005", "31 116", "33 092"]
    assert grid[4][7:] == ["40 082", "NA", "NA", "NA"]
    grid = _grid(payments)
    assert grid[4][1] == "1 316 441.5"
    assert grid[7][2:5] == ["10 146 801.5", "12 415 451.1", "12 882 217.8"]
    assert grid[10][:3] == ["2014", "2 045 750.8", "NA"]
    # the numbers are indexed: a child holds them, and the table is a citable item of its parent
    chunked = build_chunks(doc, "d" * 64, settings)
    assert any("12 882 217.8" in child.context_text for child in chunked.children)
    assert not any("OCR of a picture" in c.context_text or "#/pictures/" in c.context_text for c in chunked.children)
    items = [item for parent in chunked.parents for item in parent.items if item.kind == "table"]
    assert [item.source for item in items] == ["OCR of a picture"] * 2
    assert any(cell.text == "2 045 750.8" and cell.box is not None for cell in items[1].cells)
    # exported, the development years head the columns and the accident years' figures are numbers
    frame = pd.read_csv(io.StringIO(table_bytes(items[0], "csv", "fr").decode("utf-8")))
    assert list(frame.columns[1:]) == [str(year) for year in range(1, 11)]
    assert frame.iloc[0, 0] == 2005 and frame.iloc[0, 1] == 31116 and frame["1"].dtype.kind in "if"


def test_pictures_that_are_not_tables_stay_pictures(
    docling_fixtures_dir: Path, tmp_path: Path, settings: Settings
) -> None:
    parsed = parse(docling_fixtures_dir / "amt_handbook_sample.pdf", with_parsing(settings, workers=1), tmp_path / "a")
    assert len(parsed.document.pictures) == 2 and not parsed.document.tables


def test_images_the_layout_missed_are_pictures(docling_fixtures_dir: Path, tmp_path: Path, settings: Settings) -> None:
    """A cover page: the layout model finds no figure, the page holds one large photograph."""
    pdf = _cut(docling_fixtures_dir / "redp5110_sampled.pdf", [1], tmp_path / "cover.pdf")
    doc = parse(pdf, with_parsing(settings, workers=1), tmp_path / "a").document
    (picture,) = doc.pictures
    box = picture.prov[0].bbox
    assert (round(box.l), round(box.t), round(box.r), round(box.b)) == (96, 311, 584, 700)
    assert picture.image is not None and (tmp_path / "a" / picture.image.uri.name).exists()
    # the three taglines are printed alike: none of them is a heading (the layout model calls one so)
    taglines = [t for t in doc.texts if t.text.startswith(("Implement roles", "Leverage row", "Protect columns"))]
    assert len(taglines) == 3 and not any(isinstance(t, SectionHeaderItem) for t in taglines)


@pytest.mark.parametrize("off", [True])
def test_table_images_can_be_switched_off(off: bool, corpus_dir: Path, tmp_path: Path, settings: Settings) -> None:
    pdf = _cut(corpus_dir / "fr_rapport_provisionnement_non_vie_triangles_cadences.pdf", [4], tmp_path / "tri.pdf")
    parsed = parse(pdf, with_parsing(settings, workers=1, table_images=not off), tmp_path / "artifacts")
    assert not parsed.document.tables and len(parsed.document.pictures) == 2
