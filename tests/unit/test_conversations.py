"""A user's stored conversations, listed and read back to show them again (the Ask page after a reload)."""

from __future__ import annotations

from pathlib import Path

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.models import Answer, Paragraph
from rag_core.services.conversations import store_answer

ALICE = Principal("alice@example.org")
BOB = Principal("bob@example.org")


def _answer(question: str) -> Answer:
    return Answer(question=question, mode="extractive", paragraphs=[Paragraph(text=f"About {question}", source_ids=[])])


def test_each_user_lists_and_reopens_only_their_own_conversations_newest_first(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    store_answer(settings, "c-old", _answer("What is a tail factor?"), ALICE)
    store_answer(settings, "c-new", _answer("What is IBNR?"), ALICE)
    store_answer(settings, "c-old", _answer("And its limits?"), ALICE)  # the old one continued: now the latest
    store_answer(settings, "c-old", _answer("Bob's own question"), BOB)  # the same id, another user

    mine = pipeline.list_conversations(settings, principal=ALICE)
    assert [(c.conversation_id, c.first_question, c.answers) for c in mine] == [
        ("c-old", "What is a tail factor?", 2),
        ("c-new", "What is IBNR?", 1),
    ]
    reopened = pipeline.conversation_answers(settings, "c-old", principal=ALICE)
    assert [a.question for a in reopened] == ["What is a tail factor?", "And its limits?"]
    assert [a.question for a in pipeline.conversation_answers(settings, "c-old", principal=BOB)] == [
        "Bob's own question"
    ]
    assert pipeline.conversation_answers(settings, "c-new", principal=BOB) == []
    assert pipeline.conversation_answers(settings, "", principal=ALICE) == []
