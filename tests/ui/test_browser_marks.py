"""Check marks as an analyst sees them, in a real headless Chromium against a real app: a figure the
code found in a table cell carries ✓ on a coloured background; a year in the same answer (the row it is
read from) stays plain.

The page is the Mack chain ladder summary of the ChainLadder vignette (a corpus PDF, page 17), ingested
by the real pipeline; the question asks for the ultimate loss of origin year 1986. PyMuPDF is the
independent ruler: the checked figure is printed on the 1986 row of the page. The table's card is in
French too. Screenshots go to
test-artifacts/browser/ (gitignored).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.browser_support import CHROMIUM, REPO, app_with_document, ask, goto, open_home, rerun

ARTIFACTS = REPO / "test-artifacts" / "browser"
SOURCE_PDF, SOURCE_PAGE = "en_ChainLadder_claims_reserving_with_R_vignette.pdf", 17
QUESTION = "What ultimate loss does the Mack chain ladder summary estimate for origin year 1986?"
YEAR, FIGURE = "1986", "19,501"  # the row asked for, and its Ultimate as printed on the page

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")


@pytest.fixture(scope="module")
def summary_pdf(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    import pymupdf

    pdf = tmp_path_factory.mktemp("marks") / "ChainLadder_Mack_summary.pdf"
    with pymupdf.open(corpus_dir / SOURCE_PDF) as doc:
        doc.select([SOURCE_PAGE - 1])
        doc.save(pdf)
    return pdf


@pytest.fixture(scope="module")
def app_url(summary_pdf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    data = tmp_path_factory.mktemp("marks-data") / "data"
    with app_with_document(summary_pdf, data, ARTIFACTS / "streamlit_marks.log") as url:
        yield url


def test_the_figure_is_printed_on_the_year_s_row(summary_pdf: Path) -> None:
    """The ruler: on the page, the figure stands on the line of the year (so a ✓ on it is earned)."""
    import pymupdf

    with pymupdf.open(summary_pdf) as doc:
        page = doc[0]
        years = page.search_for(YEAR)
        figures = page.search_for(FIGURE)
    assert any(abs((y.y0 + y.y1) / 2 - (f.y0 + f.y1) / 2) < 3 and f.x0 > y.x1 for y in years for f in figures)


def test_a_checked_table_figure_carries_a_mark_and_the_year_does_not(app_url: str, page) -> None:
    open_home(page, app_url)
    goto(page, f"{app_url}/ask")
    answer = ask(page, QUESTION)
    text = answer.inner_text()
    assert YEAR in text and FIGURE in text, text
    checked = [t.strip() for t in answer.locator("span").filter(has_text="✓").all_inner_texts()]
    assert f"{FIGURE} ✓" in checked, checked  # the figure read from its cell
    assert not any(YEAR in t for t in checked), checked  # the year, also read from a cell, stays plain
    assert f"{YEAR} ✓" not in text
    # the table's card in the page's language (rag_core labels a table without caption in English); a long
    # label is shortened on its card (its page kept whole) and shown whole above the viewer it opens
    assert "· Tabl" in text and "no caption kept" not in text and "Table:" not in text, text
    assert "(no heading)" not in text, text
    with rerun(page):
        answer.get_by_role("button", name="Tabl").first.click()
    heading = page.get_by_text("Tableau : sans légende conservée").first
    heading.wait_for(timeout=30_000)
    assert "no caption kept" not in heading.inner_text()
    mark = answer.locator("span").filter(has_text=f"{FIGURE} ✓").last
    answer.locator("span").filter(has_text="✓").first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "marks_answer.png"))
    background = mark.evaluate("e => getComputedStyle(e).backgroundColor")
    assert background not in ("rgba(0, 0, 0, 0)", "transparent"), background
