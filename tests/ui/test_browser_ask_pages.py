"""The Ask page as an analyst uses it, in a real headless Chromium against a real app process (app and
worker, its own data dir) and a real corpus page: an empty library says so; a question over the length
limit is refused with a search of its first part; a conversation survives a reload and a new tab, and
a new one can be started; the cited page is drawn at 100 % or more on a 1440-pixel-wide screen; errors
rag_core raises, and the engines table, reach a French page in French.

The tests run in file order on one app: the first sees the library empty, the upload follows.
Screenshots go to test-artifacts/pages/ (gitignored).
"""

from __future__ import annotations

import json
import time
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
    fresh = tmp_path_factory.mktemp("fresh-install")  # no shared question sets nor corpus folder
    proc, url = start_app(
        fresh / "data", ARTIFACTS / "streamlit.log", env={"RAG_SHARED_DIR": str(fresh / "no-shared")}, workers=True
    )
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


def tall_shot(page, name: str, height: int = 2400) -> None:
    """The whole page at the same 1440-pixel width: the app scrolls inside its own frame, which a full-page
    screenshot does not unroll, so the window is made taller for the picture and given back its size."""
    page.set_viewport_size({"width": SCREEN["width"], "height": height})
    page.wait_for_timeout(500)  # the layout follows the new height
    shot(page, name)
    page.set_viewport_size(SCREEN)


def chat_texts(page) -> list[str]:
    return page.locator('[data-testid="stChatMessage"]').all_inner_texts()


def run_question_set(page, path: Path, timeout_ms: int = 120_000) -> None:
    """Evaluate: the question set at `path` uploaded, then run (its run given `timeout_ms`)."""
    with rerun(page):
        page.locator('input[type="file"]').set_input_files(str(path))
    with rerun(page, timeout_ms):
        page.get_by_role("button", name="Lancer").click()


def settled_chat_texts(page, answer: str, timeout_s: float = 30.0) -> list[str]:
    """The chat's texts once the restored answer reads as `answer`, or as they stand at `timeout_s`:
    the browser may still be mounting the restored message's source cards when the run has ended."""
    deadline = time.monotonic() + timeout_s
    texts = chat_texts(page)
    while (len(texts) != 2 or texts[1] != answer) and time.monotonic() < deadline:
        page.wait_for_timeout(250)
        texts = chat_texts(page)
    return texts


def test_an_empty_library_says_so_and_points_to_the_library_page(app: str, context) -> None:
    page = context.new_page()
    open_home(page, app)
    goto(page, f"{app}/ask")
    page.get_by_text("La bibliothèque ne contient encore aucun document").wait_for(timeout=10_000)
    link = page.locator('[data-testid="stPageLink"] a').filter(has_text="Aller à la Bibliothèque")
    link.first.wait_for(timeout=10_000)  # drawn just after the message, in the same run
    assert link.count() == 1
    assert page.locator('[data-testid="stChatInputTextArea"]').is_disabled()
    shot(page, "ask_empty_library")
    with rerun(page):
        link.click()
    page.get_by_role("heading", name="Bibliothèque").wait_for(timeout=10_000)


def _english_in(page) -> list[str]:
    text = page.locator('[data-testid="stApp"]').inner_text()
    return [f"{p!r} ({k})" for p, k in _other_language_phrases("fr").items() if p in text]


