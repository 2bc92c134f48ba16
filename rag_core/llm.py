"""The chat-model client: LangChain `ChatOpenAI` with a strict JSON-schema structured output.

Any OpenAI-compatible endpoint works (OpenAI, vLLM, Ollama, llama.cpp server). Every failure
(timeout, refused connection, HTTP error, output that is not the schema) becomes an
`LLMError` whose message is written for the user and never contains the API key. Answering
(`answering.model_answer`) and question understanding (router, follow-up rewrite) both call
`call_structured`. This module builds no prompt, verifies no citation and decides no fallback.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from pydantic import BaseModel, ValidationError

from rag_core.config import Settings
from rag_core.errors import LLMError

log = logging.getLogger(__name__)

PLACEHOLDER_KEY = "not-needed"  # local servers (vLLM, Ollama) accept any key


def llm_configured(settings: Settings) -> bool:
    """A model is used when a key or an endpoint is configured (local endpoints need no key)."""
    return settings.llm_key() is not None or bool(settings.llm_base_url())


def _api_key(settings: Settings) -> str:
    key = settings.llm_key()
    value = key.get_secret_value() if key is not None else ""
    return value or PLACEHOLDER_KEY


def redact(text: str, settings: Settings) -> str:
    """Remove the API key (and anything shaped like an OpenAI key) from a text meant for logs."""
    key = settings.llm_key()
    if key is not None and key.get_secret_value():
        text = text.replace(key.get_secret_value(), "[redacted]")
    return re.sub(r"\b(sk|pk|rk)-[A-Za-z0-9_\-*]{6,}", "[redacted]", text)


_FAILURES = {
    "en": {
        "timeout": "The language model could not be reached (timeout after {timeout:g} s); showing an extractive answer.",
        "connection": "The language model could not be reached (connection failed); showing an extractive answer.",
        "401": "The language model refused the API key (401); check the key in the settings. Showing an extractive answer.",
        "403": "The language model endpoint denied access (403); showing an extractive answer.",
        "404": "The language model endpoint does not know the model '{model}' or the address is wrong (404); showing an extractive answer.",
        "429": "The language model is rate-limited or out of quota (429); try again in a moment. Showing an extractive answer.",
        "400": "The language model endpoint rejected the request ({status}); showing an extractive answer.",
        "5xx": "The language model endpoint failed (HTTP {status}); showing an extractive answer.",
        "format": "The language model returned an answer that does not follow the required format; showing an extractive answer.",
        "refusal": "The language model declined to answer; showing an extractive answer.",
        "other": "The language model call failed ({kind}); showing an extractive answer.",
    },
    "fr": {
        "timeout": "Le modèle de langage n'a pas pu être joint (délai dépassé après {timeout:g} s) ; voici une réponse extractive.",
        "connection": "Le modèle de langage n'a pas pu être joint (connexion impossible) ; voici une réponse extractive.",
        "401": "Le modèle de langage a refusé la clé d'API (401) ; vérifiez la clé dans les réglages. Voici une réponse extractive.",
        "403": "Le point d'accès du modèle de langage a refusé l'accès (403) ; voici une réponse extractive.",
        "404": "Le point d'accès ne connaît pas le modèle « {model} » ou son adresse est erronée (404) ; voici une réponse extractive.",
        "429": "Le modèle de langage est limité en débit ou en quota (429) ; réessayez dans un instant. Voici une réponse extractive.",
        "400": "Le point d'accès du modèle de langage a rejeté la requête ({status}) ; voici une réponse extractive.",
        "5xx": "Le point d'accès du modèle de langage a échoué (HTTP {status}) ; voici une réponse extractive.",
        "format": "Le modèle de langage a rendu une réponse qui ne respecte pas le format demandé ; voici une réponse extractive.",
        "refusal": "Le modèle de langage a refusé de répondre ; voici une réponse extractive.",
        "other": "L'appel au modèle de langage a échoué ({kind}) ; voici une réponse extractive.",
    },
}


def describe_failure(exc: BaseException, settings: Settings, language: str) -> str:
    """A user message for a failed call; built from the error's type and status only, never its text."""
    import openai

    msgs = _FAILURES.get(language, _FAILURES["en"])
    fmt = {"timeout": settings.llm.timeout_s, "model": settings.llm.model, "kind": type(exc).__name__, "status": 0}
    if isinstance(exc, openai.APITimeoutError):
        return msgs["timeout"].format(**fmt)
    if isinstance(exc, openai.APIConnectionError):
        return msgs["connection"].format(**fmt)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        fmt["status"] = status
        if status in (401, 403, 404, 429):
            return msgs[str(status)].format(**fmt)
        if status >= 500:
            return msgs["5xx"].format(**fmt)
        return msgs["400"].format(**fmt)
    if type(exc).__name__ == "OpenAIRefusalError":
        return msgs["refusal"].format(**fmt)
    if isinstance(exc, (ValidationError, json.JSONDecodeError, ValueError, KeyError, TypeError, openai.LengthFinishReasonError)):
        return msgs["format"].format(**fmt)
    return msgs["other"].format(**fmt)


def call_structured(
    messages: list[dict[str, Any]], schema: type[BaseModel], settings: Settings, language: str = "en"
) -> tuple[Any, dict[str, Any]]:
    """One strict JSON-schema call returning (`schema` instance, usage metadata), no retry.

    Raises `LLMError` with a user message on any failure. Used for answers and, by
    `rag_core.understanding`, for the router and the follow-up rewrite.
    """
    try:
        from langchain_openai import ChatOpenAI

        model = ChatOpenAI(
            model=settings.llm.model,
            base_url=settings.llm_base_url(),
            api_key=_api_key(settings),
            temperature=settings.llm.temperature,
            timeout=settings.llm.timeout_s,
            max_retries=0,
        )
        runnable = model.with_structured_output(schema, method="json_schema", include_raw=True)
        result = runnable.invoke(messages)
        if result.get("parsing_error") is not None:
            raise result["parsing_error"]
        parsed = result.get("parsed")
        if isinstance(parsed, dict):
            parsed = schema.model_validate(parsed)
        if not isinstance(parsed, schema):
            raise ValueError("structured output missing")
    except Exception as exc:  # noqa: BLE001 - every failure becomes a user message
        message = describe_failure(exc, settings, language)
        log.warning("LLM call failed: %s: %s", type(exc).__name__, redact(str(exc), settings)[:500])
        raise LLMError(message) from None
    return parsed, getattr(result.get("raw"), "usage_metadata", None) or {}
