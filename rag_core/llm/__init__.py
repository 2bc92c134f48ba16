"""The chat-model client: LangChain `ChatOpenAI` / `AzureChatOpenAI` with the structured output each endpoint accepts.

Endpoints differ in what they accept (OpenAI, vLLM, Ollama, llama.cpp server, LM Studio, Azure): the first call to an
endpoint and model probes, in order, a strict JSON schema, a JSON object with the schema in the prompt, tool calling,
and plain text with the JSON taken from the reply (`DIALECTS`), moving on only when the endpoint rejects the request
for its format; the dialect that works is remembered for the life of the process (`known_dialect`). Every reply is
parsed the same way and validated against the caller's pydantic model, with one repair request when it does not
validate. `stream_structured` streams the reply's text as it is written (usage included); `call_structured` waits for
the whole reply. Every failure (timeout, refused connection, HTTP error, broken stream, output that is not the schema)
becomes an `LLMError` whose message is written for the user and never contains the API key (`failures.py`). This
module adds only the format instruction a dialect needs to the messages; it verifies no citation and decides no
fallback.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ValidationError

from rag_core.config import Settings
from rag_core.errors import LLMError
from rag_core.llm import endpoint
from rag_core.llm.attempts import (
    RETRIED,
    SHORTER,
    Shorter,
    refused,
    rejects_format,
    rejects_system,
    repair,
    run_stream,
    with_last_user,
)
from rag_core.llm.endpoint import PLACEHOLDER_KEY as PLACEHOLDER_KEY
from rag_core.llm.endpoint import api_key, endpoint_key
from rag_core.llm.endpoint import skipped_note as skipped_note
from rag_core.llm.failures import FAILURES, FormatError, Refusal, Truncated, describe_failure, redact
from rag_core.llm.failures import StreamBroken as StreamBroken
from rag_core.llm.replies import StructuredReply, message_text, parse_reply, usage_of
from rag_core.llm.replies import json_text as json_text
from rag_core.llm.shaping import Retrying, Waiting, arrange, estimate_tokens, message_chars

log = logging.getLogger(__name__)

DIALECTS = ("json_schema", "json_object", "tools", "text")
_METHODS = {"json_schema": "json_schema", "json_object": "json_mode", "tools": "function_calling"}
_KNOWN: dict[tuple[str, str], str] = {}
_LOCK = threading.Lock()


def llm_configured(settings: Settings) -> bool:
    """A model is used when a key or an endpoint is configured (local endpoints need no key)."""
    if settings.llm.provider == "azure":
        return bool(settings.azure_endpoint())
    return settings.llm_key() is not None or bool(settings.llm_base_url())


def known_dialect(settings: Settings) -> str | None:
    """The dialect found for the configured endpoint and model in this process; None before the first call."""
    if settings.llm.dialect != "auto":
        return settings.llm.dialect
    with _LOCK:
        return _KNOWN.get(endpoint_key(settings))


def _remember(settings: Settings, dialect: str) -> None:
    with _LOCK:
        _KNOWN[endpoint_key(settings)] = dialect


def _chat_model(settings: Settings) -> Any:
    common = {
        "model": settings.llm.model,
        "api_key": api_key(settings),
        "temperature": settings.llm.temperature,
        "timeout": settings.llm.timeout_s,
        "max_retries": 0,
        "stream_usage": True,
    }
    if settings.llm.provider == "azure" and settings.llm.azure_api_version:
        from langchain_openai import AzureChatOpenAI

        return AzureChatOpenAI(
            azure_endpoint=settings.azure_endpoint(),
            api_version=settings.llm.azure_api_version,
            azure_deployment=settings.llm.azure_deployment or settings.llm.model,
            **common,
        )
    from langchain_openai import ChatOpenAI

    if settings.llm.provider == "azure":  # the OpenAI-compatible form takes Azure's key header
        base = f"{(settings.azure_endpoint() or '').rstrip('/')}/openai/v1/"
        return ChatOpenAI(base_url=base, default_headers={"api-key": api_key(settings)}, **common)
    return ChatOpenAI(base_url=settings.llm_base_url(), **common)


def _format_instruction(grammar: dict[str, Any]) -> str:
    return "Reply with one JSON object only, no text around it, that follows this JSON schema:\n" + json.dumps(
        grammar, ensure_ascii=False
    )


def _runnable(
    settings: Settings, schema: type[BaseModel], dialect: str, grammar: dict[str, Any], limit: int | None
) -> Any:
    model = _chat_model(settings)
    # `max_tokens` as every OpenAI-compatible server reads it (LangChain would rename it max_completion_tokens,
    # which local servers ignore)
    bound_tokens = {"max_tokens": limit} if limit else {}
    if dialect == "text":
        return model.bind(extra_body=bound_tokens) if bound_tokens else model
    # The binding that LangChain's structured output makes (response format or forced tool), without its parser:
    # the reply is parsed here, the same way for every dialect. The response format travels in the request body
    # as LangChain wrote it, but outside its `response_format` argument, which would make the client parse the
    # reply itself (hiding a reply that needs repair) and stream through its parsing helper.
    bound = model.with_structured_output(schema, method=_METHODS[dialect]).first
    kwargs = dict(bound.kwargs)
    response_format = kwargs.pop("response_format", None)
    if isinstance(response_format, type):  # a pydantic model: the strict JSON schema the client would send
        from openai.lib._parsing._completions import type_to_response_format_param

        response_format = type_to_response_format_param(response_format)
    if dialect == "json_object" and isinstance(response_format, dict):
        # The schema rides along, with its bounds (paragraphs, lengths): llama.cpp's servers turn it into a
        # grammar, so even a small local model writes an object of the right shape and size; servers that do not
        # read it keep the prompt's copy.
        response_format = {**response_format, "schema": grammar}
    kwargs["extra_body"] = {
        **bound_tokens,
        **({"response_format": response_format} if response_format is not None else {}),
    }
    return bound.bound.bind(**kwargs)


def stream_structured(
    messages: list[dict[str, Any]],
    schema: type[BaseModel],
    settings: Settings,
    language: str = "en",
    stream: bool | None = None,
    *,
    grammar: dict[str, Any] | None = None,
    max_tokens: int | None = None,
    shorter: Shorter | None = None,
) -> Iterator[str | StructuredReply | Waiting | Retrying]:
    """Yield `Waiting` while the endpoint's gate holds the call, the reply's text as it grows (when streaming
    for display), `Retrying` when a reply stopped at its token limit and is asked again shorter (`shorter`: the
    instruction and the bounded schema to ask with), then one `StructuredReply`; raises `LLMError`.

    `grammar`: the JSON schema sent with `json_object` and in the prompt (default: `schema`'s, without bounds);
    `max_tokens`: the reply's budget (default: the `max_tokens` setting). The first call to an endpoint probes
    the dialects in order (see the module docstring). A reply that does not validate gets one repair request.
    """
    display = settings.llm.stream if stream is None else stream
    limit = max_tokens if max_tokens is not None else settings.llm.max_tokens
    turn = endpoint.gate(settings)
    admitted = False
    try:
        if turn is not None:
            for position in turn.enter():
                yield Waiting(position)
            admitted = True
        for item in _attempts(messages, schema, settings, language, grammar, limit, shorter):
            if display or not isinstance(item, str):
                yield item
    except LLMError:
        raise
    except Exception as exc:  # every failure becomes a user message
        message_for_user = describe_failure(exc, settings, language)
        log.warning("LLM call failed: %s: %s", type(exc).__name__, redact(str(exc), settings)[:500])
        raise LLMError(message_for_user, str(getattr(exc, "text", "") or "")) from None
    finally:
        if admitted and turn is not None:
            turn.leave()


def _attempts(
    messages: list[dict[str, Any]],
    schema: type[BaseModel],
    settings: Settings,
    language: str,
    grammar: dict[str, Any] | None,
    limit: int | None,
    shorter: Shorter | None,
) -> Iterator[str | StructuredReply | Retrying]:
    known = known_dialect(settings)
    candidates = (known,) if known else DIALECTS
    shape = grammar or schema.model_json_schema()
    fold = endpoint.fold_system(settings)
    notes: list[str] = []
    position = 0
    while position < len(candidates):
        dialect = candidates[position]
        instruction = _format_instruction(shape) if dialect in ("json_object", "text") else None
        asked = arrange(messages, instruction, fold)
        runnable = _runnable(settings, schema, dialect, shape, limit)
        message = None
        try:
            for item in run_stream(runnable, asked, settings, limit):
                if isinstance(item, str):
                    if not known:  # the endpoint took this dialect: it is streaming the reply
                        _remember(settings, dialect)
                    yield item
                else:
                    message = item
        except Truncated as cut:
            if notes:  # already asked once more briefly
                raise
            _remember(settings, dialect) if not known else None
            known, candidates, position = dialect, (dialect,), 0
            yield Retrying(cut.text, cut.limit)
            notes.append(RETRIED.get(language, RETRIED["en"]).format(limit=cut.limit or "?"))
            text, short_grammar = shorter or (SHORTER, None)
            messages, shape = with_last_user(messages, text), short_grammar or shape
            continue
        except Exception as exc:  # a format rejection moves on to the next dialect
            if not fold and settings.llm.system_role == "auto" and rejects_system(exc):
                log.info("endpoint %s rejects system messages: folding them", endpoint_key(settings)[0])
                endpoint.remember_folding(settings)
                fold = True
                continue
            if known or not rejects_format(exc):
                raise
            log.info("endpoint %s rejects %s (%s)", endpoint_key(settings)[0], dialect, type(exc).__name__)
            if position == len(candidates) - 1:
                raise LLMError(FAILURES.get(language, FAILURES["en"])["dialects"]) from None
            position += 1
            continue
        if not known:
            _remember(settings, dialect)
        if refused(message):
            raise Refusal()
        usage = usage_of(message)
        text = message_text(message)
        try:
            parsed = parse_reply(text, schema)
        except (ValueError, ValidationError) as first:
            try:
                repaired = repair(runnable, asked, text, first, settings, limit)
            except Exception:  # the reply was the problem; say so, not the repair's failure
                raise FormatError("the repair request failed", text) from None
            repaired_usage = usage_of(repaired)
            usage = {
                k: int(usage.get(k, 0) or 0) + int(repaired_usage.get(k, 0) or 0)
                for k in ("input_tokens", "output_tokens")
            }
            try:
                parsed = parse_reply(message_text(repaired), schema)
            except (ValueError, ValidationError):
                raise FormatError("the repaired reply does not validate either", message_text(repaired)) from None
        estimated = not (usage.get("input_tokens") or usage.get("output_tokens"))
        if estimated:  # the server sent no usage (llama-cpp-python does not, when streaming)
            usage = {"input_tokens": estimate_tokens(message_chars(asked)), "output_tokens": estimate_tokens(text)}
        yield StructuredReply(
            parsed,
            int(usage.get("input_tokens", 0) or 0),
            int(usage.get("output_tokens", 0) or 0),
            dialect,
            {**usage, "estimated": estimated},
            estimated,
            notes,
        )
        return


def call_structured(
    messages: list[dict[str, Any]],
    schema: type[BaseModel],
    settings: Settings,
    language: str = "en",
    grammar: dict[str, Any] | None = None,
    max_tokens: int | None = None,
) -> tuple[Any, dict[str, Any]]:
    """One structured call, streamed over HTTP but returned whole: (`schema` instance, usage metadata with its
    dialect). Raises `LLMError` with a user message on any failure. Used by `rag_core.understanding` and the
    support check for the router, the rewrite and the second pass; `grammar` (the schema with its bounds) and
    `max_tokens` keep a short call short."""
    started = time.perf_counter()
    for item in stream_structured(
        messages, schema, settings, language, stream=False, grammar=grammar, max_tokens=max_tokens
    ):
        if isinstance(item, StructuredReply):
            return item.parsed, {**item.usage, "dialect": item.dialect, "elapsed_s": time.perf_counter() - started}
    # the generator always ends in a reply:
    raise LLMError(FAILURES.get(language, FAILURES["en"])["format"])  # pragma: no cover
