"""Hostile document text and file names are shown as text, never run, in a real headless Chromium.

A PDF whose text holds `<script>`, an `<img onerror>`, Markdown links and images and HTML tags is
uploaded under a file name that is itself HTML, then shown in Library, Inspect (the child's raw
text), Ask (an answer from the model, through the real local chat-completions server, that
repeats the hostile text) and Search. On each page: `window.__pwned` stays undefined, no injected
element exists, and the hostile text is visible literally. The app runs with a distinctive API
key in its environment: the key appears neither in the served pages nor in the server's output.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import bad_files
from tests.fake_chat_server import FakeChatServer
from tests.ui.browser_support import CHROMIUM, REPO, goto, open_home, rerun, start_app, stop_app, upload_in_library

ARTIFACTS = REPO / "test-artifacts" / "browser-hostile"
FILE_NAME = "<img src=x onerror=window.__pwned=9> **report**.pdf"
KEY = "fakekey-BROWSER-KEY-7d41c0ffee93"
QUESTION = "What is the loss ratio of the motor portfolio?"
INJECTED = {
    "img[src='x']": "an <img src=x>",
    "a[href^='javascript']": "a javascript: link",
    "img[src*='evil.png']": "a Markdown image",
    "iframe[src='about:blank']": "an <iframe>",
}

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")


@pytest.fixture
def chat_server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as server:
        yield server


@pytest.fixture
def app(tmp_path: Path, chat_server: FakeChatServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", chat_server.base_url)
    monkeypatch.setenv("RAG_LLM__MODEL", "test-model")
    log = ARTIFACTS / "streamlit.log"
    proc, url = start_app(
        tmp_path / "data", log, api=True, workers=True
    )  # the API server's output is checked for the key too
    yield url, log
    stop_app(proc)


def assert_nothing_ran(page, where: str) -> None:
    assert page.evaluate("() => typeof window.__pwned") == "undefined", f"{where}: a document script ran"
    for selector, what in INJECTED.items():
        assert page.locator(selector).count() == 0, f"{where}: {what} was injected"
    assert page.locator("b", has_text="bold tag").count() == 0, f"{where}: a <b> tag was rendered"
    assert not page.evaluate("() => [...document.scripts].some(s => s.textContent.includes('__pwned'))"), where
    assert KEY not in page.content(), f"{where}: the API key is in the page"


def visible_text(page) -> str:
    return page.locator("body").inner_text()


def test_hostile_text_is_shown_as_text_everywhere(app, page, chat_server: FakeChatServer, tmp_path: Path) -> None:
    url, log = app
    source = tmp_path / FILE_NAME
    bad_files.hostile_text(source)
    # The router's reply comes first (the budget and its reason, shown on the Ask page), then the answer.
    chat_server.answer(
        {"kind": "definition", "reason": '<img src=x onerror="window.__pwned=5"> a ratio is asked', "sub_questions": []}
    )
    chat_server.answer(
        {
            "paragraphs": [
                {
                    "text": "Quoted: " + " ".join(bad_files.HOSTILE_LINES),
                    "source_ids": ["S1"],
                    "quote": "The loss ratio of the motor portfolio is 72 percent.",
                }
            ],
            "missing_information": "<script>window.__pwned=4</script>",
        }
    )
    try:
        _journey(url, page, source)
    except Exception:
        page.screenshot(path=str(ARTIFACTS / "99_failure.png"), full_page=True)
        raise
    assert len(chat_server.requests) == 2 and all(h["authorization"] == f"Bearer {KEY}" for h in chat_server.headers)
    output = log.read_text(encoding="utf-8", errors="replace")
    assert "You can now view" in output or "URL" in output, output[:500]  # the server output was captured
    assert KEY not in output


def _journey(url: str, page, source: Path) -> None:
    open_home(page, url)
    assert_nothing_ran(page, "home")

    # Library: upload under an HTML file name; the result names it literally.
    result = upload_in_library(page, url, source, "importé", 300_000)
    page.screenshot(path=str(ARTIFACTS / "01_library.png"), full_page=True)
    assert FILE_NAME in result.first.inner_text()
    assert_nothing_ran(page, "library")

    # Inspect: the child's raw text shows every hostile line literally.
    goto(page, f"{url}/inspect")
    page.get_by_role("heading", name="Sections").wait_for(timeout=10_000)
    page.screenshot(path=str(ARTIFACTS / "02_inspect.png"), full_page=True)
    text = visible_text(page)
    for line in bad_files.HOSTILE_LINES:
        assert line in text, f"inspect does not show {line!r} literally"
    assert_nothing_ran(page, "inspect")

    # Ask: the model's answer repeats the hostile text; it is shown as text.
    goto(page, f"{url}/ask")
    chat = page.locator('[data-testid="stChatInputTextArea"]')
    chat.wait_for(timeout=10_000)
    chat.fill(QUESTION)
    with rerun(page, 180_000):
        chat.press("Enter")
    page.locator('[data-testid="stChatMessage"] button').filter(has_text="p.").first.wait_for(timeout=10_000)
    page.get_by_text("Détails de la recherche").first.click()  # the router's reason is behind the details expander
    page.get_by_text("a ratio is asked").first.wait_for(timeout=10_000)
    page.screenshot(path=str(ARTIFACTS / "03_ask.png"), full_page=True)
    text = visible_text(page)
    for line in bad_files.HOSTILE_LINES:
        assert line in text, f"ask does not show {line!r} literally"
    assert "<script>window.__pwned=4</script>" in text
    assert '<img src=x onerror="window.__pwned=5"> a ratio is asked' in text  # the router's reason, as text
    assert_nothing_ran(page, "ask")

    # Search: the ranked passages; the file name and sections are shown as text.
    goto(page, f"{url}/search")
    query = page.get_by_label("Question")
    query.wait_for(timeout=10_000)
    query.fill("loss ratio motor portfolio")
    with rerun(page):  # the text is committed (one run), then the search is asked (another)
        query.press("Enter")
    with rerun(page):
        page.get_by_role("button", name="Rechercher").click()
    open_button = page.get_by_role("button", name="Ouvrir").first  # each result is a card with its open button
    open_button.wait_for(timeout=10_000)
    page.screenshot(path=str(ARTIFACTS / "04_search.png"), full_page=True)
    assert_nothing_ran(page, "search")
    # Opening the first result shows the passage, titled with the file name, written as Markdown by the
    # page: it must read literally.
    with rerun(page):
        open_button.click()
    page.get_by_text("Page(s) affichée(s)").first.wait_for(timeout=10_000)
    page.screenshot(path=str(ARTIFACTS / "05_search_passage.png"), full_page=True)
    assert FILE_NAME in visible_text(page)
    assert_nothing_ran(page, "search passage")
