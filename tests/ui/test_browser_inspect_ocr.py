"""Inspect in a real headless Chromium on a triangle printed as an image: page 4 of the French
triangles report (cut out with PyMuPDF), whose two loss triangles are pictures without a text layer.
The Inspect page must say that the table was read by OCR and show the triangle's cells as printed
(the values below were read on the page image). Screenshots: test-artifacts/browser/inspect_ocr_page.png (the page)
and inspect_ocr_triangle.png (the tables).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.browser_support import CHROMIUM, REPO, app_with_document, goto, open_home, viewer_settled

ARTIFACTS = REPO / "test-artifacts" / "browser"
SOURCE_PDF, SOURCE_PAGE = "fr_rapport_provisionnement_non_vie_triangles_cadences.pdf", 4
OPENINGS_2005 = ("2005", "31 116", "33 092", "33 280")  # accident year 2005 of "Figure 1.1 - Triangle des ouvertures"
PAYMENTS_2014 = ("2014", "2 045 750.8")  # accident year 2014 of "Figure 1.2 - Triangle des règlements"

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")


def test_inspect_shows_a_triangle_read_from_an_image(page, corpus_dir: Path, tmp_path: Path) -> None:
    import pymupdf

    pdf = tmp_path / "triangles_p4.pdf"
    with pymupdf.open(corpus_dir / SOURCE_PDF) as src, pymupdf.open() as out:
        out.insert_pdf(src, from_page=SOURCE_PAGE - 1, to_page=SOURCE_PAGE - 1)
        out.save(pdf)
    with app_with_document(pdf, tmp_path / "data", ARTIFACTS / "streamlit_inspect_ocr.log") as url:
        open_home(page, url)
        goto(page, f"{url}/inspect")  # the only document is selected
        title = page.get_by_text("Figure 1.1 – Triangle des ouvertures").first
        title.wait_for(timeout=30_000)
        # both tables say where they were read from: OCR of a picture, to check on the page
        assert page.get_by_text("Lu par OCR dans une image").count() == 2
        assert page.get_by_text("Lu dans la couche texte du PDF").count() == 0
        grids = page.locator('[data-testid="stDataFrame"]')
        grids.nth(1).wait_for(timeout=30_000)  # the grids draw after the page's text
        assert grids.count() == 2
        for grid, row in ((grids.nth(0), OPENINGS_2005), (grids.nth(1), PAYMENTS_2014)):
            grid.wait_for(timeout=10_000)
            cells = grid.locator('[data-testid^="glide-cell-"]')
            cells.filter(has_text=row[0]).first.wait_for(state="attached", timeout=10_000)
            texts = [t.strip() for t in cells.all_inner_texts()]
            start = texts.index(row[0])  # the year's row: its first cells in order
            assert tuple(texts[start : start + len(row)]) == row
        viewer_settled(page, '[id^="annotation-"]')  # the page drawn, with its parents' and children's boxes
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "inspect_ocr_page.png"), full_page=False)
        page.get_by_text("Tableau 1 · p. 1").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "inspect_ocr_triangle.png"), full_page=False)
