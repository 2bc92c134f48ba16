"""A user's stored conversations: each answer appended as one JSON line, read back as the history.

An answer is stored whole (`Answer.model_dump_json`), in its user's own folder
(`understanding.conversation_path`); reading keeps only what the history needs (the questions and
the paragraphs' text) and leaves out an exchange that used a document the principal can no longer
read. Answers stored before a field existed still read: the history reads the JSON itself, and
`models.Paragraph` gives old paragraphs their marks.

Apart from the folder, one index line per stored answer (conversation id, time, question) lets the Ask
page list a user's conversations newest first and reopen the latest after a reload, on any server
of a shared library (an object store has no modification times to sort by).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from pydantic import ValidationError

from rag_core import storage, understanding
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.models import Answer
from rag_core.services.rechecks import readable_ids
from rag_core.understanding.followups import Message, row_documents


@dataclass(frozen=True)
class ConversationSummary:
    """One of a user's conversations: its id, its first question, when it last changed, its answers."""

    conversation_id: str
    first_question: str
    updated_at: float
    answers: int


def _index_key(user: str | None) -> str:
    """The user's index of conversations, named as their folder of conversations but kept apart from it."""
    folder = understanding.conversation_key("index", user=user).rsplit("/", 1)[0]
    return f"conversation_index/{folder.rsplit('/', 1)[-1]}.jsonl"


def store_answer(settings: Settings, conversation_id: str, answer: Answer, principal: Principal) -> None:
    key = understanding.conversation_key(conversation_id, user=principal.user)
    library = storage.open_library(settings)
    library.append_line(key, answer.model_dump_json().encode("utf-8"))
    line = {"id": conversation_id, "at": time.time(), "question": answer.question[:200]}
    library.append_line(_index_key(principal.user), json.dumps(line).encode("utf-8"))


def conversation_history(settings: Settings, conversation_id: str, *, principal: Principal) -> list[Message]:
    """The principal's own stored conversation as (role, text) messages; [] for another user's id.
    An exchange that used a document the principal can no longer read is left out."""
    return understanding.read_history(
        settings, conversation_id, n=1_000_000, user=principal.user, readable=readable_ids(settings, principal)
    )


def conversation_answers(settings: Settings, conversation_id: str, *, principal: Principal) -> list[Answer]:
    """The principal's own stored answers of a conversation, oldest first, to show it again ([] for an
    unknown id or another user's). An answer that used a document no longer readable is left out, as is
    a line that no longer reads as an answer."""
    if not conversation_id:
        return []
    readable = readable_ids(settings, principal)
    key = understanding.conversation_key(conversation_id, user=principal.user)
    answers = []
    for raw in storage.open_library(settings).read_lines(key):
        try:
            row = json.loads(raw.decode("utf-8", errors="replace"))
            if isinstance(row, dict) and row_documents(row) <= readable:
                answers.append(Answer.model_validate(row))
        except (json.JSONDecodeError, ValidationError):
            continue
    return answers


def list_conversations(settings: Settings, *, principal: Principal, limit: int = 30) -> list[ConversationSummary]:
    """The principal's own conversations, the most recently continued first (at most `limit`)."""
    firsts: dict[str, str] = {}
    latest: dict[str, float] = {}
    counts: dict[str, int] = {}
    for raw in storage.open_library(settings).read_lines(_index_key(principal.user)):
        try:
            row = json.loads(raw.decode("utf-8", errors="replace"))
            conversation_id, at = str(row["id"]), float(row["at"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            continue
        firsts.setdefault(conversation_id, str(row.get("question", "")))
        latest[conversation_id] = max(at, latest.get(conversation_id, 0.0))
        counts[conversation_id] = counts.get(conversation_id, 0) + 1
    order = sorted(latest, key=lambda c: latest[c], reverse=True)[:limit]
    return [ConversationSummary(c, firsts[c], latest[c], counts[c]) for c in order]
