"""A refusal on the Ask page, end to end: the real offline pipeline (parse, chunk, embed, LanceDB, the
streamed question) behind the page, no stand-in. When the product refuses, the page names the part of
the question it could not find and still lists the closest passages, and a click on one opens it.

The library is a two-page annual report written here with PyMuPDF; the questions are written for
these tests.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rag_app.ui.i18n import t
from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from tests.answer_pdfs import headed_pages
from tests.ui.apptest_support import APP

LOCAL = Principal.local_operator()
PAGES = [
    [
        "Results of Operations",
        "Harbourline Retail sells kitchen equipment through 96 stores. Net sales for fiscal 2024 were "
        "$1,204 million, an increase of 2.6% from fiscal 2023, as customers bought more ovens.",
    ],
    [
        "Liquidity and Capital Resources",
        "Capital expenditures were $57 million in fiscal 2024, mostly for a new warehouse in Leeds.",
    ],
]


def _report(path: Path) -> Path:
    return headed_pages(path, PAGES)


@pytest.fixture
def ask_page(tmp_path: Path) -> AppTest:
    """The Ask page on a library where the real pipeline ingested the report (RAG_DATA_DIR is the test's)."""
    settings = Settings(data_dir=Path(os.environ["RAG_DATA_DIR"]))
    (result,) = pipeline.ingest([_report(tmp_path / "harbourline.pdf")], settings, principal=LOCAL)
    assert result.status == "ingested", result.message
    at = AppTest.from_file(APP, default_timeout=300).run()
    at.switch_page("views/ask.py").run()
    assert not at.exception, at.exception
    return at


def _closest(at: AppTest) -> list:
    """The closest-passage cards: the buttons that open a PDF (the material icon of `citation_cards`)."""
    return [b for b in at.button if b.proto.icon == ":material/picture_as_pdf:"]


def _viewer_pages(at: AppTest) -> list[int]:
    viewers = [c for c in at.get("component_instance") if c.proto.component_name.endswith("streamlit_pdf_viewer")]
    assert len(viewers) == 1
    args = json.loads(viewers[0].proto.json_args)
    return sorted({a["page"] for a in args["annotations"]})


def test_a_name_the_library_never_writes_is_named_on_the_page_with_the_closest_passages(ask_page: AppTest) -> None:
    at = ask_page
    at.chat_input(key="ask_input").set_value("What were the net sales of the Glasgow stores in fiscal 2024?").run()
    assert not at.exception, at.exception
    warnings = [w.value for w in at.warning]
    assert any("Glasgow" in w for w in warnings), warnings  # the part of the question not found, by name
    assert not any("Net sales" in w or "fiscal 2024" in w for w in warnings)  # and only that part
    assert any(i.value == t("ask.refused_closest") for i in at.info), [i.value for i in at.info]
    cards = _closest(at)
    assert cards, [b.label for b in at.button]  # the closest passages are still listed
    cards[0].click().run()  # and the closest one opens on its page, highlighted
    assert not at.exception, at.exception
    assert _viewer_pages(at) == [1]  # net sales are on the report's first page


def test_constraints_held_only_apart_are_named_together_on_the_page(ask_page: AppTest) -> None:
    at = ask_page
    at.chat_input(key="ask_input").set_value("How much did the Leeds warehouse cost in fiscal 2023?").run()
    assert not at.exception, at.exception
    warnings = [w.value for w in at.warning]
    # Leeds is written with fiscal 2024's capital expenditures, fiscal 2023 only with net sales
    assert any("Leeds" in w and "2023" in w for w in warnings), warnings
    assert any(i.value == t("ask.refused_closest") for i in at.info), [i.value for i in at.info]
    assert _closest(at)
