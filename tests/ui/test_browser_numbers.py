"""In a real headless Chromium: clicking a quoted number opens the page with its own table cell highlighted.

A one-page PDF with a payments table is generated with PyMuPDF and ingested into the app's data
dir; the extractive answer quotes a row of the table. PyMuPDF's text search is the independent
ruler: the strong annotation drawn by the viewer must lie over the printed number, and be the
size of its cell, not of the whole table. Screenshots go to test-artifacts/browser/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.browser_support import (
    CHROMIUM,
    REPO,
    VIEWER_IFRAME,
    app_with_document,
    goto,
    open_home,
    rerun,
    viewer_settled,
)

ARTIFACTS = REPO / "test-artifacts" / "browser"
QUESTION = "What were the amounts for motor liability?"
ROWS = [
    ["Line of business", "12 months", "24 months", "36 months"],
    ["Household", "1 200", "1 850", "2 105"],
    ["Motor liability", "1 310", "2 020", "2 290"],
    ["Marine cargo", "1 415", "2 240", ""],
]
CELL = (72.0, 90.0, 20.0)  # x of the first column, column width, row height (points)
NUMBER, NUMBER_ROW = "2 020", 2  # the number and its row in ROWS

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")


def make_pdf(path: Path) -> Path:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Claims reserving report", fontsize=20, fontname="hebo")
    page.insert_text((72, 110), "1 Paid claims triangle", fontsize=14, fontname="hebo")
    page.insert_textbox(
        pymupdf.Rect(72, 120, 520, 200),
        "The triangle below gives cumulative payments by development age, in thousands of euros. "
        "It is the basis of the chain ladder projection of this report.",
        fontsize=10,
    )
    page.insert_text((72, 220), "Table 1: Cumulative payments (thousands)", fontsize=10, fontname="hebo")
    x0, width, height = CELL
    y0 = 228
    for r, row in enumerate(ROWS):
        for c, text in enumerate(row):
            rect = pymupdf.Rect(x0 + c * width, y0 + r * height, x0 + (c + 1) * width, y0 + (r + 1) * height)
            page.draw_rect(rect, color=(0, 0, 0), width=0.7)
            if text:
                page.insert_text((rect.x0 + 5, rect.y1 - 6), text, fontsize=10)
    page.insert_textbox(
        pymupdf.Rect(72, 340, 520, 420),
        "Development factors are computed as ratios of column sums of the triangle.",
        fontsize=10,
    )
    doc.save(path)
    return path


@pytest.fixture
def app_url(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pdf = make_pdf(tmp_path / "payments.pdf")
    with app_with_document(pdf, tmp_path / "data", ARTIFACTS / "streamlit_numbers.log") as url:
        yield url, pdf


def printed_box_pt(pdf: Path, text: str, row_label: str) -> tuple[float, float, float, float]:
    import pymupdf

    with pymupdf.open(pdf) as doc:
        page = doc[0]
        (label,) = page.search_for(row_label)[:1]
        rects = [r for r in page.search_for(text) if abs((r.y0 + r.y1) / 2 - (label.y0 + label.y1) / 2) < 3]
        assert rects, f"{text!r} is not printed on the row of {row_label!r}"
        return rects[0].x0, rects[0].y0, rects[0].x1, rects[0].y1


def test_clicking_a_quoted_number_highlights_its_own_cell(app_url: tuple[str, Path], page) -> None:
    url, pdf = app_url
    try:
        _journey(url, pdf, page)
    except Exception:
        page.screenshot(path=str(ARTIFACTS / "numbers_99_failure.png"), full_page=True)
        raise


def _journey(url: str, pdf: Path, page) -> None:
    open_home(page, url)
    goto(page, f"{url}/ask")
    chat = page.locator('[data-testid="stChatInputTextArea"]')
    chat.wait_for(timeout=10_000)
    chat.fill(QUESTION)
    with rerun(page, 180_000):
        chat.press("Enter")
    # A table answer shows the rows the question names, each cell its own button.
    answer = page.locator('[data-testid="stChatMessage"]').nth(1)
    cells = answer.locator("button")
    chip = cells.filter(has_text=re.compile(rf"^{NUMBER}$"))
    chip.first.wait_for(timeout=10_000)
    shown = [t.strip() for t in cells.all_inner_texts()]
    assert ROWS[NUMBER_ROW] == shown[: len(ROWS[NUMBER_ROW])], shown  # the motor row, in its order
    assert all(answer.get_by_text(head, exact=True).count() == 1 for head in ROWS[0]), "the header is not shown"
    page.screenshot(path=str(ARTIFACTS / "numbers_01_answer.png"), full_page=True)

    with rerun(page):
        chip.first.click()
    frame = page.frame_locator(VIEWER_IFRAME)
    strong = frame.locator('[id^="annotation-cite-"]')
    viewer_settled(page, '[id^="annotation-cite-"]')
    page.screenshot(path=str(ARTIFACTS / "numbers_02_cell_viewer.png"), full_page=True)
    caption = page.get_by_text("Page(s) affichée(s)").first.inner_text()
    assert caption.endswith(": 1"), caption

    import pymupdf

    with pymupdf.open(pdf) as doc:
        page_width_pt = doc[0].rect.width
    canvas_width_px = frame.locator("canvas").first.evaluate("c => parseFloat(c.style.width)")
    scale = canvas_width_px / page_width_pt
    boxes_px = strong.evaluate_all(
        "els => els.map(e => [e.style.left, e.style.top, e.style.width, e.style.height].map(parseFloat))"
    )
    assert len(boxes_px) == 1, boxes_px  # one cell, not the table's rows
    x, y, w, h = boxes_px[0]
    x0, y0, x1, y1 = x / scale, y / scale, (x + w) / scale, (y + h) / scale
    nx0, ny0, nx1, ny1 = printed_box_pt(pdf, NUMBER, "Motor liability")
    cx, cy = (nx0 + nx1) / 2, (ny0 + ny1) / 2
    tol = 3.0
    assert x0 - tol <= cx <= x1 + tol and y0 - tol <= cy <= y1 + tol, (
        f"the number's centre ({cx:.1f}, {cy:.1f}) pt is not under the highlight {(x0, y0, x1, y1)}"
    )
    col_width, row_height = CELL[1], CELL[2]
    assert (x1 - x0) <= col_width * 1.3 and (y1 - y0) <= row_height * 1.5, (
        f"the highlight {(x0, y0, x1, y1)} is larger than a cell ({col_width} x {row_height} pt)"
    )
    # the neighbouring cells of the same row are not under the strong highlight
    for other in ("1 310", "2 290"):
        ox0, oy0, ox1, oy1 = printed_box_pt(pdf, other, "Motor liability")
        assert not (x0 <= (ox0 + ox1) / 2 <= x1), f"{other} is under the highlight of {NUMBER}"
