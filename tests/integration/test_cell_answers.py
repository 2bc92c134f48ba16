"""A figure asked for is answered from its table cell: value, row, column, and the cell highlighted.

One page of the ChainLadder vignette (the Mack chain-ladder summary of a run-off triangle: origin
years down, Latest / Ultimate / IBNR ... across) and one page of Mack's 2008 paper (a table of
parameter estimates with a row label of two words and development years across; a table whose
header is written over two rows) are cut out of the corpus PDFs and ingested by the real offline
pipeline. The expected cell is read from the parsed table (the row whose label and the column
whose header the question names), never written here; the questions are worded for these tests
and name cells the benchmark's number set does not use.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.citations import paragraph_focus, source_target, viewer_annotations
from rag_core.config import Settings
from rag_core.models import Answer, Item, TableCell
from rag_core.text import collapse_ws
from tests.corpus_pages import ingest_pages

LOCAL = Principal.local_operator()
PAGES = {
    "en_ChainLadder_claims_reserving_with_R_vignette.pdf": [17],
    "en_Mack2008_prediction_error_Bornhuetter_Ferguson.pdf": [21],
}


@pytest.fixture(scope="module")
def library(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, list[Item]]:
    settings, results = ingest_pages(corpus_dir, PAGES, tmp_path_factory.mktemp("cell_answers"), LOCAL)
    tables = [
        item
        for r in results
        for parent in pipeline.load_chunks(r.doc_id, settings, principal=LOCAL).parents
        for item in parent.items
        if item.kind == "table" and item.cells
    ]
    return settings, tables


def cell(tables: list[Item], row_label: str, header: str) -> TableCell:
    """The parsed cell at the row labelled `row_label` and the column whose header row 0 writes `header`."""
    for item in tables:
        grid = {(c.row, c.col): c for c in item.cells}
        cols = [
            c
            for c in range(item.n_cols)
            if collapse_ws(grid.get((0, c), TableCell(row=0, col=c, text="")).text) == header
        ]
        rows = [r for r in range(item.n_rows) if (r, 0) in grid and collapse_ws(grid[(r, 0)].text) == row_label]
        if cols and rows:
            return grid[(rows[0], cols[0])]
    raise AssertionError(f"no parsed cell at {row_label!r} x {header!r}")


def ask(library, question: str) -> Answer:
    return pipeline.ask(question, library[0], principal=LOCAL)


def test_a_figure_is_answered_from_its_cell_with_row_column_and_the_cell_highlighted(library) -> None:
    settings, tables = library
    expected = cell(tables, "1986", "Ultimate")
    a = ask(library, "What ultimate loss does the Mack chain ladder summary estimate for origin year 1986?")
    lead = a.paragraphs[0]
    assert collapse_ws(expected.text) in lead.text and "1986" in lead.text and "Ultimate" in lead.text
    traced = [n for n in lead.numbers if n.location is not None and n.location.kind == "cell"]
    value = next(n for n in traced if n.location.row == expected.row and n.location.col == expected.col)
    assert value.status == "quoted" and value.location.boxes == [expected.box]
    source = next(s for s in a.sources if s.id == lead.source_ids[0])
    assert source.kind == "table"
    focus = paragraph_focus(lead, source)
    assert expected.box in focus
    target = source_target(source, lead.quote, focus)
    first = viewer_annotations(target)[0]  # what the viewer scrolls to: a cell the figure comes from
    assert (
        first["id"] == "cite-0"
        and any((first["x"], first["y"]) == (b.x0, b.y0) for b in focus)
        and first["width"] < max(b.x1 for b in source.boxes) - min(b.x0 for b in source.boxes)
    )


def test_a_two_word_row_label_and_a_development_year_name_the_cell(library) -> None:
    _, tables = library
    expected = cell(tables, "selected s²", "7")
    a = ask(library, "In the parameter estimates, what is the selected s² of development year 7?")
    lead = a.paragraphs[0]
    assert lead.text.startswith(collapse_ws(expected.text) + " — ")
    assert any(
        n.location is not None and (n.location.row, n.location.col) == (expected.row, expected.col)
        for n in lead.numbers
    )


def test_a_method_named_in_the_question_does_not_pick_the_column_that_borrows_its_name(library) -> None:
    _, tables = library
    # "Mack" names the method; the summary's "Mack.S.E" column (its standard error) is not asked for
    a = ask(library, "What does the Mack chain ladder summary report for origin year 1988?")
    summary = next(t for t in tables if any(collapse_ws(c.text) == "Ultimate" for c in t.cells if c.row == 0))
    row = [c for c in summary.cells if c.row == next(x.row for x in summary.cells if x.col == 0 and x.text == "1988")]
    lead = a.paragraphs[0].text
    assert lead.startswith("1988")
    assert all(collapse_ws(c.text) in lead for c in row if c.text.strip())  # the row whole, every column


STATEMENT = "northwind_cash_flows.pdf"
STATEMENT_ROWS = [
    ["", "Fiscal 2023", "Fiscal 2022"],
    ["Net earnings", "1,419", "2,454"],
    ["Depreciation and amortization", "923", "869"],
    ["Net cash provided by operating activities", "1,824", "3,252"],
    ["Capital expenditures", "(930)", "(737)"],
    ["Net cash used in investing activities", "(1,201)", "(1,372)"],
]


def _statement(path: Path) -> Path:
    """A filing's cash-flow statement, as filings print it: a title, "(in millions)", a ruled table whose
    columns are written "Fiscal 2023" (never "FY2023"). No corpus PDF is a financial filing."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 72), "Consolidated Statements of Cash Flows", fontsize=14, fontname="hebo")
    page.insert_text((72, 92), "(in millions)", fontsize=10)
    page.insert_textbox(
        pymupdf.Rect(72, 104, 523, 150),
        "The statements below present the cash flows of Northwind Outfitters for its last two fiscal years.",
        fontsize=10,
    )
    widths, height, y0 = [231.0, 110.0, 110.0], 20.0, 160.0
    for r, row in enumerate(STATEMENT_ROWS):
        x = 72.0
        for text, width in zip(row, widths, strict=True):
            rect = pymupdf.Rect(x, y0 + r * height, x + width, y0 + (r + 1) * height)
            page.draw_rect(rect, color=(0, 0, 0), width=0.7)
            if text:
                page.insert_text((rect.x0 + 5, rect.y1 - 6), text, fontsize=10)
            x += width
    doc.save(path)
    return path


