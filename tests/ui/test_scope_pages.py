"""The Search and Ask pages, through streamlit.testing.v1.AppTest on a real library (LanceDB, real
grants), after the signed-in user loses a grant: the results and answers already in the session are
checked again by rag_core on the next run, and what came from the revoked collection is gone.

ALICE (group "actuaries") may read "board" and "guides" until the board grant is revoked; who is
signed in is set by replacing `ui.auth.resolve` (AppTest cannot send a proxy's headers).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rag_core import pipeline
from tests.access_support import (
    ADMIN,
    ALICE,
    SECRET_QUERY,
    SECRET_WORD,
    IngestedCollections,
    copy_library,
    share_guides,
)

APP = str(Path(__file__).resolve().parents[2] / "rag_app" / "app.py")


@pytest.fixture(scope="module")
def template(access_template: IngestedCollections) -> IngestedCollections:
    return access_template  # built once a run (tests/conftest.py); each test copies it


@pytest.fixture
def library(template: IngestedCollections, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> IngestedCollections:
    from rag_app.ui import auth

    lib = copy_library(template, tmp_path)
    share_guides(lib)
    pipeline.grant(lib.settings, "board", principal=ADMIN, group="actuaries", role="read")
    monkeypatch.setenv("RAG_DATA_DIR", str(lib.settings.data_dir))
    monkeypatch.setattr(auth, "resolve", lambda settings, **_: (ALICE, ""))
    return lib


def _page(view: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page(view).run()
    assert not at.exception, at.exception
    return at


def _shown(at: AppTest) -> str:
    """What the page shows of the library: markdown, captions, buttons, tables (not the user's own question)."""
    parts = [e.value for kind in ("markdown", "caption", "warning", "info") for e in getattr(at, kind)]
    parts += [b.label for b in at.button] + [d.value.to_csv() for d in at.dataframe]
    return "\n".join(str(p) for p in parts)


def test_the_search_page_drops_results_of_a_revoked_collection(library: IngestedCollections) -> None:
    at = _page("views/search.py")
    at.text_input(key="search_query").input(SECRET_QUERY)
    at.button[0].click().run()  # the form's submit button
    assert "board.pdf" in _shown(at) and SECRET_WORD in _shown(at)
    pipeline.revoke(library.settings, "board", principal=ADMIN, group="actuaries")
    at.run()
    assert not at.exception, at.exception
    assert "board.pdf" not in _shown(at) and SECRET_WORD not in _shown(at)
    assert "guides.pdf" in _shown(at)  # what is still readable stays
    assert any("retiré" in w.value for w in at.warning)


def test_the_ask_page_withholds_answers_that_used_a_revoked_collection(library: IngestedCollections) -> None:
    at = _page("views/ask.py")
    at.chat_input(key="ask_input").set_value(SECRET_QUERY).run()
    assert not at.exception, at.exception
    assert SECRET_WORD in _shown(at)
    pipeline.revoke(library.settings, "board", principal=ADMIN, group="actuaries")
    at.run()
    assert not at.exception, at.exception
    assert SECRET_WORD not in _shown(at)
    assert any("n'avez plus accès" in i.value for i in at.info)
