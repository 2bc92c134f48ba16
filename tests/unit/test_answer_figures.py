"""The figures line the command line prints under every answer: seconds always; for a model's answer,
its dialect and tokens, said to be the server's count or the local estimate."""

from __future__ import annotations

from rag_core.cli.questions import answer_figures
from rag_core.models import Answer


def test_an_extractive_answer_shows_its_seconds_only() -> None:
    assert answer_figures(Answer(question="q", mode="extractive", elapsed_s=1.234)) == "(1.2 s)"


def test_a_model_answer_shows_dialect_tokens_and_whose_count_they_are() -> None:
    counted = Answer(
        question="q",
        mode="llm",
        elapsed_s=40.0,
        first_paragraph_s=12.5,
        dialect="json_object",
        prompt_tokens=7138,
        completion_tokens=112,
    )
    line = answer_figures(counted)
    assert line == (
        "(40.0 s · first paragraph 12.5 s · dialect json_object · tokens 7138 in, 112 out (counted by the server))"
    )
    guessed = counted.model_copy(update={"tokens_estimated": True, "fallback": "timeout after 60 s"})
    assert "(estimated)" in answer_figures(guessed) and "model answer not used: timeout after 60 s" in answer_figures(
        guessed
    )
