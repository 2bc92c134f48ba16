"""The chat-model call: LangChain `ChatOpenAI` with a strict JSON-schema structured output.

Any OpenAI-compatible endpoint works (OpenAI, vLLM, Ollama, llama.cpp server). Every failure
(timeout, refused connection, HTTP error, output that is not the schema) becomes an
`LLMError` whose message is written for the user and never contains the API key. This
module does not verify citations and does not decide on fallbacks (see `__init__`).
"""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from rag_core.answering.prompts import PromptSource, image_caption, system_prompt, user_prompt
from rag_core.citations import item_source_id
from rag_core.config import Settings
from rag_core.errors import LLMError
from rag_core.models import Item, Operation, RetrievedParent

log = logging.getLogger(__name__)

PLACEHOLDER_KEY = "not-needed"  # local servers (vLLM, Ollama) accept any key


class ComputationInputOut(BaseModel):
    value: str = Field(description="A number copied from a source, as written there, e.g. '1 234,5'.")
    source_id: str = Field(description="Id of the source the number is copied from, e.g. 'S2'.")


class ComputationOut(BaseModel):
    operation: Operation = Field(
        description="sum, difference (first minus the others), product, ratio (first / second), growth "
        "(second / first - 1), development_factor (sum of the second half of the inputs / sum of the first half: "
        "column j first, then column j+1), average."
    )
    inputs: list[ComputationInputOut] = Field(description="The quoted numbers the computation uses, in order.")
    result: str = Field(description="The result exactly as written in the paragraph text, with its unit.")


class ParagraphOut(BaseModel):
    text: str = Field(description="One paragraph of the answer.")
    source_ids: list[str] = Field(description="Ids of the sources this paragraph relies on, e.g. ['S1'].")
    quote: str = Field(description="Short verbatim extract of one cited source that supports the paragraph.")
    computations: list[ComputationOut] = Field(
        default_factory=list,
        description="Every number of the paragraph that is not copied from a source, with how it was computed; "
        "empty when every number is quoted.",
    )


class AnswerOut(BaseModel):
    """The structured answer the model must return."""

    paragraphs: list[ParagraphOut] = Field(description="The answer, paragraph by paragraph, each with its sources.")
    missing_information: str = Field(description="What the sources do not say and the question needs; empty if nothing.")


@dataclass(frozen=True)
class LLMReply:
    output: AnswerOut
    prompt_tokens: int = 0
    completion_tokens: int = 0


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


def _picture_part(hit: RetrievedParent, item: Item, settings: Settings) -> dict[str, Any] | None:
    """The PNG crop of a picture as an image content part; None when it is not on disk."""
    if item.kind != "picture" or not item.image_path:
        return None
    folder = (Path(settings.documents_dir) / hit.parent.doc_id).resolve()
    path = (folder / item.image_path).resolve()
    if not path.is_relative_to(folder):  # a crop always lives in its document's folder
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(data).decode("ascii")}}


def build_messages(
    question: str,
    prompt_sources: Sequence[PromptSource],
    hits: Sequence[RetrievedParent],
    settings: Settings,
    language: str,
    history: Sequence[tuple[str, str]] | None = None,
    absent_terms: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """System instructions, then one user message: sources block and question (and pictures)."""
    text = user_prompt(question, prompt_sources, language, history, absent_terms)
    content: str | list[dict[str, Any]] = text
    if settings.llm.accepts_images:
        pictures: list[dict[str, Any]] = []
        for ps in prompt_sources:
            if ps.source.kind != "picture":
                continue
            hit = next((h for h in hits if h.parent.id == ps.source.parent_id), None)
            item = next((i for i in hit.parent.items if item_source_id(hit.parent, i) == ps.source.id), None) if hit else None
            if hit is None or item is None:
                continue
            part = _picture_part(hit, item, settings)
            if part is not None:
                pictures += [{"type": "text", "text": image_caption(ps.alias, ps.source, language)}, part]
        if pictures:
            content = [{"type": "text", "text": text}, *pictures]
    return [{"role": "system", "content": system_prompt(language)}, {"role": "user", "content": content}]


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


def call_model(messages: list[dict[str, Any]], settings: Settings, language: str = "en") -> LLMReply:
    """One structured answer call, no retry. Raises `LLMError` with a user message on any failure."""
    parsed, usage = call_structured(messages, AnswerOut, settings, language)
    return LLMReply(
        output=parsed,
        prompt_tokens=int(usage.get("input_tokens", 0) or 0),
        completion_tokens=int(usage.get("output_tokens", 0) or 0),
    )
