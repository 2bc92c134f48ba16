"""A chat completion stream that fails once begun: the bytes the endpoint sends end with an `error`
chunk and `[DONE]` (never a dropped connection), and the official `openai` client's own stream
reader raises them as an `APIError` with the app's message. An error written for the user is not
logged as a crash; a bug is, and its text stays on the server.

The events are a fake question stream (what the façade yields); the failure in the middle of a real
answer cannot be provoked from outside once every question is checked before any work starts."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import httpx2
import openai
import pytest
from openai import Stream
from openai.types.chat import ChatCompletionChunk

from rag_core import pipeline
from rag_core.api.openai_compat import _chunks
from rag_core.errors import LLMError


def _fake_failed_events() -> Iterator[pipeline.Event]:
    yield pipeline.Failed(LLMError("The language model did not answer in time."))


def _fake_crashing_events() -> Iterator[pipeline.Event]:
    raise UnicodeEncodeError("utf-8", "\ud83d", 0, 1, "surrogates not allowed")
    yield  # pragma: no cover  (a generator)


def _read_with_the_openai_client(sent: bytes) -> list[ChatCompletionChunk]:
    client = openai.OpenAI(api_key="unused", base_url="http://127.0.0.1:9/v1")
    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    response = httpx2.Response(200, content=sent, request=request, headers={"content-type": "text/event-stream"})
    return list(Stream(cast_to=ChatCompletionChunk, response=response, client=client))


def test_an_error_written_for_the_user_is_an_error_event_the_client_raises(caplog: pytest.LogCaptureFixture) -> None:
    sent = "".join(_chunks(_fake_failed_events(), "library", "http://127.0.0.1:8000")).encode()
    assert sent.endswith(b"data: [DONE]\n\n")
    with caplog.at_level(logging.ERROR), pytest.raises(openai.APIError) as raised:
        _read_with_the_openai_client(sent)
    assert raised.value.message == "The language model did not answer in time."
    assert raised.value.body == {
        "message": "The language model did not answer in time.",
        "type": "backend_unavailable",
        "status": 503,
    }
    assert not caplog.records  # a refusal, not a crash


def test_a_crash_in_the_stream_is_a_generic_error_event_and_a_logged_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR):
        sent = "".join(_chunks(_fake_crashing_events(), "library", "http://127.0.0.1:8000")).encode()
    assert sent.endswith(b"data: [DONE]\n\n") and b"surrogates" not in sent
    with pytest.raises(openai.APIError, match="Something went wrong on the server"):
        _read_with_the_openai_client(sent)
    (logged,) = caplog.records
    assert logged.exc_info and isinstance(logged.exc_info[1], UnicodeEncodeError)


def test_a_crash_in_the_rest_answer_stream_is_an_error_event(caplog: pytest.LogCaptureFixture) -> None:
    from rag_core.api.rest import sse_events

    with caplog.at_level(logging.ERROR):
        sent = list(sse_events(_fake_crashing_events()))
    assert sent == [
        'event: error\ndata: {"error": {"message": "Something went wrong on the server; its log says what.", '
        '"type": "server_error", "status": 500}}\n\n'
    ]
    assert len(caplog.records) == 1 and caplog.records[0].exc_info
