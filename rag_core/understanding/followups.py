"""Follow-up questions (docs/method.md): "et ses limites ?" becomes a standalone question.

The last three messages of the conversation (user questions and assistant answers, oldest
first) are the context. With a chat model, one structured call rewrites the question; without
one (or when the call fails), a rule carries the previous question's key terms into a question
that looks like a follow-up (short, opening with "et"/"and", or leaning on a pronoun).
Only the rewritten question is searched: earlier turns' sources are never evidence.
This module does not search and does not store conversations.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from rag_core import storage
from rag_core.config import Settings
from rag_core.errors import LLMError
from rag_core.text import detect_language, fold

log = logging.getLogger(__name__)
HISTORY_MESSAGES = 3  # docs/method.md
Message = tuple[Literal["user", "assistant"], str]

_STOP = frozenset(
    "le la les l des du de d un une et est sont dans pour par sur au aux avec que qu qui quoi quel quelle quels "
    "quelles ce cet cette ces ses son sa leur leurs il elle ils elles on se en ne pas plus comment pourquoi "
    "est-ce quelle-est a y t il-y donner donne dire expliquer decrire faut peut-on peut "
    "the a an of and to in is are was were for on with as by be this that these those it its their they them "
    "what which who how why when where does do did can could should would about tell me explain describe give "
    "please also then there here".split()
)
_OPENERS = re.compile(
    r"^(et|and|also|aussi|what about|and what about|et pour|et si|et en|and for|and in|and if|"
    r"same|meme chose|idem)\b"
)
_ANAPHORA = frozenset(
    "ses son sa leur leurs ce cette cet ces cela ca celui celle ceux celles il elle ils elles "
    "its it their they them this that these those".split()
)
_INTERROGATIVE = re.compile(r"\b(qu\W*est\W*ce\W*qu\w*|est\W*ce\W*qu\w*|qu\W*est\W*ce)\b")  # "ce" there is no pronoun
_WORD = re.compile(r"[0-9a-zà-ÿ][0-9a-zà-ÿ'\-]*", re.I)


@dataclass(frozen=True)
class Rewrite:
    question: str
    standalone: str
    by: Literal["none", "rules", "llm"]

    @property
    def changed(self) -> bool:
        return self.standalone != self.question


class RewriteOut(BaseModel):
    standalone_question: str = Field(
        description="The user's last question rewritten so that it can be understood without the conversation, "
        "in the same language; unchanged if it already stands alone."
    )


_PROMPT = {
    "en": (
        "Rewrite the user's last question as a standalone question for a document search engine, using the "
        "conversation only to resolve what it refers to. Keep its language. Do not answer it."
    ),
    "fr": (
        "Réécrivez la dernière question de l'utilisateur en une question autonome pour un moteur de recherche "
        "documentaire, en n'utilisant la conversation que pour résoudre ce à quoi elle renvoie. Gardez sa langue. "
        "N'y répondez pas."
    ),
}


def read_history(
    settings: Settings,
    conversation_id: str | None,
    n: int = HISTORY_MESSAGES,
    user: str | None = None,
    readable: AbstractSet[str] | None = None,
) -> list[Message]:
    """The last `n` messages of `user`'s stored conversation (oldest first); [] when there is none.
    With `readable` (the ids of the documents the reader may read now), a stored exchange (question
    and answer) that used any other document is left out."""
    if not conversation_id:
        return []
    lines = storage.open_library(settings).read_lines(conversation_key(conversation_id, user))
    messages: list[Message] = []
    for line in (raw.decode("utf-8", errors="replace") for raw in lines):
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if row.get("mode") == "greeting" or (readable is not None and not row_documents(row) <= readable):
            continue
        # a rewritten follow-up is remembered in its standalone form: the next follow-up builds on it
        messages.append(("user", str(row.get("standalone_question") or row.get("question", ""))))
        text = " ".join(p.get("text", "") for p in row.get("paragraphs", [])) or row.get("missing_information", "")
        messages.append(("assistant", str(text)))
    return messages[-n:] if n > 0 else []


def row_documents(row: Mapping[str, Any]) -> set[str]:
    """The ids of the documents a stored answer (one JSON line of a conversation) used: cited or not."""
    sources: Iterable[Any] = [*(row.get("sources") or []), *(row.get("uncited") or [])]
    return {str(s.get("doc_id", "")) for s in sources if isinstance(s, Mapping)}


def conversation_key(conversation_id: str, user: str | None = None) -> str:
    """The log of a conversation in the library: in its user's own folder (named by a hash of the user,
    so an e-mail address makes no path), so the same id never reaches another user's messages. The
    pipeline always gives the user; None is the folder of conversations stored before users."""
    safe = "".join(ch for ch in conversation_id if ch.isalnum() or ch in "-_")[:64] or "default"
    return f"{user_folder(user)}/{safe}.jsonl"


def user_folder(user: str | None) -> str:
    """The folder of a user's conversations (`conversation_key`)."""
    if user is None:
        return "conversations"
    return "conversations/u-" + hashlib.sha256(user.strip().lower().encode()).hexdigest()[:24]


