"""A passage whose extracted text is garbled mathematics is shown as the page prints it (the crop of its
boxes, captioned, its text under an expander) on the Ask and Search pages; a clean one as text, as before.

AppTest with the `fake_pipeline` fixture; the crop is the real rendering of the corpus PDF's region
(`rag_core.parsing.files.region_png`) behind a fake of the façade's access check."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.models import Answer, ChannelHit, Paragraph, RetrievedParent, SearchResult
from rag_core.parsing.files import region_png
from tests.fakes import replace
from tests.ui.apptest_support import CHANNELS, CHUNKED, DOC_ID, PDF_NAME, RECORD, SOURCE, fake_ask, fake_search, run_app
from tests.ui.test_apptest import fake_access  # noqa: F401  (the local operator's access, autouse)

GARBLED = "pour i\u0338 = i′ (2) E \ufffdCij | Ci1, . . . , Ci(j−1)\ufffd = λj−1Ci(j−1)"
CLEAN = "The vignette defines four payment variables."
CAPTION = "Formule telle qu'imprimée (le texte extrait est illisible)"


@pytest.fixture
def crops(monkeypatch: pytest.MonkeyPatch, corpus_dir: Path) -> list:
    """A fake of `pipeline.region_image` (no library behind these pages): the real crop of the corpus PDF."""
    asked: list = []

    def region_image(doc_id, boxes, settings, *, principal, margin=4.0):
        asked.append((doc_id, list(boxes)))
        b = boxes[0]
        return region_png(corpus_dir / PDF_NAME, b.page, (b.x0, b.y0, b.x1, b.y1), margin=margin)

    replace(monkeypatch, pipeline, "region_image", region_image)
    return asked


def crops_shown(at) -> list:
    """The page's images that are crops (st.image with the crop's caption; the page has others, its logo)."""
    return [image for image in at.get("image") if image.captions != [""]]


def test_ask_shows_a_garbled_paragraph_as_printed_and_a_clean_one_as_text(
    fake_pipeline: dict, crops: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = Answer(
        question="Quelles sont les hypothèses de Mack ?",
        mode="extractive",
        sources=[SOURCE],
        paragraphs=[Paragraph(text=GARBLED, source_ids=[SOURCE.id]), Paragraph(text=CLEAN, source_ids=[SOURCE.id])],
    )
    replace(monkeypatch, pipeline, "ask", fake_ask(lambda q: answer))
    at = run_app("views/ask.py")
    at.chat_input(key="ask_input").set_value("Quelles sont les hypothèses de Mack ?").run()
    assert not at.exception
    assert crops == [(DOC_ID, SOURCE.boxes)]  # the cited passage's boxes, of its document
    (shown,) = crops_shown(at)
    assert shown.captions == [CAPTION]
    (folded,) = [e for e in at.expander if e.label == "Texte extrait"]
    assert any("Ci1, . . . , Ci(j−1)" in m.value for m in folded.markdown)  # the extracted text, folded
    outside = [m.value for m in at.markdown if m not in folded.markdown]
    assert not any("Ci1, . . . , Ci(j−1)" in value for value in outside)
    assert CLEAN in outside  # the clean paragraph stays text, shown as before


def test_search_shows_a_garbled_passage_as_printed(
    fake_pipeline: dict, crops: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    garbled = CHUNKED.children[1].model_copy(update={"text": GARBLED})
    hit = RetrievedParent(
        parent=CHUNKED.parents[0],
        document=RECORD,
        children=[CHUNKED.children[0], garbled],
        best_child=garbled,
        fused_rank=1,
        fused_score=0.03,
        ranks={"lexical": ChannelHit(rank=1, score=7.5, child_id=garbled.id)},
    )
    result = SearchResult(query="hypothèses", parents=[hit], channels=CHANNELS, elapsed_s=0.01)
    replace(monkeypatch, pipeline, "search", fake_search(lambda q: result))
    at = run_app("views/search.py")
    at.text_input(key="search_query").input("hypothèses")
    at.button[0].click().run()
    assert not at.exception
    assert crops == [(DOC_ID, garbled.boxes)]
    (shown,) = crops_shown(at)
    assert shown.captions == [CAPTION]
    (folded,) = [e for e in at.expander if e.label == "Texte extrait"]
    assert any("Ci1, . . . , Ci(j−1)" in m.value for m in folded.markdown)


def test_search_shows_a_clean_passage_as_text(fake_pipeline: dict, crops: list) -> None:
    at = run_app("views/search.py")
    at.text_input(key="search_query").input("deductible")
    at.button[0].click().run()
    assert not at.exception
    assert crops == [] and crops_shown(at) == []
    assert any("A franchise" in m.value for m in at.markdown)  # the excerpt, as before


def test_ask_shows_a_garbled_paragraph_of_another_format_as_text(
    fake_pipeline: dict, crops: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Word or Markdown document prints no page: its garbled paragraph stays text, with no error."""
    docx = SOURCE.model_copy(update={"file_name": "hypotheses.docx"})
    answer = Answer(
        question="Mack ?", mode="extractive", sources=[docx], paragraphs=[Paragraph(text=GARBLED, source_ids=[docx.id])]
    )
    replace(monkeypatch, pipeline, "ask", fake_ask(lambda q: answer))
    at = run_app("views/ask.py")
    at.chat_input(key="ask_input").set_value("Mack ?").run()
    assert not at.exception and not at.error
    assert crops == [] and crops_shown(at) == []
    assert any("Ci1, . . . , Ci(j−1)" in m.value for m in at.markdown)
