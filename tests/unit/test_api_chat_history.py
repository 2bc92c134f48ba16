"""The chat endpoint's conversation: the earlier user and assistant messages, oldest first, an
assistant message read without the citation markers and the "Sources" block the endpoint wrote
into it, system messages and the client's content parts handled as a chat client sends them."""

from __future__ import annotations

from rag_core.api.openai_compat import Message, conversation


def test_earlier_turns_become_the_conversation_without_markers_or_sources() -> None:
    messages = [
        Message(role="system", content="Answer from the library."),
        Message(role="user", content=[{"type": "text", "text": "What does the guide protect?"}]),
        Message(
            role="assistant",
            content="It protects the balance sheet [1][2].\n\nSources:\n[1] guides.pdf, p. 1 (guides · p. 1)",
        ),
        Message(role="user", content="   "),
    ]
    assert conversation(messages) == [
        ("user", "What does the guide protect?"),
        ("assistant", "It protects the balance sheet."),
    ]


def test_no_earlier_turn_is_an_empty_conversation() -> None:
    assert conversation([]) == []
    assert conversation([Message(role="system", content="Be brief.")]) == []
