"""Scope checked again on what was produced before a grant was revoked: the search result still on
the Search page, the answers of the chat, and the stored conversation that `ask` gives the model as
history of the next question. Real library (tests/access_support.py), real LanceDB, real grants.

ALICE's group "actuaries" is given read on "board" (besides "guides"), she searches and asks about
`SECRET_WORD`, then the board grant is revoked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.question import stream as question_stream
from rag_core.services.conversations import conversation_history
from tests.access_support import (
    ADMIN,
    ALICE,
    SECRET_QUERY,
    SECRET_WORD,
    IngestedCollections,
    copy_library,
    share_guides,
)
from tests.fakes import replace


@pytest.fixture
def library(access_template: IngestedCollections, tmp_path: Path) -> IngestedCollections:
    lib = copy_library(access_template, tmp_path)
    share_guides(lib)
    pipeline.grant(lib.settings, "board", principal=ADMIN, group="actuaries", role="read")
    return lib


def _revoke_board(lib: IngestedCollections) -> None:
    pipeline.revoke(lib.settings, "board", principal=ADMIN, group="actuaries")


def test_a_search_result_loses_the_documents_no_longer_readable(library: IngestedCollections) -> None:
    result = pipeline.search(SECRET_QUERY, library.settings, principal=ALICE)
    docs = {h.document.doc_id for h in result.parents}
    assert library.doc_ids["board"] in docs and library.doc_ids["guides"] in docs
    assert pipeline.search_in_scope(result, library.settings, principal=ALICE) == result  # nothing changed yet
    _revoke_board(library)
    checked = pipeline.search_in_scope(result, library.settings, principal=ALICE)
    assert {h.document.doc_id for h in checked.parents} == docs - {library.doc_ids["board"]}
    assert SECRET_WORD not in checked.model_dump_json(include={"parents"})


def test_answers_that_used_a_revoked_document_are_withheld(library: IngestedCollections) -> None:
    answer = pipeline.ask(SECRET_QUERY, library.settings, principal=ALICE)
    assert any(s.doc_id == library.doc_ids["board"] for s in answer.sources)
    assert pipeline.answers_in_scope([None, answer], library.settings, principal=ALICE) == [True, True]
    _revoke_board(library)
    assert pipeline.answers_in_scope([None, answer], library.settings, principal=ALICE) == [True, False]


def test_the_history_given_to_the_model_leaves_out_what_used_a_revoked_document(
    library: IngestedCollections, monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list = []  # a spy on the real question flow: the history `ask` hands it (and so the model)
    real = question_stream.build_context

    def spy(  # type: ignore[no-untyped-def]
        question, settings, principal, conversation_id=None, collections=None, doc_ids=None, history=None, language=None
    ):
        context = real(question, settings, principal, conversation_id, collections, doc_ids, history, language)
        given.append(list(context.history))
        return context

    replace(monkeypatch, question_stream, "build_context", spy)

    answer = pipeline.ask(SECRET_QUERY, library.settings, conversation_id="c1", principal=ALICE)
    assert SECRET_WORD in " ".join(p.text for p in answer.paragraphs)
    pipeline.ask("And the reserving guide?", library.settings, conversation_id="c1", principal=ALICE)
    assert SECRET_WORD in " ".join(text for _, text in given[-1])  # the control: board text was history
    assert SECRET_WORD in " ".join(t for _, t in conversation_history(library.settings, "c1", principal=ALICE))
    _revoke_board(library)
    pipeline.ask("And the Quokka reserving guide?", library.settings, conversation_id="c1", principal=ALICE)
    assert SECRET_WORD not in " ".join(text for _, text in given[-1])
    assert SECRET_WORD not in " ".join(t for _, t in conversation_history(library.settings, "c1", principal=ALICE))