def test_errors_raised_by_the_library_are_shown_in_french(
    app: str, context, tmp_path: Path, one_page_pdf: Path
) -> None:
    """Errors that rag_core raises (in English, for the command line) reach a French page in French: a bad
    question set and a question set with nothing to run on (Evaluate), a collection name mixing alphabets
    (Library); the home page's engines table too."""
    page = context.new_page()
    open_home(page, app)
    page.get_by_text("extractif (réglez OPENAI_API_KEY / OPENAI_BASE_URL pour des réponses par LLM)").wait_for(
        timeout=10_000
    )  # the engines table's answers row, whole
    assert not _english_in(page), _english_in(page)

    goto(page, f"{app}/evaluate")
    bad_set = tmp_path / "broken.jsonl"
    bad_set.write_text('{"question": "What is a tail factor?"\n', encoding="utf-8")  # the brace never closed
    run_question_set(page, bad_set)
    page.get_by_text("La ligne 1 du jeu de questions n'est pas du JSON valide").wait_for(timeout=10_000)
    assert not _english_in(page), _english_in(page)
    good_set = tmp_path / "fine.jsonl"
    good_set.write_text(json.dumps({"id": "q1", "question": QUESTION, "language": "en"}) + "\n", encoding="utf-8")
    run_question_set(page, good_set)
    page.get_by_text("La bibliothèque ne contient aucun document que vous pouvez lire").wait_for(timeout=10_000)
    assert not _english_in(page), _english_in(page)
    shot(page, "error_fr_evaluate")

    goto(page, f"{app}/library")
    choice = page.locator('[data-testid="stSelectbox"]').first
    with rerun(page):
        choice.click()
        page.get_by_role("option", name="Nouvelle collection…").click()
    name = page.get_by_label("Nom de la nouvelle collection")
    name.fill("Solvаbilité")  # a Cyrillic 'а' among Latin letters
    with rerun(page):
        name.press("Enter")
    with rerun(page):
        page.locator('input[type="file"]').first.set_input_files(str(one_page_pdf))
    with rerun(page):
        page.get_by_role("button", name="Importer").click()
    page.get_by_text("mêle des lettres latines à des lettres cyrilliques").wait_for(timeout=10_000)
    assert not _english_in(page), _english_in(page)
    shot(page, "error_fr_library")


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
    last = ask(page, QUESTION)
    last.locator("button").filter(has_text="p. ").first.wait_for(timeout=30_000)  # its source cards drawn
    assert QUESTION in chat_texts(page)[0]
    answer = chat_texts(page)[1]
    assert "p." in answer
    assert "c=" in page.url  # the conversation is named in the address

    goto(page, page.url)  # a reload
    texts = settled_chat_texts(page, answer)
    assert len(texts) == 2 and QUESTION in texts[0] and texts[1] == answer, texts

    other = context.new_page()  # a new tab, at the page's plain address: the latest conversation
    goto(other, library_app)
    goto(other, f"{library_app}/ask")
    texts = chat_texts(other)
    assert len(texts) == 2 and QUESTION in texts[0], texts

    messages = other.locator('[data-testid="stChatMessage"]')
    with rerun(other):
        other.get_by_role("button", name="Nouvelle conversation").click()
    messages.first.wait_for(state="detached", timeout=30_000)  # a fragment's run may end before the click's
    assert chat_texts(other) == []
    # the earlier one is listed, and chosen there it comes back
    picker = other.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').filter(has_text="Conversations")
    picker.click()
    option = other.get_by_role("option").filter(has_text=QUESTION[:30])
    assert option.count() == 1
    with rerun(other):
        option.click()
    messages.nth(1).wait_for(timeout=30_000)
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
    tall_shot(page, "ask_answer_then_viewer")


def test_search_shows_the_document_section_page_and_a_marked_excerpt_and_opens_it(library_app: str, context) -> None:
    page = context.new_page()
    open_home(page, library_app)
    goto(page, f"{library_app}/search")
    page.get_by_label("Question").fill("paid-to-incurred tail method weakness")
    with rerun(page):
        page.get_by_role("button", name="Rechercher").click()
    first = page.locator(".st-key-search_hit_0")
    first.wait_for(timeout=30_000)
    text = first.inner_text()
    assert PDF_NAME in text and "p. 1" in text, text
    listed = page.locator('[data-testid="stApp"]').inner_text()
    assert "(no heading)" not in listed, listed  # a passage before any heading, said in French
    marked = first.locator("span").filter(has_text="tail").first  # a query term drawn on a background
    assert marked.evaluate("e => getComputedStyle(e).backgroundColor") not in ("rgba(0, 0, 0, 0)", "transparent")
    assert page.get_by_text("Rangs et scores par canal de recherche").count() == 1  # the ranks, folded
    shot(page, "search_results")
    with rerun(page):
        first.get_by_role("button", name="Ouvrir").click()
    viewer_settled(page, '[id^="annotation-cite-"], [id^="annotation-passage-"]')
    tall_shot(page, "search")


