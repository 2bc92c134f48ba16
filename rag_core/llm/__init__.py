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
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from rag_core.config import Settings
from rag_core.errors import LLMError
from rag_core.llm.failures import FAILURES, FormatError, Refusal, StreamBroken, describe_failure, redact

log = logging.getLogger(__name__)

PLACEHOLDER_KEY = "not-needed"  # local servers (vLLM, Ollama) accept any key
DIALECTS = ("json_schema", "json_object", "tools", "text")
_METHODS = {"json_schema": "json_schema", "json_object": "json_mode", "tools": "function_calling"}
# What a server says when it rejects a request for its structured-output part (llama.cpp:
# "response_format type must be one of ...", Ollama: "invalid JSON schema in format", vLLM: "The
# provided JSON schema contains features not supported by ...", "tools param requires --jinja").
_FORMAT_REJECTION = re.compile(r"response_format|json[_ ]?schema|json_object|format|tool|grammar|not supported", re.I)
_KNOWN: dict[tuple[str, str], str] = {}
_LOCK = threading.Lock()


def llm_configured(settings: Settings) -> bool:
    """A model is used when a key or an endpoint is configured (local endpoints need no key)."""
    if settings.llm.provider == "azure":
        return bool(settings.azure_endpoint())
    return settings.llm_key() is not None or bool(settings.llm_base_url())


def _api_key(settings: Settings) -> str:
    key = settings.llm_key()
    value = key.get_secret_value() if key is not None else ""
    return value or PLACEHOLDER_KEY


def endpoint_key(settings: Settings) -> tuple[str, str]:
    """(address, model) under which an endpoint's dialect is remembered."""
    if settings.llm.provider == "azure":
        address = (settings.azure_endpoint() or "").rstrip("/")
        if settings.llm.azure_api_version:
            deployment = settings.llm.azure_deployment or settings.llm.model
            return f"{address}/openai/deployments/{deployment}", settings.llm.model
        return f"{address}/openai/v1", settings.llm.model
    return (settings.llm_base_url() or "https://api.openai.com/v1").rstrip("/"), settings.llm.model


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
        "api_key": _api_key(settings),
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
        return ChatOpenAI(base_url=base, default_headers={"api-key": _api_key(settings)}, **common)
    return ChatOpenAI(base_url=settings.llm_base_url(), **common)


def _format_instruction(schema: type[BaseModel]) -> dict[str, str]:
    return {
        "role": "system",
        "content": "Reply with one JSON object only, no text around it, that follows this "
        "JSON schema:\n" + json.dumps(schema.model_json_schema(), ensure_ascii=False),
    }


def _runnable(settings: Settings, schema: type[BaseModel], dialect: str) -> Any:
    model = _chat_model(settings)
    # `max_tokens` as every OpenAI-compatible server reads it (LangChain would rename it max_completion_tokens,
    # which local servers ignore)
    limit = {"max_tokens": settings.llm.max_tokens} if settings.llm.max_tokens else {}
    if dialect == "text":
        return model.bind(extra_body=limit) if limit else model
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
        # The schema rides along: llama.cpp's servers turn it into a grammar, so even a small local model
        # writes an object of the right shape; servers that do not read it keep the prompt's copy.
        response_format = {**response_format, "schema": schema.model_json_schema()}
    kwargs["extra_body"] = {**limit, **({"response_format": response_format} if response_format is not None else {})}
    return bound.bound.bind(**kwargs)


def _messages_for(messages: list[dict[str, Any]], schema: type[BaseModel], dialect: str) -> list[dict[str, Any]]:
    if dialect in ("json_object", "text"):
        return [*messages, _format_instruction(schema)]
    return list(messages)


def message_text(message: Any) -> str:
    """The reply's JSON text: a tool call's arguments, or the message content."""
    chunks = getattr(message, "tool_call_chunks", None) or []
    if chunks:
        return "".join(c.get("args") or "" for c in chunks)
    calls = getattr(message, "tool_calls", None) or []
    if calls:
        return json.dumps(calls[0].get("args") or {}, ensure_ascii=False)
    invalid = getattr(message, "invalid_tool_calls", None) or []
    if invalid:
        return invalid[0].get("args") or ""
    content = getattr(message, "content", "")
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return content or ""


def json_text(text: str) -> str:
    """The JSON object in a reply: a fenced block's content, else from the first '{' on."""
    fenced = re.search(r"```(?:json)?\s*(\{.*?)(?:```|$)", text, re.S)
    if fenced:
        return fenced.group(1)
    start = text.find("{")
    return text[start:] if start >= 0 else ""


def parse_reply(text: str, schema: type[BaseModel]) -> BaseModel:
    """The whole reply as `schema`; raises ValueError / ValidationError when it is not."""
    body = json_text(text).strip()
    end = body.rfind("}")
    if end < 0:
        raise ValueError("no JSON object in the reply")
    return schema.model_validate(json.loads(body[: end + 1]))


@dataclass
class StructuredReply:
    """A validated reply: the object, the tokens the endpoint counted, the dialect used."""

    parsed: Any
    prompt_tokens: int = 0
    completion_tokens: int = 0
    dialect: str = ""
    usage: dict[str, Any] = field(default_factory=dict)


