"""End to end in a real headless Chromium: upload, inspect, ask, click a citation, check the highlight.

The document is page 13 of the CAS tail factor report (cut out with PyMuPDF): a table of
development factors and the text of a tail method, so the Inspect page really shows a table.
Starts `streamlit run app.py` on a free port with its own data dir. Screenshots of each step go to
test-artifacts/browser/ (gitignored). Skipped only when /usr/bin/chromium is absent (a failure
under CI=true, see tests/conftest.py). PyMuPDF is used here only as an independent ruler (where
the quote lies on the page).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.browser_support import (
    CHROMIUM,
    REPO,
    VIEWER_IFRAME,
    goto,
    open_home,
    rerun,
    start_app,
    stop_app,
    upload_in_library,
    viewer_settled,
)

ARTIFACTS = REPO / "test-artifacts" / "browser"
SOURCE_PDF, SOURCE_PAGE = "en_CAS_tail_factor_working_party_2013.pdf", 13
PDF_NAME = "CAS_tail_factors_p13.pdf"
QUESTION = "What weakness does the paid-to-incurred tail method have?"
QUOTE = "a reliable estimate of the ultimate loss"
QUOTE_PAGE = 1
TABLE_CELLS = ("108-120", "1.004")  # the last row of the table of selected incurred factors

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")


@pytest.fixture
def app_url(tmp_path: Path) -> Iterator[str]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    proc, url = start_app(tmp_path / "data", ARTIFACTS / "streamlit.log", workers=True)
    yield url
    stop_app(proc)


def shot(page, name: str) -> None:
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")


def quote_box_pt(pdf: Path, page_no: int, quote: str) -> tuple[float, float, float, float]:
    import pymupdf

    with pymupdf.open(pdf) as doc:
        rects = doc[page_no - 1].search_for(quote)
        assert rects, f"{quote!r} not found on page {page_no} of {pdf.name}"
        return rects[0].x0, rects[0].y0, rects[0].x1, rects[0].y1


def page_width_pt(pdf: Path, page_no: int) -> float:
    import pymupdf

    with pymupdf.open(pdf) as doc:
        return doc[page_no - 1].rect.width


def test_upload_inspect_ask_and_open_the_highlighted_citation(
    app_url: str, page, corpus_dir: Path, tmp_path: Path
) -> None:
    import pymupdf

    pdf = tmp_path / PDF_NAME
    with pymupdf.open(corpus_dir / SOURCE_PDF) as doc:
        doc.select([SOURCE_PAGE - 1])
        doc.save(pdf)
    try:
        _journey(app_url, page, pdf)
    except Exception:
        shot(page, "99_failure")
        raise


def _journey(app_url: str, page, pdf: Path) -> None:
    # 0. Home first: it pays the imports (a page opened first by its address works too since the
    #    pages moved to views/: see test_browser_access.py).
    open_home(page, app_url)
    shot(page, "00_home")
    # 1. Library: upload through the page and wait for the per-file result.
    result = upload_in_library(page, app_url, pdf, PDF_NAME, 150_000)
    page.locator('[data-testid="stTable"]').first.wait_for(timeout=30_000)  # the Library's documents
    shot(page, "01_library_ingested")
    assert "importé" in result.first.inner_text().lower(), result.first.inner_text()  # "Importé : 3 pages…"

    # 2. Inspect: sections and the page's table, drawn as a grid with its cells.
    goto(page, f"{app_url}/inspect")
    page.get_by_role("heading", name="Sections").wait_for(timeout=10_000)
    page.frame_locator(VIEWER_IFRAME).locator("canvas").first.wait_for(timeout=30_000)
    shot(page, "02_inspect")
    tree_items = page.locator('[class*="st-key-inspect-section-"] button')  # the tree: one button per section
    assert tree_items.count() >= 1, "no section in the tree"
    page.get_by_role("heading", name="Tableaux").wait_for(timeout=10_000)
    assert page.get_by_text("Aucun tableau détecté.").count() == 0
    page.get_by_text("Tableau 1 · p. 1").wait_for(timeout=10_000)
    grid = page.locator('[data-testid="stDataFrame"]').last  # the grid's cells are mirrored in an accessible table
    grid.wait_for(timeout=10_000)  # the canvas grid is on the page...
    # ...and its accessible mirror (a table the grid keeps out of sight for screen readers) holds the cells
    grid.locator('[data-testid^="glide-cell-"]').filter(has_text=TABLE_CELLS[0]).first.wait_for(
        state="attached", timeout=10_000
    )
    cells = [t.strip() for t in grid.locator('[data-testid^="glide-cell-"]').all_inner_texts()]
    assert all(cell in cells for cell in TABLE_CELLS), cells

    # 3. Ask: a question whose answer is on a known page.
    goto(page, f"{app_url}/ask")
    chat = page.locator('[data-testid="stChatInputTextArea"]')
    chat.wait_for(timeout=10_000)
    chat.fill(QUESTION)
    with rerun(page, 180_000):
        chat.press("Enter")
    card = page.locator('[data-testid="stChatMessage"] button').filter(has_text="p.").first
    card.wait_for(timeout=10_000)
    shot(page, "03_answer")

    # 4. Click the first citation: the viewer shows the cited page with the passage highlighted.
    with rerun(page):
        card.click()
    frame = page.frame_locator(VIEWER_IFRAME)
    viewer_settled(page, '[id^="annotation-cite-"]')
    shot(page, "04_citation_viewer")
    caption = page.get_by_text("Page(s) affichée(s)").first.inner_text()
    assert caption.endswith(f": {QUOTE_PAGE}") or f": {QUOTE_PAGE}," in caption, caption

    canvas_width_px = frame.locator("canvas").first.evaluate("c => parseFloat(c.style.width)")
    scale = canvas_width_px / page_width_pt(pdf, QUOTE_PAGE)

    def drawn(selector: str) -> list[tuple[float, float, float, float]]:
        boxes_px = frame.locator(selector).evaluate_all(
            "els => els.map(e => [e.style.left, e.style.top, e.style.width, e.style.height].map(parseFloat))"
        )
        return [(x / scale, y / scale, (x + w) / scale, (y + h) / scale) for x, y, w, h in boxes_px]

    def under(rect: tuple[float, float, float, float], boxes: list, tol: float = 3.0) -> bool:
        cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
        return any(x0 - tol <= cx <= x1 + tol and y0 - tol <= cy <= y1 + tol for x0, y0, x1, y1 in boxes)

    # The paragraph's quote (its first sentence, for an extractive answer) is highlighted strongly:
    # the start of the paragraph lies under a strong box, on the cited page.
    paragraph = (
        page.locator('[data-testid="stChatMessage"]')
        .nth(1)
        .locator('[data-testid="stMarkdown"]')
        .filter(has_not_text="extractif")
        .filter(has_not_text="Contexte :")
        .first
    )  # not the badge nor the budget caption
    opening = " ".join(paragraph.inner_text().split()[:5])
    strong_pt = drawn('[id^="annotation-cite-"]')
    assert under(quote_box_pt(pdf, QUOTE_PAGE, opening), strong_pt), (opening, strong_pt)
    # The quote alone is tinted, in one style: neither the rest of the child nor the section is drawn
    # (three tints without a legend read as noise), and the expected answer is on the page shown.
    styles = frame.locator('[id^="annotation-"]').evaluate_all("els => els.map(e => [e.id, e.style.outline])")
    assert styles and all(name.startswith("annotation-cite-") for name, _ in styles), styles
    assert len({outline for _, outline in styles}) == 1, styles
    quote_box_pt(pdf, QUOTE_PAGE, QUOTE)