@pytest.fixture(scope="module")
def statement(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, list[Item], Path]:
    root = tmp_path_factory.mktemp("cell_unit")
    pdf = _statement(root / STATEMENT)
    settings = Settings(data_dir=root / "data")
    [result] = pipeline.ingest([pdf], settings, principal=LOCAL)
    assert result.status == "ingested", result.message
    parents = pipeline.load_chunks(result.doc_id, settings, principal=LOCAL).parents
    tables = [item for parent in parents for item in parent.items if item.kind == "table" and item.cells]
    return settings, tables, pdf


def test_a_figure_asked_by_fiscal_year_is_answered_with_its_row_column_unit_and_cell_box(statement) -> None:
    settings, tables, pdf = statement
    row_label = "Net cash provided by operating activities"
    expected = cell(tables, row_label, "Fiscal 2023")  # the parsed cell: the question writes "FY2023"
    a = pipeline.ask(f"What was the {row_label.lower()} in FY2023?", settings, principal=LOCAL)
    lead = a.paragraphs[0]
    value = collapse_ws(expected.text)
    assert lead.text.startswith(f"{value} — ")  # the cell's value leads, then where it stands:
    assert row_label in lead.text and "Fiscal 2023" in lead.text  # its row and its column
    assert "in millions" in lead.text  # and the unit the statement writes above the table
    with pymupdf.open(pdf) as doc:  # the value as printed on the page, found independently of the parse
        printed = [r for r in doc[0].search_for(value) if expected.box.y0 - 3 < r.y0 < expected.box.y1]
    assert len(printed) == 1
    traced = next(n for n in lead.numbers if n.location is not None and n.location.kind == "cell")
    assert (traced.location.row, traced.location.col) == (expected.row, expected.col)
    assert traced.location.boxes == [expected.box]
    source = next(s for s in a.sources if s.id == lead.source_ids[0])
    focus = paragraph_focus(lead, source)
    header = next(
        c for c in next(t for t in tables if expected in t.cells).cells if (c.row, c.col) == (0, expected.col)
    )
    # the viewer highlights that cell first, then the column header the paragraph quotes its period from
    assert focus == [expected.box, header.box]
    assert focus[0].x0 <= printed[0].x0 and printed[0].x1 <= focus[0].x1 + 1 and focus[0].y0 < printed[0].y1
