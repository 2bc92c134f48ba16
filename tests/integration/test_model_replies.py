"""What a small chat model sends back for the router and the follow-up rewrite is checked before any of
it is searched, and the user's question is always searched as written. The model is the local
fake chat-completions server (scripted replies, named a fake: no real model decides here); the
library is a real LanceDB store in a temp dir with the offline embedder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rag_core.config import Settings
from rag_core.question import answer_question
from rag_core.services.connection import forget_stores
from rag_core.store import Store
from rag_core.understanding.budget import plan_question
from rag_core.understanding.followups import rewrite_followup
from rag_core.understanding.reply_checks import checked_rewrite
from tests.fake_chat_server import FakeChatServer
from tests.integration.test_understanding import DOCS, asks, searcher
from tests.llm_support import llm_settings
from tests.store_support import build_store

ROUTER_ECHO = {
    "kind": "comparison",
    "reason": "One short sentence, in the question's language, saying why.",
    "sub_questions": ["sub_questions", "type", "description: For a comparison only"],
}


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as s:
        yield s


@pytest.fixture
def library(settings: Settings) -> Iterator[tuple[Store, Settings]]:
    yield build_store(settings, DOCS)
    forget_stores()


def test_a_router_reply_that_echoes_its_schema_is_set_aside_for_the_rules(settings, server) -> None:
    server.answer(ROUTER_ECHO)
    plan = plan_question("What is the Mack standard error?", llm_settings(settings, server), True, "en")
    assert (plan.kind, plan.decided_by, plan.sub_questions) == ("definition", "rules", [])
    assert "repeated its instructions" in plan.note and plan.reason.startswith("definition")


def test_an_invented_comparison_is_set_aside(settings, server) -> None:
    server.answer(
        {
            "kind": "comparison",
            "reason": "Two things are compared.",
            "sub_questions": [
                "What are the current regulatory requirements for actuaries?",
                "What was the inflation rate in the United States in 2023?",
            ],
        }
    )
    question = "Which coverage modifications reduce the expected claim cost?"
    plan = plan_question(question, llm_settings(settings, server), True, "en")
    assert plan.decided_by == "rules" and plan.sub_questions == []
    assert "is not about the question's subject" in plan.note and "regulatory requirements" in plan.note


def test_a_comparison_with_one_subject_or_in_another_language_is_set_aside(settings, server) -> None:
    s = llm_settings(settings, server)
    question = "Compare le modèle de Mack et le bootstrap pour les réserves"
    server.answer({"kind": "comparison", "reason": "Une méthode.", "sub_questions": ["Que mesure Mack ?"] * 2})
    one = plan_question(question, s, True, "fr")
    assert one.decided_by == "rules" and "au moins deux sujets" in one.note
    english = ["What does the Mack model measure for the reserves?", "Que simule le bootstrap ?"]
    server.answer({"kind": "comparison", "reason": "Deux méthodes.", "sub_questions": english})
    other = plan_question(question, s, True, "fr")
    assert other.decided_by == "rules" and "n'est pas dans la langue de la question" in other.note
    # the rules still split the comparison, from the user's own words
    assert (
        other.sub_questions
        == one.sub_questions
        == ["le modèle de Mack pour les réserves", "le bootstrap pour les réserves"]
    )


def test_a_sound_router_reply_is_used(settings, server) -> None:
    subs = ["Que mesure le modèle de Mack ?", "Que simule le bootstrap ?"]
    server.answer({"kind": "comparison", "reason": "Deux méthodes sont mises en regard.", "sub_questions": subs})
    plan = plan_question("Mack ou bootstrap pour l'incertitude des réserves ?", llm_settings(settings, server), True)
    assert (plan.decided_by, plan.sub_questions, plan.note) == ("llm", subs, "")


def test_a_rewrite_that_echoes_the_schema_or_leaves_the_subject_is_replaced_by_the_rules(settings, server) -> None:
    s = llm_settings(settings, server)
    history = [("user", "Qu'est-ce que la méthode Chain-Ladder ?"), ("assistant", "Elle projette les paiements.")]
    echoed = "The user's last question rewritten so that it can be understood without the conversation"
    for reply, why in ((echoed, "répété ses consignes"), ("Quelle est l'inflation en Suisse ?", "aucun mot")):
        server.answer({"standalone_question": reply})
        rewrite = rewrite_followup("et ses limites ?", history, s, True, "fr")  # type: ignore[arg-type]
        assert rewrite.by == "llm"
        kept, note = checked_rewrite(rewrite, history, "fr")  # type: ignore[arg-type]
        assert kept.by == "rules" and kept.standalone == "et ses limites (méthode Chain-Ladder) ?"
        assert why in note
    server.answer({"standalone_question": "Quelles sont les limites de la méthode Chain-Ladder ?"})
    good = rewrite_followup("et ses limites ?", history, s, True, "fr")  # type: ignore[arg-type]
    assert checked_rewrite(good, history, "fr") == (good, "")  # type: ignore[arg-type]


def test_the_users_question_is_searched_as_written_when_the_model_adds_sub_questions(library, server) -> None:
    store, settings = library
    s = llm_settings(settings, server)
    subs = ["Que mesure le modèle de Mack ?", "Que simule le bootstrap pour les réserves ?"]
    server.answer({"kind": "comparison", "reason": "Deux méthodes.", "sub_questions": subs})
    calls: list[str] = []
    question = "Mack ou bootstrap pour l'incertitude des réserves ?"
    answer = answer_question(question, s, asks(searcher(store, s, calls)))
    assert sorted(calls) == sorted([question, *subs])  # the sub-questions run beside it, in parallel
    assert [q.question for q in answer.sub_questions] == subs
    assert answer.paragraphs  # the answer calls failed (no scripted reply): the extractive answer stands


def test_a_schema_echo_never_reaches_the_search_or_the_page(library, server) -> None:
    store, settings = library
    s = llm_settings(settings, server)
    server.answer(ROUTER_ECHO)
    calls: list[str] = []
    question = "Qu'est-ce que le modèle de Mack ?"
    answer = answer_question(question, s, asks(searcher(store, s, calls)))
    assert calls == [question]
    assert answer.sub_questions == [] and answer.budget_kind == "definition"
    shown = " ".join([answer.budget_reason, *answer.warnings, *(p.text for p in answer.paragraphs)])
    assert "sub_questions" not in shown and "One short sentence" not in shown
    assert any("consignes" in w for w in answer.warnings)  # the details say why the reply was set aside