def conversation_path(settings: Settings, conversation_id: str, user: str | None = None) -> Path:
    """Where a library in a local directory keeps the conversation (`conversation_key`)."""
    return settings.data_dir / conversation_key(conversation_id, user)


def key_terms(text: str) -> list[str]:
    """Content words of a question, in order, without stop words or question words."""
    out: list[str] = []
    for word in _WORD.findall(text):
        folded = fold(word).strip("'-")
        parts = [p for p in re.split(r"['\-]", folded) if p]
        if not parts or all(p in _STOP or len(p) < 2 for p in parts):
            continue
        if word not in out:
            out.append(word.strip("'-"))
    return out


STEM_CHARS = 5  # content words compared on their first letters: "limite" / "limites", "reserve" / "reserves"


def content_stems(text: str) -> set[str]:
    """The first letters of each content word of `text` (`key_terms`, figures left out): what two texts
    compare to tell whether they speak of the same thing."""
    return {fold(w)[:STEM_CHARS] for w in key_terms(text) if not any(ch.isdigit() for ch in w)}


def looks_like_followup(question: str) -> bool:
    folded = _INTERROGATIVE.sub(" ", fold(question)).strip()
    words = re.findall(r"[0-9a-z]+", folded)
    if not words:
        return False
    if _OPENERS.match(folded):
        return True
    content = [w for w in words if w not in _STOP and w not in _ANAPHORA]
    return len(words) <= 8 and any(w in _ANAPHORA for w in words) and len(content) <= 2


def rule_rewrite(question: str, history: list[Message]) -> Rewrite:
    """Carry the previous question's key terms into a follow-up; leave other questions alone."""
    previous = next((text for role, text in reversed(history) if role == "user" and text.strip()), "")
    if not previous or not looks_like_followup(question):
        return Rewrite(question, question, "none")
    asked = {fold(w) for w in key_terms(question)}
    carried = [w for w in key_terms(previous) if fold(w) not in asked]
    if not carried:
        return Rewrite(question, question, "none")
    return Rewrite(question, f"{question.strip().rstrip('?').strip()} ({' '.join(carried)}) ?", "rules")


def rewrite_instructions(language: str) -> str:
    """The rewrite's system instructions in `language` (English for another)."""
    return _PROMPT.get(language, _PROMPT["en"])


def llm_rewrite(question: str, history: list[Message], settings: Settings, language: str | None = None) -> Rewrite:
    from rag_core.llm import call_structured

    language = language or detect_language(question)
    lines = [f"{'User' if role == 'user' else 'Assistant'}: {text[:1500]}" for role, text in history]
    messages = [
        {"role": "system", "content": rewrite_instructions(language)},
        {"role": "user", "content": "Conversation:\n" + "\n".join(lines) + f"\n\nLast question: {question}"},
    ]
    grammar = RewriteOut.model_json_schema()  # bounded: a small model cannot ramble to its token limit
    grammar["properties"]["standalone_question"]["maxLength"] = 400
    out, _ = call_structured(messages, RewriteOut, settings, language, grammar, max_tokens=200)
    standalone = out.standalone_question.strip() or question
    return Rewrite(question, standalone, "llm")


def rewrite_followup(
    question: str, history: list[Message], settings: Settings, use_llm: bool, language: str | None = None
) -> Rewrite:
    """The standalone form of `question` given the last messages (unchanged with no history);
    `language`: the question's, when the caller has detected it already."""
    if not history or not settings.understanding.followups:
        return Rewrite(question, question, "none")
    if use_llm:
        try:
            return llm_rewrite(question, history[-HISTORY_MESSAGES:], settings, language)
        except LLMError as err:
            log.warning("follow-up rewrite fell back to rules: %s", err)
    return rule_rewrite(question, history[-HISTORY_MESSAGES:])
