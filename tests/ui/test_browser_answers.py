"""Refusals by name and table answers in a real headless Chromium, on a real corpus page: a refusal
that names the missing term, and a table question answered with its row, whose number cells open the
viewer on that cell.

Page 21 of Mack (2008) on the prediction error of the Bornhuetter-Ferguson method is cut out with
PyMuPDF, its first table (parameter estimates) redacted away to keep ingestion short, and the page
with "Table 2. Reserves and Errors" (one row per accident year) is ingested by the real offline
pipeline into the app's data dir; the questions are written for this test. PyMuPDF is also the
independent ruler: the row the answer must show is read from the words printed on the row's line,
and the strong highlight the viewer draws after a click must lie over the number as printed, not
over its neighbours. Screenshots go to test-artifacts/browser/ (answers_01_refusal,
answers_02_table, answers_03_cell).
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
SOURCE_PDF, SOURCE_PAGE = "en_Mack2008_prediction_error_Bornhuetter_Ferguson.pdf", 21
PDF_NAME = "Mack2008_reserves_p21.pdf"
ABSENT = "Wüthrich-Merz"  # named nowhere in the paper
REFUSED = f"How large is the one-year reserve risk under the {ABSENT} view?"
TABLE_QUESTION = "What reserve and prediction error are reported for accident year 1999?"
ROW_LABEL = "1999"
NUMBER = "100825"  # that year's Bornhuetter-Ferguson reserve, as printed

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")


@pytest.fixture
def app_url(tmp_path: Path, corpus_dir: Path) -> Iterator[tuple[str, Path]]:
    import pymupdf

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pdf = tmp_path / PDF_NAME
    with pymupdf.open(corpus_dir / SOURCE_PDF) as doc:
        doc.select([SOURCE_PAGE - 1])
        page = doc[0]  # landscape: Table 1 is the top half of the page as shown, left of Table 2 unrotated
        (table_2,) = page.search_for("Table 2. Reserves and Errors")[:1]
        page.add_redact_annot(pymupdf.Rect(0, 0, table_2.x0 - 4, page.mediabox.height))
        page.apply_redactions()  # Table 1 removed: a third less to embed
        doc.save(pdf)
    with app_with_document(pdf, tmp_path / "data", ARTIFACTS / "streamlit_answers.log") as url:
        yield url, pdf


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"answers_{name}.png"), full_page=True)


def printed_row(pdf: Path, label: str) -> tuple[list[str], dict[str, tuple[float, float, float, float]]]:
    """The words printed on the line of `label` (left to right) and each one's box, in points of the page
    as shown (the page is landscape: PyMuPDF gives words on the unrotated page, turned here)."""
    import pymupdf

    with pymupdf.open(pdf) as doc:
        page = doc[0]
        words = [(pymupdf.Rect(w[:4]) * page.rotation_matrix, w[4]) for w in page.get_text("words")]
    (ly,) = [(r.y0 + r.y1) / 2 for r, text in words if text == label][:1]
    line = sorted(((r, text) for r, text in words if abs((r.y0 + r.y1) / 2 - ly) < 3), key=lambda w: w[0].x0)
    return [text for _, text in line], {text: (r.x0, r.y0, r.x1, r.y1) for r, text in line}


def ask(page, question: str):
    chat = page.locator('[data-testid="stChatInputTextArea"]')
    chat.wait_for(timeout=10_000)
    chat.fill(question)
    with rerun(page, 180_000):
        chat.press("Enter")
    return page.locator('[data-testid="stChatMessage"]').last


def test_a_refusal_names_the_term_and_a_table_row_opens_its_cell(app_url: tuple[str, Path], page) -> None:
    url, pdf = app_url
    try:
        _journey(url, pdf, page)
    except Exception:
        shot(page, "99_failure")
        raise


def _journey(url: str, pdf: Path, page) -> None:
    open_home(page, url)
    goto(page, f"{url}/ask")

    # (a) A question about a method the paper never names: refused, the term named, no answer given.
    refusal = ask(page, REFUSED)
    warning = refusal.locator('[data-testid="stAlert"]').filter(has_text=ABSENT)
    warning.first.wait_for(timeout=10_000)
    # the page is in French: the refusal of an English question is told in the page's language
    said = warning.first.inner_text()
    assert f"Aucun des documents auxquels vous avez accès ne mentionne « {ABSENT} »." in said, said
    assert "None of the documents" not in said
    assert refusal.locator('[data-testid="stAlert"]').count() >= 2  # ...and the closest passages are not an answer
    shot(page, "01_refusal")

    # (b) A question naming a row of the table of reserves and errors: the answer shows that row,
    #     each cell its own button, in the order the page prints them, and each figure readable whole.
    answer = ask(page, TABLE_QUESTION)
    cells = answer.locator("button")
    chip = cells.filter(has_text=re.compile(rf"^{NUMBER}$"))
    chip.first.wait_for(timeout=10_000)
    row, boxes = printed_row(pdf, ROW_LABEL)
    assert NUMBER in row and len(row) >= 10, row
    shown = iter(t.strip() for t in cells.all_inner_texts())
    assert all(cell in shown for cell in row), row  # every printed cell, in order (another row may interleave)
    assert chip.first.evaluate("b => [...b.querySelectorAll('*')].every(e => e.scrollWidth <= e.clientWidth + 1)"), (
        f"{NUMBER} is cut short in its button"
    )
    page.get_by_text(TABLE_QUESTION).evaluate("e => e.scrollIntoView({block: 'start'})")  # the question, then its row
    shot(page, "02_table")

    # A click on the number opens the page with a strong highlight over that number as printed.
    with rerun(page):
        chip.first.click()
    frame = page.frame_locator(VIEWER_IFRAME)
    viewer_settled(page, '[id^="annotation-cite-"]')
    shot(page, "03_cell")
    caption = page.get_by_text("Page(s) affichée(s)").first.inner_text()
    assert caption.endswith(": 1"), caption

    import pymupdf

    with pymupdf.open(pdf) as doc:
        page_width_pt = doc[0].rect.width
    scale = frame.locator("canvas").first.evaluate("c => parseFloat(c.style.width)") / page_width_pt
    boxes_px = frame.locator('[id^="annotation-cite-"]').evaluate_all(
        "els => els.map(e => [e.style.left, e.style.top, e.style.width, e.style.height].map(parseFloat))"
    )
    assert len(boxes_px) == 1, boxes_px  # the cell, not the table's rows
    x, y, w, h = (v / scale for v in boxes_px[0])

    def centre_under(word: str, tol: float = 2.0) -> bool:
        x0, y0, x1, y1 = boxes[word]
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        return x - tol <= cx <= x + w + tol and y - tol <= cy <= y + h + tol

    assert centre_under(NUMBER), f"{NUMBER} at {boxes[NUMBER]} pt is not under the highlight {(x, y, x + w, y + h)}"
    i = row.index(NUMBER)
    assert not centre_under(row[i - 1]) and not centre_under(row[i + 1]), "the highlight spills over the next cells"
