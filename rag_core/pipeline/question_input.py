"""The one check of a question or search text, whatever channel brought it: the Ask page, the
command line, the REST API, the OpenAI-compatible endpoint and the MCP tools all reach it through
the façade (`ask`, `ask_stream`, `search`, and `check_question` for the page before it submits).

Three refusals, each an `InputError` with its message key, raised before any work starts:

- empty or only blanks (`question.empty`);
- longer than `answer.max_question_chars` (`question.too_long`, a `QuestionTooLong`): a pasted
  document is refused at once rather than embedded and searched for minutes;
- text that is not valid Unicode (`question.bad_text`): a lone surrogate (`"\\ud83d"`, half of an
  emoji that a client cut) or a NUL cannot be encoded for the embedder or the model.
"""

from __future__ import annotations

from collections.abc import Iterable

from rag_core.config import Settings
from rag_core.errors import InputError


class QuestionTooLong(InputError):
    """A question or a search longer than the setting allows (a limit, not a mistake in the text)."""


def check_text(text: str) -> str:
    """`text` unchanged when every character can be encoded (no lone surrogate, no NUL); InputError otherwise."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InputError.of("question.bad_text", at=err.start + 1) from None
    if "\x00" in text:
        raise InputError.of("question.bad_text", at=text.index("\x00") + 1)
    return text


def check_question(text: str, settings: Settings) -> str:
    """The question (or search words) stripped of outer blanks, once checked; InputError otherwise."""
    if not isinstance(text, str) or not text.strip():
        raise InputError.of("question.empty")
    stripped = text.strip()
    limit = settings.answer.max_question_chars
    if len(stripped) > limit:
        raise QuestionTooLong.of("question.too_long", n=len(stripped), max=limit)
    return check_text(stripped)


def check_turns(texts: Iterable[str]) -> None:
    """The earlier turns of a conversation a client sends: each must be valid text (their length is free)."""
    for text in texts:
        check_text(text)