def _usage(message: Any) -> dict[str, Any]:
    return dict(getattr(message, "usage_metadata", None) or {})


def _run(runnable: Any, messages: list[dict[str, Any]], stream: bool) -> Iterator[str | Any]:
    """Yield the reply text so far after each chunk, then the whole message."""
    if not stream:
        yield runnable.invoke(messages)
        return
    import openai

    total = None
    finished = False
    try:
        for chunk in runnable.stream(messages):
            total = chunk if total is None else total + chunk
            finished = finished or bool((chunk.response_metadata or {}).get("finish_reason"))
            yield message_text(total)
    except (openai.APIStatusError, openai.APITimeoutError, openai.APIConnectionError):
        if total is None:
            raise  # nothing was received: the request itself failed
        raise StreamBroken("the stream failed after it began") from None
    except Exception as exc:  # noqa: BLE001 - a chunk that is not JSON, a connection cut mid-body
        raise StreamBroken(type(exc).__name__) from None
    if total is None or not finished:
        raise StreamBroken("the stream ended without a finish reason")
    yield total


def _rejects_format(exc: BaseException) -> bool:
    import openai

    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in (400, 415, 422, 500, 501):
        return False
    return bool(_FORMAT_REJECTION.search(f"{exc.message} {exc.body}"))


def _refused(message: Any) -> bool:
    return bool((getattr(message, "additional_kwargs", {}) or {}).get("refusal"))


def stream_structured(
    messages: list[dict[str, Any]],
    schema: type[BaseModel],
    settings: Settings,
    language: str = "en",
    stream: bool | None = None,
) -> Iterator[str | StructuredReply]:
    """Yield the reply's text as it grows (streaming), then one `StructuredReply`; raises `LLMError`.

    The first call to an endpoint probes the dialects in order (see the module docstring); an
    endpoint that rejects all of them gets an `LLMError`. A reply that does not validate gets one
    repair request (not streamed) with the validation error.
    """
    stream = settings.llm.stream if stream is None else stream
    known = known_dialect(settings)
    candidates = (known,) if known else DIALECTS
    try:
        for position, dialect in enumerate(candidates):
            asked = _messages_for(messages, schema, dialect)
            runnable = _runnable(settings, schema, dialect)
            message = None
            try:
                for item in _run(runnable, asked, stream):
                    if isinstance(item, str):
                        if not known:  # the endpoint took this dialect: it is streaming the reply
                            _remember(settings, dialect)
                        yield item
                    else:
                        message = item
            except Exception as exc:  # noqa: BLE001 - a format rejection moves on to the next dialect
                if known or not _rejects_format(exc):
                    raise
                log.info(
                    "endpoint %s rejects %s (%s): trying the next dialect",
                    endpoint_key(settings)[0],
                    dialect,
                    type(exc).__name__,
                )
                if position == len(candidates) - 1:
                    raise LLMError(FAILURES.get(language, FAILURES["en"])["dialects"]) from None
                continue
            if not known:
                _remember(settings, dialect)
            if _refused(message):
                raise Refusal()
            usage = _usage(message)
            text = message_text(message)
            try:
                parsed = parse_reply(text, schema)
            except (ValueError, ValidationError) as first:
                try:
                    repaired = _repair(runnable, asked, text, first)
                except Exception:  # noqa: BLE001 - the reply was the problem; say so, not the repair's failure
                    raise FormatError("the repair request failed") from None
                repaired_usage = _usage(repaired)
                usage = {
                    k: int(usage.get(k, 0) or 0) + int(repaired_usage.get(k, 0) or 0)
                    for k in ("input_tokens", "output_tokens")
                }
                try:
                    parsed = parse_reply(message_text(repaired), schema)
                except (ValueError, ValidationError):
                    raise FormatError("the repaired reply does not validate either") from None
            yield StructuredReply(
                parsed, int(usage.get("input_tokens", 0) or 0), int(usage.get("output_tokens", 0) or 0), dialect, usage
            )
            return
    except LLMError:
        raise
    except Exception as exc:  # noqa: BLE001 - every failure becomes a user message
        message_for_user = describe_failure(exc, settings, language)
        log.warning("LLM call failed: %s: %s", type(exc).__name__, redact(str(exc), settings)[:500])
        raise LLMError(message_for_user) from None


def _repair(runnable: Any, asked: list[dict[str, Any]], text: str, error: Exception) -> Any:
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
    return runnable.invoke(repair)


def call_structured(
    messages: list[dict[str, Any]], schema: type[BaseModel], settings: Settings, language: str = "en"
) -> tuple[Any, dict[str, Any]]:
    """One structured call, not streamed, returning (`schema` instance, usage metadata with its dialect).

    Raises `LLMError` with a user message on any failure. Used for answers without streaming
    and, by `rag_core.understanding` and the support check, for the router and the rewrite.
    """
    started = time.perf_counter()
    for item in stream_structured(messages, schema, settings, language, stream=False):
        if isinstance(item, StructuredReply):
            return item.parsed, {**item.usage, "dialect": item.dialect, "elapsed_s": time.perf_counter() - started}
    # the generator always ends in a reply:
    raise LLMError(FAILURES.get(language, FAILURES["en"])["format"])  # pragma: no cover