def test_evaluate_runs_an_uploaded_question_set_on_the_library(library_app: str, context, tmp_path: Path) -> None:
    page = context.new_page()
    open_home(page, library_app)
    goto(page, f"{library_app}/evaluate")
    assert page.get_by_text("Jeu partagé").count() == 0  # a fresh install has no shared set to offer
    question_set = tmp_path / "my_questions.jsonl"
    row = {"id": "q1", "question": QUESTION, "language": "en", "type": "definition", "pdf": PDF_NAME, "pages": [1]}
    question_set.write_text(json.dumps(row) + "\n", encoding="utf-8")
    run_question_set(page, question_set, 300_000)
    page.get_by_text("my_questions : 1 questions avec réponse sur 1").wait_for(timeout=30_000)
    assert page.get_by_text("Aucun PDF").count() == 0 and page.locator('[data-testid="stException"]').count() == 0
    shown = page.locator('[data-testid="stApp"]').inner_text()
    assert "même langue (1 questions)" in shown and "same language" not in shown  # rag_core's group, translated
    tall_shot(page, "evaluate")


def test_access_in_local_mode_explains_instead_of_showing_grant_forms(app: str, context) -> None:
    page = context.new_page()
    open_home(page, app)
    goto(page, f"{app}/access")
    page.get_by_text("Mode local : l'application n'a pas de connexion").wait_for(timeout=10_000)
    assert "RAG_AUTH__MODE=oidc" in page.locator('[data-testid="stAlert"]').first.inner_text()
    assert page.get_by_role("button", name="Accorder").count() == 0
    assert page.get_by_role("button", name="Retirer").count() == 0


def _other_language_phrases(shown: str) -> dict[str, str]:
    """Phrases of our strings in the language not shown (fixed parts of 12 characters or more, between
    the values), each differing from every phrase of the shown language; phrase -> key."""
    import re

    from rag_app.ui.strings import merged

    other = "en" if shown == "fr" else "fr"
    strings = merged()
    own = " ".join(entry[shown] for entry in strings.values())
    phrases: dict[str, str] = {}
    for key, entry in strings.items():
        for part in re.split(r"\{[^}]*\}|`[^`]*`|\*\*|:material/\w+:", entry[other]):
            part = part.strip(" :;,.()«»“”—-\n")
            if len(part) >= 12 and part not in own:
                phrases[part] = key
    return phrases


STREAMLIT_ENGLISH = ("per file", "Drag and drop", "Browse files")  # Streamlit's own uploader texts


def test_every_page_shows_one_language(library_app: str, context) -> None:
    """Every page, in French then in English, holds no phrase of our strings in the other language (nor,
    in French, Streamlit's own English uploader texts). The language is chosen once, in the sidebar, and
    the pages are reached through the navigation, as a user does."""
    from rag_app.ui.strings import merged

    nav = {name: merged()[f"nav.{name}"] for name in ("home", "library", "inspect", "ask", "search", "evaluate")}
    nav["access"] = merged()["nav.access"]
    page = context.new_page()
    open_home(page, library_app)
    found: list[str] = []
    for shown in ("fr", "en"):
        if shown == "en":
            with rerun(page):
                page.locator('[data-testid="stSidebar"]').get_by_text("English").click()
        phrases = _other_language_phrases(shown)
        for name, titles in nav.items():
            with rerun(page):
                page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=titles[shown]).click()
            page.wait_for_timeout(500)  # the fragments (queue notices) drawn after the run
            text = page.locator('[data-testid="stApp"]').inner_text()
            found += [f"{shown} {name}: {p!r} ({k})" for p, k in phrases.items() if p in text]
            if shown == "fr":
                found += [f"fr {name}: {p!r} (Streamlit)" for p in STREAMLIT_ENGLISH if p in text]
            shot(page, f"language_{shown}_{name}")
    assert not found, "\n".join(found)
