"""The Ask page as an analyst uses it, in a real headless Chromium against a real app process (app and
worker, its own data dir) and a real corpus page: an empty library says so; a question over the length
limit is refused with a search of its first part; a conversation survives a reload and a new tab, and
a new one can be started; the cited page is drawn at 100 % or more on a 1440-pixel-wide screen.

The tests run in file order on one app: the first sees the library empty, the upload follows.
Screenshots go to test-artifacts/pages/ (gitignored).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.browser_support import (
    CHROMIUM,
    REPO,
    VIEWER_IFRAME,
    ask,
    goto,
    launch,
    open_home,
    rerun,
    start_app,
    stop_app,
    upload_in_library,
    viewer_settled,
)

ARTIFACTS = REPO / "test-artifacts" / "pages"
SOURCE_PDF, SOURCE_PAGE = "en_CAS_tail_factor_working_party_2013.pdf", 13
PDF_NAME = "CAS_tail_factors_p13.pdf"
QUESTION = "What weakness does the paid-to-incurred tail method have?"
SCREEN = {"width": 1440, "height": 900}

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    proc, url = start_app(tmp_path_factory.mktemp("ask-pages") / "data", ARTIFACTS / "streamlit.log")
    yield url
    stop_app(proc)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = launch(pw)
        yield chromium
        chromium.close()


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport=SCREEN)
    yield ctx
    ctx.close()


@pytest.fixture(scope="module")
def one_page_pdf(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    import pymupdf

    pdf = tmp_path_factory.mktemp("pdf") / PDF_NAME
    with pymupdf.open(corpus_dir / SOURCE_PDF) as doc:
        doc.select([SOURCE_PAGE - 1])
        doc.save(pdf)
    return pdf


@pytest.fixture(scope="module")
def library_app(app: str, browser, one_page_pdf: Path) -> str:
    """The same app once the page is imported through the Library page (the worker ingests it)."""
    ctx = browser.new_context(viewport=SCREEN)
    page = ctx.new_page()
    open_home(page, app)
    upload_in_library(page, app, one_page_pdf, PDF_NAME, 150_000)
    ctx.close()
    return app


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def chat_texts(page) -> list[str]:
    return page.locator('[data-testid="stChatMessage"]').all_inner_texts()


def test_an_empty_library_says_so_and_points_to_the_library_page(app: str, context) -> None:
    page = context.new_page()
    open_home(page, app)
    goto(page, f"{app}/ask")
    page.get_by_text("La bibliothèque ne contient encore aucun document").wait_for(timeout=10_000)
    link = page.get_by_role("link", name="Aller à la Bibliothèque")
    assert link.count() == 1
    assert page.locator('[data-testid="stChatInputTextArea"]').is_disabled()
    shot(page, "ask_empty_library")
    with rerun(page):
        link.click()
    page.get_by_role("heading", name="Bibliothèque").wait_for(timeout=10_000)


def test_a_question_over_the_limit_is_refused_and_searched_by_its_first_part(library_app: str, context) -> None:
    page = context.new_page()
    open_home(page, library_app)
    goto(page, f"{library_app}/ask")
    pasted = ("The paid-to-incurred tail method and its weakness. " * 60)[:2500]
    ask(page, pasted)
    page.get_by_text("Cette question compte 2500 caractères, au-delà de la limite de 2000").wait_for(timeout=10_000)
    assert chat_texts(page) == [], "a question over the limit reached the chat"
    with rerun(page):
        page.get_by_role("button", name="Rechercher avec les 2000 premiers caractères").click()
    page.get_by_role("heading", name="Test de la recherche").wait_for(timeout=10_000)
    query = page.get_by_label("Question").input_value()
    assert query == pasted[:2000]
    page.get_by_text(PDF_NAME).first.wait_for(timeout=30_000)  # the search ran at once and found the page


def test_reload_and_a_new_tab_keep_the_conversation_and_a_new_one_starts_on_request(library_app: str, context) -> None:
    page = context.new_page()
    open_home(page, library_app)
    goto(page, f"{library_app}/ask")
    ask(page, QUESTION)
    assert QUESTION in chat_texts(page)[0]
    answer = chat_texts(page)[1]
    assert "p." in answer
    assert "c=" in page.url  # the conversation is named in the address

    goto(page, page.url)  # a reload
    texts = chat_texts(page)
    assert len(texts) == 2 and QUESTION in texts[0] and texts[1] == answer, texts

    other = context.new_page()  # a new tab, at the page's plain address: the latest conversation
    goto(other, library_app)
    goto(other, f"{library_app}/ask")
    texts = chat_texts(other)
    assert len(texts) == 2 and QUESTION in texts[0], texts

    with rerun(other):
        other.get_by_role("button", name="Nouvelle conversation").click()
    assert chat_texts(other) == []
    # the earlier one is listed, and chosen there it comes back
    picker = other.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').filter(has_text="Conversations")
    picker.click()
    option = other.get_by_role("option").filter(has_text=QUESTION[:30])
    assert option.count() == 1
    with rerun(other):
        option.click()
    texts = chat_texts(other)
    assert len(texts) == 2 and QUESTION in texts[0], texts


def test_the_cited_page_is_drawn_at_full_size_on_a_1440_pixel_screen(
    library_app: str, context, one_page_pdf: Path
) -> None:
    import pymupdf

    page = context.new_page()
    open_home(page, library_app)
    goto(page, f"{library_app}/ask")
    if not chat_texts(page):
        ask(page, QUESTION)
    card = page.locator('[data-testid="stChatMessage"] button').filter(has_text="p.").first
    with rerun(page):
        card.click()
    viewer_settled(page, '[id^="annotation-cite-"], [id^="annotation-passage-"]')
    width_px = page.frame_locator(VIEWER_IFRAME).locator("canvas").first.evaluate("c => parseFloat(c.style.width)")
    with pymupdf.open(one_page_pdf) as doc:
        width_pt = doc[0].rect.width
    page.locator(VIEWER_IFRAME).first.scroll_into_view_if_needed()
    shot(page, "ask_answer_and_viewer")
    # pdf.js draws a page at 100 % with 96/72 CSS pixels per PDF point
    assert width_px >= width_pt * 96 / 72, f"page drawn {width_px:.0f} px wide for {width_pt:.0f} pt"
    # the answering sentence comes before anything else in the answer
    first = page.locator('[data-testid="stChatMessage"]').nth(1).locator('[data-testid="stMarkdown"]').first
    assert "extractif" not in first.inner_text() and "Contexte" not in first.inner_text()
