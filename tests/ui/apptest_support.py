"""The pages' test double of one document (a record, its chunks, two sources) and AppTest helpers, shared by the
AppTest modules; the `fake_pipeline` fixture (tests/ui/conftest.py) serves them in place of the pipeline."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from streamlit.testing.v1 import AppTest

from rag_core import retrieval
from rag_core.models import (
    Answer,
    Child,
    Chunked,
    DocumentRecord,
    HighlightBox,
    Item,
    Parent,
    SearchResult,
    Source,
    TableCell,
)

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "rag_app" / "app.py")
PDF_NAME = "en_actuar_coverage_modifications.pdf"
QUOTE = "definitions of the above four random variables"
DOC_ID = "d" * 64


CHANNELS = [c.name for c in retrieval.channels()]  # the Search page's columns
RECORD = DocumentRecord(
    doc_id=DOC_ID,
    file_name=PDF_NAME,
    title="Coverage modifications",
    author="Vincent Goulet",
    date="2023-02-06",
    collection="vignettes",
    language="en",
    pages=5,
    parents=2,
    children=3,
    tables=1,
    parser="pymupdf",
    embedder="e5-small",
    ingested_at="2026-11-29T20:00:00",
    elapsed_s=3.2,
)


STRONG = HighlightBox(page=3, x0=72, y0=200, x1=400, y1=214)
LIGHT = HighlightBox(page=3, x0=72, y0=230, x1=400, y1=244)


SOURCE = Source(
    id=f"{DOC_ID[:16]}:p0001",
    kind="parent",
    doc_id=DOC_ID,
    file_name=PDF_NAME,
    title="Coverage modifications",
    section="Coverage › Deductibles",
    pages=[3],
    label="Coverage modifications · Deductibles · p. 3",
    text="This document presents the definitions of the above four random variables.",
    parent_id="p1",
    boxes=[STRONG],
    parent_boxes=[STRONG, LIGHT],
)


OTHER = SOURCE.model_copy(
    update={
        "id": "other",
        "label": "Coverage modifications · Limits · p. 4",
        "pages": [4],
        "boxes": [HighlightBox(page=4, x0=1, y0=2, x1=3, y1=4)],
        "parent_boxes": [],
    }
)


def _children() -> list[Child]:
    texts = ["Deductibles reduce the payment.", "A franchise deductible pays all.", "Limits cap the payment."]
    return [
        Child(
            id=f"c{i}",
            parent_id="p1" if i < 2 else "p2",
            doc_id=DOC_ID,
            index=i,
            text=text,
            context_text=f"Coverage › Deductibles\n{text}",
            start=0,
            end=len(text),
            tokens=8 + i,
            pages=[1],
            boxes=[HighlightBox(page=1, x0=72, y0=100 + 20 * i, x1=300, y1=114 + 20 * i)],
        )
        for i, text in enumerate(texts)
    ]


TABLE = Item(
    ref="#/tables/0",
    kind="table",
    caption="Table 1: payment variables",
    page=1,
    boxes=[HighlightBox(page=1, x0=72, y0=300, x1=500, y1=400)],
    n_rows=2,
    n_cols=2,
    cells=[
        TableCell(row=0, col=0, text="variable"),
        TableCell(row=0, col=1, text="meaning"),
        TableCell(row=1, col=0, text="Y^P"),
        TableCell(row=1, col=1, text="per payment"),
    ],
)


CHUNKED = Chunked(
    parents=[
        Parent(
            id="p1",
            doc_id=DOC_ID,
            index=0,
            heading_path=["Coverage", "Deductibles"],
            text="...",
            tokens=17,
            pages=[1],
            child_ids=["c0", "c1"],
            items=[TABLE],
        ),
        Parent(
            id="p2",
            doc_id=DOC_ID,
            index=1,
            heading_path=["Coverage", "Limits"],
            text="...",
            tokens=10,
            pages=[1],
            child_ids=["c2"],
        ),
    ],
    children=_children(),
)


_TOOLTIP = re.compile(r'_row(\d+)_col(\d+) \.pd-t::after \{ content: "((?:[^"\\]|\\.)*)" \}')
_CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6}) ?|\\(.)")


def hover_texts(table) -> dict[tuple[int, int], str]:
    """{(row, column): text} of the tooltips of an `st.table` drawn from a pandas Styler, read
    from the style sheet the app sends (CSS escapes decoded)."""

    def unescape(text: str) -> str:
        return _CSS_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else m.group(2), text)

    styles = table.proto.arrow_data.styler.styles
    return {(int(r), int(c)): unescape(text) for r, c, text in _TOOLTIP.findall(styles)}


def run_app(page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def viewer_args(at: AppTest) -> dict:
    viewers = [c for c in at.get("component_instance") if c.proto.component_name.endswith("streamlit_pdf_viewer")]
    assert len(viewers) == 1, [c.proto.component_name for c in at.get("component_instance")]
    args = json.loads(viewers[0].proto.json_args)
    args.pop("binary")
    return args


def fake_ask(make: Callable[[str], Answer]) -> Callable[..., Answer]:
    """A stand-in for `pipeline.ask`, with its parameters, answering `make(question)`."""

    def ask(question, settings, conversation_id=None, collections=None, doc_ids=None, *, principal):
        return make(question)

    return ask


def fake_search(make: Callable[[str], SearchResult]) -> Callable[..., SearchResult]:
    """A stand-in for `pipeline.search`, with its parameters, returning `make(query)`."""

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
        return make(query)

    return search
