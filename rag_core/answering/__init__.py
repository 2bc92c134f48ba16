"""Answers whose every paragraph cites a source that the code has checked (docs/method.md).

`answer()` takes the question and the search result, builds the source registry from the
context parents (the parent budget, cut to `llm.context_tokens` when set), and answers with
the configured chat model (structured output) or, with no model or when the model fails, with
an extractive answer made of the documents' own sentences. Both are verified the same way
(`verification.verify_citations`), then go through the same guard-rails (`guardrails.CHECKS`:
every number traced to a cell, a sentence or a checked computation, the optional support check,
the collections mark); `AnswerRun` gives the same answer as events, paragraph by
paragraph while the model writes (`run`). Too weak a
search result gives a refusal instead of an answer. `greeting_reply()` answers greetings
without any search. This package does not search and does not store answers.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.answering.coverage import Coverage
from rag_core.answering.greetings import greeting_reply
from rag_core.answering.run import (
    ALL_DROPPED,
    NOTHING_FOUND,
    AnswerRun,
    Checked,
    Draft,
    Event,
    Final,
    Queued,
    context_parents,
    evidence_threshold,
)
from rag_core.config import Settings
from rag_core.models import Answer, SearchResult

__all__ = [
    "ALL_DROPPED",
    "NOTHING_FOUND",
    "AnswerRun",
    "Checked",
    "Draft",
    "Event",
    "Final",
    "Queued",
    "answer",
    "answer_from",
    "context_parents",
    "evidence_threshold",
    "greeting_reply",
]


def answer(
    question: str,
    result: SearchResult,
    settings: Settings,
    history: list[tuple[str, str]] | None = None,
    coverage: Coverage | None = None,
    retried: Sequence[str] = (),
) -> Answer:
    """Answer from the first `context_k` parents of `result`; never raises for an endpoint failure.

    `history` holds earlier (question, answer) turns of the conversation; they are shown to
    the model as context only: only this turn's sources can be cited. `coverage` is the check
    of the question's terms (`coverage.check_coverage`): a term no accessible document mentions
    refuses before any model call; terms missing from the passages are told to the model and
    marked on the answer (`retried`: the terms the search was repeated with). The answer is
    the last event of `AnswerRun.events()`, which streams it.
    """
    return answer_from(AnswerRun(question, result, settings, history, coverage, retried))


def answer_from(run: AnswerRun) -> Answer:
    """Run `run` to its end and return its final answer."""
    for event in run.events():
        if isinstance(event, Final):
            return event.answer
    raise AssertionError("an answer run always ends with its final answer")  # pragma: no cover
