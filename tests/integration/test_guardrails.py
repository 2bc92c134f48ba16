"""The LLM-mode guard-rails of the answer, against a real HTTP server
speaking the chat-completions protocol: the term check before any model call, the optional support
check (second pass), sources grouped by collection and paragraphs that cite two collections marked."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from rag_core.answering import answer
from rag_core.answering.coverage import Coverage
from rag_core.config import Settings
from rag_core.models import SearchResult
from tests.answering_support import make_result
from tests.fake_chat_server import FakeChatServer
from tests.llm_support import MSEP_QUOTE, QUESTION_FR, good, llm_settings, messages, para


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as s:
        yield s


def checking(settings: Settings, server: FakeChatServer) -> Settings:
    s = llm_settings(settings, server)
    return s.model_copy(update={"answer": s.answer.model_copy(update={"support_check": True})})


def verdicts(*items: tuple[int, str, str]) -> dict:
    return {"verdicts": [{"paragraph": n, "verdict": v, "reason": r} for n, v, r in items]}


TABLE_QUOTE = "| 2022 | 1 310 | 2 020 |"


def test_a_term_no_document_mentions_refuses_before_any_model_call(settings, server) -> None:
    a = answer(
        "Quel est le taux de la TSCA ?",
        make_result(),
        llm_settings(settings, server),
        coverage=Coverage(missing=("TSCA",)),
    )
    assert a.mode == "refused" and a.missing_terms == ["TSCA"]
    assert a.missing_information == "Aucun des documents auxquels vous avez accès ne mentionne « TSCA »."
    assert server.requests == []  # no token spent on a refusal
    assert a.uncited  # the closest passages are still listed


def test_terms_missing_from_the_passages_are_told_to_the_model_and_marked(settings, server) -> None:
    server.answer(good(para("La MSEP vient du modèle de Mack.", ["S1"], MSEP_QUOTE)))
    a = answer(
        QUESTION_FR,
        make_result(),
        llm_settings(settings, server),
        coverage=Coverage(not_retrieved=("Schnieper",)),
        retried=("Schnieper",),
    )
    _, user = messages(server)
    assert 'aucune source ne mentionne "Schnieper"' in user
    assert user.index("</sources>") < user.index("Schnieper") < user.index("Question:")
    assert a.mode == "llm" and a.terms_not_in_passages == ["Schnieper"] and a.retried_terms == ["Schnieper"]
    assert "« Schnieper »" in a.missing_information


def test_support_check_is_off_by_default(settings, server) -> None:
    server.answer(good(para("La MSEP vient du modèle de Mack.", ["S1"], MSEP_QUOTE)))
    a = answer(QUESTION_FR, make_result(), llm_settings(settings, server))
    assert len(server.requests) == 1
    assert a.paragraphs[0].judged is None and a.check_prompt_tokens == 0


def test_support_check_judges_each_paragraph_and_flags_the_unsupported(settings, server) -> None:
    server.answer(
        good(
            para("Le modèle de Mack fournit la MSEP des réserves.", ["S1"], MSEP_QUOTE),
            para("Le tableau montre que les paiements baissent.", ["S3"], TABLE_QUOTE),
        )
    )
    server.answer(
        verdicts(
            (1, "supported", "S1 defines the MSEP."), (2, "not_supported", "S3 shows payments rising, not falling.")
        ),
        prompt_tokens=400,
        completion_tokens=60,
    )
    a = answer(QUESTION_FR, make_result(), checking(settings, server))
    assert len(server.requests) == 2
    check = server.requests[1]["messages"]
    assert "Le tableau montre que les paiements baissent." in check[1]["content"]
    assert "2 020" in check[1]["content"]  # the cited table goes with its paragraph
    first, second = a.paragraphs
    assert (first.judged, second.judged) == ("supported", "not_supported")
    assert second.status == "supported"  # the quote is right: the code's own check is unchanged ...
    assert "rising" in second.note  # ... and the verdict's reason flags it
    assert (a.prompt_tokens, a.completion_tokens) == (123, 45)  # the answer's own call
    assert (a.check_prompt_tokens, a.check_completion_tokens) == (400, 60) and a.check_elapsed_s > 0


def test_a_model_that_approves_everything_does_not_hide_a_bad_quote(settings, server) -> None:
    server.answer(
        good(
            para("Le modèle de Mack fournit la MSEP des réserves.", ["S1"], MSEP_QUOTE),
            para("La MSEP est une variance.", ["S1"], "La MSEP est toujours une variance"),
        )
    )
    server.answer(verdicts((1, "supported", "ok"), (2, "supported", "ok")))
    a = answer(QUESTION_FR, make_result(), checking(settings, server))
    assert [p.judged for p in a.paragraphs] == ["supported", "supported"]
    assert [p.status for p in a.paragraphs] == ["supported", "partially_supported"]


def test_a_failed_support_check_leaves_the_answer_unjudged_and_says_so(settings, server) -> None:
    server.answer(good(para("Le modèle de Mack fournit la MSEP des réserves.", ["S1"], MSEP_QUOTE)))
    server.queue()  # nothing scripted: the server answers 500
    a = answer(QUESTION_FR, make_result(), checking(settings, server))
    assert a.mode == "llm" and a.paragraphs[0].judged is None
    assert any("pas pu se faire" in w for w in a.warnings)


def _two_collections() -> SearchResult:
    result = make_result()
    hits = []
    for hit, name in zip(result.parents, ["Réglementaire", "Cours", "Cours"], strict=True):
        hits.append(hit.model_copy(update={"document": hit.document.model_copy(update={"collection": name})}))
    return result.model_copy(update={"parents": hits})


def test_sources_of_several_collections_are_grouped_and_a_blending_paragraph_is_marked(settings, server) -> None:
    server.answer(
        good(
            para("La MSEP de Mack et les paiements de 2022.", ["S1", "S3"], MSEP_QUOTE),
            para("Le modèle de Mack fournit la MSEP.", ["S1"], MSEP_QUOTE),
        )
    )
    a = answer(QUESTION_FR, _two_collections(), llm_settings(settings, server))
    _, user = messages(server)
    assert "2 collections" in user
    regl, cours = user.index('<collection name="Réglementaire">'), user.index('<collection name="Cours">')
    assert regl < user.index('id="S1"') < cours < user.index('id="S3"')
    assert [p.collections for p in a.paragraphs] == [["Réglementaire", "Cours"], []]


def test_one_collection_keeps_the_plain_sources_block(settings, server) -> None:
    server.answer(good(para("Le modèle de Mack fournit la MSEP.", ["S1"], MSEP_QUOTE)))
    answer(QUESTION_FR, make_result(), llm_settings(settings, server))
    _, user = messages(server)
    assert "<collection" not in user and json.dumps("collections") not in user
