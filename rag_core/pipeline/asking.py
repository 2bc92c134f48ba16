"""The façade's question verbs: `ask` (the final answer) and `ask_stream` (its typed events). The
question is checked here, before any work starts; the flow itself is the package `rag_core.question`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.models import Answer
from rag_core.pipeline.question_input import check_question, check_turns
from rag_core.question import QuestionStream
from rag_core.understanding.followups import Message


def ask(
    question: str,
    settings: Settings,
    conversation_id: str | None = None,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    *,
    principal: Principal,
) -> Answer:
    """Answer from the readable documents; the conversation is the principal's own. An error written
    for the user is raised (`RagError`)."""
    return ask_stream(question, settings, conversation_id, collections, doc_ids, principal=principal).result()


def ask_stream(
    question: str,
    settings: Settings,
    conversation_id: str | None = None,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    *,
    principal: Principal,
    history: Sequence[Message] | None = None,
) -> QuestionStream:
    """`ask` as typed events (`rag_core.question.events`): `Searching`, `Found`, `Draft` (unverified,
    display only), `Checked` (a paragraph verified once complete), `Queued`, then one of `Done`,
    `Refused` or `Failed`; `stop()` keeps what was verified. Only the final (or stopped) answer is
    stored and audited, by the stream itself. `history` (the earlier turns a chat client sends, oldest
    first) replaces the stored conversation's for the follow-up rewrite. Nothing runs until iterated,
    but the question is checked at once (`check_question`: InputError before any work starts)."""
    question = check_question(question, settings)
    check_turns(text for _, text in history or ())
    return QuestionStream(question, settings, principal, conversation_id, collections, doc_ids, history)
