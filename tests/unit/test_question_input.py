"""The one check of a question (`rag_core.pipeline.check_question`), as every channel meets it: blank,
too long, and text that cannot be encoded are refused with their message key; a question at the limit,
with outer blanks, or in any script passes, stripped."""

from __future__ import annotations

import pytest

from rag_core import pipeline
from rag_core.config import Settings
from rag_core.errors import InputError


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path)


@pytest.mark.parametrize("text", ["", "   ", "\n\t \u00a0", "\u3000"])
def test_a_blank_question_is_refused(settings: Settings, text: str) -> None:
    with pytest.raises(InputError) as refused:
        pipeline.check_question(text, settings)
    assert refused.value.key == "question.empty"


def test_a_question_over_the_limit_is_refused_as_a_limit_and_one_at_it_passes(settings: Settings) -> None:
    limit = settings.answer.max_question_chars
    assert pipeline.check_question("  " + "x" * limit + "  ", settings) == "x" * limit
    with pytest.raises(pipeline.QuestionTooLong) as refused:
        pipeline.check_question("x" * (limit + 1), settings)
    assert refused.value.key == "question.too_long" and refused.value.values == {"n": limit + 1, "max": limit}


@pytest.mark.parametrize(("text", "at"), [("What is a deductible \ud83d?", 22), ("\udc00", 1), ("a\x00b", 2)])
def test_text_that_cannot_be_encoded_is_refused_with_its_position(settings: Settings, text: str, at: int) -> None:
    with pytest.raises(InputError) as refused:
        pipeline.check_question(text, settings)
    assert refused.value.key == "question.bad_text" and refused.value.values == {"at": at}


def test_any_script_and_a_whole_emoji_pass(settings: Settings) -> None:
    question = "Qu'est-ce qu'une franchise ? 免赔额 😀"
    assert pipeline.check_question(question, settings) == question


def test_the_facade_checks_before_any_work(settings: Settings) -> None:
    """`ask_stream` refuses at the call, before the stream is iterated (no library is even opened)."""
    from rag_core.access import Principal

    with pytest.raises(InputError):
        pipeline.ask_stream("   ", settings, principal=Principal.local_operator())
    with pytest.raises(InputError):
        pipeline.ask_stream("ok?", settings, principal=Principal.local_operator(), history=[("user", "\ud83d")])
    with pytest.raises(InputError):
        pipeline.search("\x00", settings, principal=Principal.local_operator())
