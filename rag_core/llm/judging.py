"""One-token judgements and short copies from the configured chat endpoint (the reader's `endpoint` backend).

`yes_no` asks for a single token with its log-probabilities; a server that gives none (or refuses the
parameter) is asked again for the one-token reply alone, read as yes (1.0) or no (0.0). `short_reply` asks for
a few tokens. Both use the endpoint's address, key and model of the `llm` section; an error becomes an
`LLMError` written for the user (the key never in it).
"""

from __future__ import annotations

import math
from typing import Any

from rag_core.config import Settings
from rag_core.errors import LLMError
from rag_core.llm.endpoint import api_key
from rag_core.llm.failures import describe_failure


def _client(settings: Settings, timeout: float) -> Any:
    import openai

    if settings.llm.provider == "azure":
        base = f"{(settings.azure_endpoint() or '').rstrip('/')}/openai/v1/"
        return openai.OpenAI(base_url=base, api_key=api_key(settings), timeout=timeout, max_retries=0)
    return openai.OpenAI(base_url=settings.llm_base_url(), api_key=api_key(settings), timeout=timeout, max_retries=0)


def _create(settings: Settings, timeout: float, language: str, **body: Any) -> Any:
    try:
        return _client(settings, timeout).chat.completions.create(model=settings.llm.model, temperature=0, **body)
    except Exception as exc:
        raise LLMError(describe_failure(exc, settings, language)) from exc


def yes_no(
    settings: Settings, messages: list[dict[str, str]], timeout: float, language: str = "en"
) -> list[tuple[str, float]]:
    """The first reply token's (token, probability) pairs; one pair (the reply, 1.0) when the server gives
    no log-probabilities."""
    try:
        reply = _create(settings, timeout, language, messages=messages, max_tokens=1, logprobs=True, top_logprobs=10)
    except LLMError:
        reply = _create(settings, timeout, language, messages=messages, max_tokens=1)
    choice = reply.choices[0]
    content = getattr(getattr(choice, "logprobs", None), "content", None) or []
    if content and getattr(content[0], "top_logprobs", None):
        return [(t.token, math.exp(t.logprob)) for t in content[0].top_logprobs]
    return [(str(choice.message.content or ""), 1.0)]


def short_reply(
    settings: Settings, messages: list[dict[str, str]], timeout: float, tokens: int, language: str = "en"
) -> str:
    reply = _create(settings, timeout, language, messages=messages, max_tokens=tokens)
    return str(reply.choices[0].message.content or "").strip()
