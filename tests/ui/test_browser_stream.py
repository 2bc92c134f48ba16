"""The Ask page streams in a real headless Chromium: paragraphs appear and are marked verified before
the answer ends, the verified answer replaces the draft, and Stop keeps what was verified.

A one-page PDF made here with PyMuPDF is ingested by the real offline pipeline; the app talks to
the fake chat-completions endpoint of `tests.fake_chat_server` (llama.cpp family: it rejects
`json_schema`, the app falls back to `json_object`), which streams its reply slowly in small
pieces so that the page can be seen mid-answer. No clock is read: "before the end" is shown by a
draft (the paragraph being written) and a verification mark on the page at the same time.
Screenshots: test-artifacts/browser/stream_01_midstream.png, stream_02_final.png, stream_03_stopped.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_chat_server import FakeChatServer, Reply
from tests.ui.browser_support import CHROMIUM, REPO, goto, open_home, rerun, start_app, stop_app

ARTIFACTS = REPO / "test-artifacts" / "browser"
SENTENCES = [
    "The chain ladder method projects cumulative paid claims with age-to-age development factors.",
    "The development factor from 12 to 24 months is 1.54 for the portfolio.",
    "Mack's model gives the mean squared error of prediction of the reserves.",
]
QUESTION = "How does the chain ladder method project the claims?"
ANSWER = {
    "paragraphs": [
        {
            "text": "The chain ladder method projects cumulative paid claims with development factors.",
            "source_ids": ["S1"],
            "quote": SENTENCES[0],
            "computations": [],
        },
        {
            "text": "From 12 to 24 months the development factor is 1.54.",
            "source_ids": ["S1"],
            "quote": "development factor from 12 to 24 months is 1.54",
            "computations": [],
        },
        {
            "text": "Mack's model adds the mean squared error of prediction of the reserves.",
            "source_ids": ["S1"],
            "quote": SENTENCES[2],
            "computations": [],
        },
    ],
    "missing_information": "",
}

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[str, FakeChatServer]]:
    import pymupdf

    from rag_core import pipeline
    from rag_core.access import Principal
    from rag_core.config import Settings

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pdf = tmp_path / "chain_ladder_note.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((72, 72), "Chain ladder note", fontsize=16)
        for i, sentence in enumerate(SENTENCES):
            page.insert_text((72, 110 + 24 * i), sentence, fontsize=9)
        doc.save(pdf)
    data = tmp_path / "data"
    (result,) = pipeline.ingest([pdf], Settings(data_dir=data), principal=Principal.local_operator())
    assert result.status == "ingested", result.message
    with FakeChatServer(family="llamacpp") as server:
        env = {
            "RAG_LLM__BASE_URL": server.base_url,
            "RAG_LLM__MODEL": "slow-local-model",
            "RAG_LLM__TIMEOUT_S": "60",
            "RAG_UNDERSTANDING__CONTEXT_BUDGET": "false",
            "RAG_UNDERSTANDING__SUB_QUESTIONS": "false",
            "RAG_UNDERSTANDING__FOLLOWUPS": "false",
        }
        proc, url = start_app(data, ARTIFACTS / "streamlit_stream.log", env=env)
        try:
            yield url, server
        finally:
            stop_app(proc)


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"stream_{name}.png"), full_page=True)


def send(page, question: str) -> None:
    chat = page.locator('[data-testid="stChatInputTextArea"]')
    chat.wait_for(timeout=10_000)
    chat.fill(question)
    chat.press("Enter")  # not waited for: the answer is watched while it is written


def test_paragraphs_are_shown_and_marked_while_the_answer_is_written(app, page) -> None:
    url, server = app
    server.queue(
        Reply(content=ANSWER, chunk_chars=4, chunk_delay_s=0.12),
        Reply(content=ANSWER, chunk_chars=4, chunk_delay_s=0.25),
    )
    try:
        _journey(url, server, page)
    except Exception:
        shot(page, "99_failure")
        raise


def _journey(url: str, server: FakeChatServer, page) -> None:
    open_home(page, url)
    goto(page, f"{url}/ask")

    # (a) Mid-stream: the first paragraph is marked verified while the next one is still a draft.
    send(page, QUESTION)
    answer = page.locator('[data-testid="stChatMessage"]').last
    verified = answer.get_by_text("paragraphe vérifié")
    verified.first.wait_for(timeout=120_000)
    draft = answer.get_by_text("▌")
    draft.first.wait_for(timeout=30_000)
    assert verified.count() >= 1 and draft.count() == 1  # a verified paragraph and one being written, together
    assert "Arrêter la rédaction" in page.get_by_role("button", name="Arrêter la rédaction").inner_text()
    assert ANSWER["paragraphs"][0]["text"] in answer.inner_text()
    shot(page, "01_midstream")

    # (b) The end: the verified answer replaces the draft, with its number marks and its cost.
    # a llama.cpp server streams no usage: the tokens are counted locally and the line says so
    final = answer.get_by_text("jetons estimés localement")
    final.first.wait_for(timeout=120_000)
    text = answer.inner_text()
    assert "▌" not in text and "paragraphe vérifié" not in text and "Arrêter la rédaction" not in text
    assert ANSWER["paragraphs"][0]["text"] in text and ANSWER["paragraphs"][2]["text"] in text
    # traced to its sentence, not to a table cell nor a computation: shown as written, without a check mark
    assert "1.54" in text and "1.54 ✓" not in text
    assert "json_object" in text  # llama.cpp rejected json_schema; the dialect in use is said
    assert [b.get("response_format", {}).get("type") for b in server.requests] == ["json_schema", "json_object"]
    shot(page, "02_final")

    # (c) Stop after the first verified paragraph: only what was verified is kept, and said.
    with rerun(page):
        page.get_by_role("button", name="Nouvelle conversation").click()
    send(page, QUESTION)
    answer = page.locator('[data-testid="stChatMessage"]').last
    answer.get_by_text("paragraphe vérifié").first.wait_for(timeout=120_000)
    with rerun(page):
        page.get_by_role("button", name="Arrêter la rédaction").click()
    stopped = page.locator('[data-testid="stChatMessage"]').last
    # the page is in French: the stop notice of an English question is told in the page's language
    stopped.get_by_text("Rédaction arrêtée").first.wait_for(timeout=30_000)
    text = stopped.inner_text()
    assert "Generation stopped" not in text
    assert ANSWER["paragraphs"][0]["text"] in text
    assert ANSWER["paragraphs"][2]["text"] not in text  # never written before the stop
    assert "▌" not in text
    shot(page, "03_stopped")
