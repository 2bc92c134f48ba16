"""One streamed request and what can go wrong with it: every call streams, so that closing it (a stop) or a
timeout closes the connection and the server stops generating; a reply that stops at its token limit raises
`Truncated` (asked again shorter, never repaired as a format error); a reply that does not validate gets one
repair request, streamed too.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from rag_core.config import Settings
from rag_core.llm import endpoint
from rag_core.llm.failures import StreamBroken, StreamTimedOut, Truncated
from rag_core.llm.replies import message_text

# What a server says when it rejects a request for its structured-output part (llama.cpp:
# "response_format type must be one of ...", Ollama: "invalid JSON schema in format", vLLM: "The
# provided JSON schema contains features not supported by ...", "tools param requires --jinja").
_FORMAT_REJECTION = re.compile(r"response_format|json[_ ]?schema|json_object|format|tool|grammar|not supported", re.I)
_SYSTEM_REJECTION = re.compile(r"system[ _-]?(role|message|prompt)|roles must alternate", re.I)


def run_stream(
    runnable: Any, messages: list[dict[str, Any]], settings: Settings, limit: int | None
) -> Iterator[str | Any]:
    """Stream one request (every call streams, so that closing it, or a timeout, closes the connection and the
    server stops generating): the reply text so far after each chunk, then the whole message. Raises
    `Truncated` when the reply stopped at its token limit."""
    import openai

    total = None
    finish = ""
    started = time.perf_counter()
    timed = False
    chunks = runnable.stream(messages)
    try:
        for chunk in chunks:
            total = chunk if total is None else total + chunk
            finish = finish or str((chunk.response_metadata or {}).get("finish_reason") or "")
            text = message_text(total)
            if text and not timed:
                timed = True
                endpoint.record_first_token(settings, time.perf_counter() - started)
            yield text
    except (openai.APIStatusError, openai.APITimeoutError, openai.APIConnectionError) as exc:
        if total is None:
            raise  # nothing was received: the request itself failed
        if isinstance(exc, openai.APITimeoutError):
            raise StreamTimedOut("no chunk within the timeout") from None
        raise StreamBroken("the stream failed after it began") from None
    except GeneratorExit:
        raise
    except Exception as exc:  # a chunk that is not JSON, a connection cut mid-body
        if any(c.__name__ in ("TimeoutException", "TimeoutError") for c in type(exc).__mro__):
            raise StreamTimedOut("no chunk within the timeout") from None  # httpx's read timeout mid-stream
        raise StreamBroken(type(exc).__name__) from None
    finally:
        chunks.close()  # ends the HTTP response: the server sees the client go
    if total is None or not finish:
        raise StreamBroken("the stream ended without a finish reason")
    if finish == "length":
        raise Truncated(message_text(total), limit or 0)
    yield total


def last(items: Iterator[str | Any]) -> Any:
    message = None
    for item in items:
        message = item
    return message


def rejects_format(exc: BaseException) -> bool:
    import openai

    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in (400, 415, 422, 500, 501):
        return False
    return bool(_FORMAT_REJECTION.search(f"{exc.message} {exc.body}"))


def rejects_system(exc: BaseException) -> bool:
    """A template that refuses system messages (jinja templates raise "System role not supported", or
    "Conversation roles must alternate user/assistant/...")."""
    import openai

    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in (400, 422, 500):
        return False
    return bool(_SYSTEM_REJECTION.search(f"{exc.message} {exc.body}"))


def refused(message: Any) -> bool:
    return bool((getattr(message, "additional_kwargs", {}) or {}).get("refusal"))


def with_last_user(messages: list[dict[str, Any]], extra: str) -> list[dict[str, Any]]:
    """`extra` appended to the last user message (a second user message in a row breaks strict templates)."""
    out = [dict(m) for m in messages]
    for m in reversed(out):
        if m.get("role") == "user":
            content = m.get("content")
            if isinstance(content, list):
                m["content"] = [*content, {"type": "text", "text": extra}]
            else:
                m["content"] = f"{content}\n\n{extra}"
            return out
    return [*out, {"role": "user", "content": extra}]


SHORTER = "Your previous reply was cut off at its length limit. Reply again with the same JSON object, much shorter."
Shorter = tuple[str, "dict[str, Any] | None"]  # (instruction, bounded schema)


RETRIED = {
    "en": "The model's first reply was cut off at its token limit ({limit} tokens); it was asked again for a "
    "shorter answer.",
    "fr": "La première réponse du modèle a été coupée à sa limite de jetons ({limit} jetons) ; elle a été "
    "redemandée plus courte.",
}


def repair(
    runnable: Any, asked: list[dict[str, Any]], text: str, error: Exception, settings: Settings, limit: int | None
) -> Any:
    problem = str(error).splitlines()[0][:300] if str(error) else type(error).__name__
    if isinstance(error, ValidationError):
        problem = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()[:8])
    repair = [
        *asked,
        {"role": "assistant", "content": text[:20_000]},
        {
            "role": "user",
            "content": f"That reply is not a valid JSON object for the schema ({problem}). "
            "Reply again with the corrected JSON object only.",
        },
    ]
    return last(run_stream(runnable, repair, settings, limit))
