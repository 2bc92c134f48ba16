"""A user's stored conversation: each answer appended as one JSON line, read back as the history.

An answer is stored whole (`Answer.model_dump_json`), in its user's own folder
(`understanding.conversation_path`); reading keeps only what the history needs (the questions and
the paragraphs' text) and leaves out an exchange that used a document the principal can no longer
read. Answers stored before a field existed still read: the history reads the JSON itself, and
`models.Paragraph` gives old paragraphs their marks.
"""

from __future__ import annotations

from rag_core import storage, understanding
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.models import Answer
from rag_core.pipeline.rechecks import stored_row_check
from rag_core.understanding.followups import Message


def store_answer(settings: Settings, conversation_id: str, answer: Answer, principal: Principal) -> None:
    key = understanding.conversation_key(conversation_id, user=principal.user)
    storage.open_library(settings).append_line(key, answer.model_dump_json().encode("utf-8"))


def conversation_history(settings: Settings, conversation_id: str, *, principal: Principal) -> list[Message]:
    """The principal's own stored conversation as (role, text) messages; [] for another user's id.
    An exchange that used a document the principal can no longer read is left out."""
    return understanding.read_history(
        settings, conversation_id, n=1_000_000, user=principal.user, keep=stored_row_check(settings, principal)
    )
