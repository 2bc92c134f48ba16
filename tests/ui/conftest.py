"""Fixtures shared by the UI tests: a Chromium page for the browser tests (Playwright driving Debian's Chromium),
and `fake_pipeline` for the AppTest ones."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.errors import RagError
from rag_core.models import Answer, ChannelHit, Paragraph, RetrievedParent, SearchResult
from rag_core.services import rechecks
from tests.fakes import replace
from tests.ui.apptest_support import CHANNELS, CHUNKED, OTHER, PDF_NAME, QUOTE, RECORD, SOURCE
from tests.ui.browser_support import launch


@pytest.fixture
def page():
    """A fresh headless Chromium page, 1500 x 1000."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        context = browser.new_context(viewport={"width": 1500, "height": 1000})
        yield context.new_page()
        browser.close()


@pytest.fixture
def fake_pipeline(monkeypatch: pytest.MonkeyPatch, corpus_dir: Path) -> dict:
    calls: dict = {"ask": [], "page_pdf": []}
    pdf = (corpus_dir / PDF_NAME).read_bytes()

    def page_pdf(doc_id, pages, settings, *, principal):
        calls["page_pdf"].append((doc_id, list(pages)))
        return pdf, {p: i + 1 for i, p in enumerate(sorted(pages))}

    def ask(question, settings, conversation_id=None, collections=None, doc_ids=None, *, principal):
        calls["ask"].append(
            {
                "question": question,
                "conversation_id": conversation_id,
                "collections": collections,
                "doc_ids": doc_ids,
                "principal": principal,
            }
        )
        return Answer(
            question=question,
            mode="extractive",
            paragraphs=[
                Paragraph(text="The vignette defines four payment variables.", source_ids=[SOURCE.id], quote=QUOTE),
                Paragraph(text="Limits *cap* payments.", source_ids=["other"], status="partially_supported"),
            ],
            sources=[SOURCE, OTHER],
            uncited=[OTHER.model_copy(update={"id": "u1"})],
            warnings=["The language model was not reached; the answer is extractive."],
        )

    hit = RetrievedParent(
        parent=CHUNKED.parents[0],
        document=RECORD,
        children=CHUNKED.children[:2],
        best_child=CHUNKED.children[1],
        fused_rank=1,
        fused_score=0.0325,
        ranks={"lexical": ChannelHit(rank=1, score=7.5, child_id="c1")},
    )

    def search(
        query,
        settings,
        collections=None,
        doc_ids=None,
        k=None,
        candidate_k=None,
        thesaurus=None,
        language=None,
        *,
        principal,
    ):
        calls.setdefault("search", []).append({"k": k, "candidate_k": candidate_k})
        return SearchResult(query=query, parents=[hit], channels=CHANNELS, elapsed_s=0.01)

    replace(monkeypatch, pipeline, "list_documents", lambda settings, collection=None, *, principal: [RECORD])
    # the scope re-check of what is on screen reads the same (fake) library: RECORD is readable
    replace(monkeypatch, rechecks, "readable_ids", lambda settings, principal: frozenset({RECORD.doc_id}))
    replace(monkeypatch, pipeline, "list_collections", lambda settings, *, principal: ["vignettes"])
    replace(monkeypatch, pipeline, "load_chunks", lambda doc_id, settings, *, principal: CHUNKED)
    replace(monkeypatch, pipeline, "page_pdf", page_pdf)
    replace(monkeypatch, pipeline, "ask", ask)

    def ask_stream(
        question, settings, conversation_id=None, collections=None, doc_ids=None, *, principal, history=None
    ):
        # The page streams; this gives whatever the test's `pipeline.ask` answers, as the stream's one final event.
        return FakeQuestionStream(
            lambda: pipeline.ask(
                question,
                settings,
                conversation_id=conversation_id,
                collections=collections,
                doc_ids=doc_ids,
                principal=principal,
            )
        )

    replace(monkeypatch, pipeline, "ask_stream", ask_stream)
    replace(monkeypatch, pipeline, "search", search)
    replace(
        monkeypatch,
        pipeline,
        "backends",
        lambda settings: {"parser": "pymupdf (set RAG_PARSING__DOCLING_ARTIFACTS_PATH)", "embedder": "e5-small"},
    )
    return calls


class FakeQuestionStream:
    """A fake of the façade's question stream (`pipeline.ask_stream`): the answer `answer_of` gives as its
    one `Done` event, or the error it raises as `Failed`, as the real stream ends; `stop()` keeps that answer."""

    def __init__(self, answer_of: Callable[[], Answer]) -> None:
        self.answer_of, self.answer = answer_of, None

    def __iter__(self) -> Iterator[pipeline.Event]:
        try:
            self.answer = self.answer_of()
        except RagError as err:
            yield pipeline.Failed(err)
            return
        yield pipeline.Done(self.answer)

    def stop(self) -> Answer | None:
        return self.answer
