"""The answer call: the structured answer schema, the messages sent, and one model call.

The schema (`AnswerOut`: paragraphs with source ids, quote and declared computations, plus
the missing information) and the messages (system instructions, numbered sources, pictures
for models that accept images) are answering's own; the call itself goes through the shared
client `rag_core.llm.call_structured`. This module verifies nothing (see `verification`).
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from rag_core import storage
from rag_core.answering.prompts import PromptSource, image_caption, system_prompt, user_prompt
from rag_core.citations import item_source_id
from rag_core.config import Settings
from rag_core.llm import StructuredReply, json_text, stream_structured
from rag_core.models import Item, Operation, RetrievedParent


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
    missing_information: str = Field(
        description="What the sources do not say and the question needs; empty if nothing."
    )


@dataclass(frozen=True)
class LLMReply:
    output: AnswerOut
    prompt_tokens: int = 0
    completion_tokens: int = 0
    dialect: str = ""


def _picture_part(hit: RetrievedParent, item: Item, settings: Settings) -> dict[str, Any] | None:
    """The PNG crop of a picture as an image content part; None when it is not on disk."""
    if item.kind != "picture" or not item.image_path:
        return None
    folder = storage.document_folder(settings, hit.parent.doc_id).root.resolve()
    path = (folder / item.image_path).resolve()
    if not path.is_relative_to(folder):  # a crop always lives in its document's folder
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64," + base64.b64encode(data).decode("ascii")},
    }


def build_messages(
    question: str,
    prompt_sources: Sequence[PromptSource],
    hits: Sequence[RetrievedParent],
    settings: Settings,
    language: str,
    history: Sequence[tuple[str, str]] | None = None,
    absent_terms: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """System instructions, then one user message: sources block, the question's terms no source
    mentions, and the question (and pictures)."""
    text = user_prompt(question, prompt_sources, language, history, absent_terms)
    content: str | list[dict[str, Any]] = text
    if settings.llm.accepts_images:
        pictures: list[dict[str, Any]] = []
        for ps in prompt_sources:
            if ps.source.kind != "picture":
                continue
            hit = next((h for h in hits if h.parent.id == ps.source.parent_id), None)
            item = (
                next((i for i in hit.parent.items if item_source_id(hit.parent, i) == ps.source.id), None)
                if hit
                else None
            )
            if hit is None or item is None:
                continue
            part = _picture_part(hit, item, settings)
            if part is not None:
                pictures += [{"type": "text", "text": image_caption(ps.alias, ps.source, language)}, part]
        if pictures:
            content = [{"type": "text", "text": text}, *pictures]
    return [{"role": "system", "content": system_prompt(language)}, {"role": "user", "content": content}]


def stream_model(messages: list[dict[str, Any]], settings: Settings, language: str = "en") -> Iterator[str | LLMReply]:
    """The reply's text as it grows, then the validated `LLMReply`. Raises `LLMError` with a user message."""
    for item in stream_structured(messages, AnswerOut, settings, language):
        if isinstance(item, StructuredReply):
            yield LLMReply(
                output=item.parsed,
                prompt_tokens=item.prompt_tokens,
                completion_tokens=item.completion_tokens,
                dialect=item.dialect,
            )
        else:
            yield item


def split_paragraphs(text: str) -> tuple[list[dict[str, Any]], str | None]:
    """From a reply still being written: the paragraphs it has completed (a later one has begun, or
    the list is closed), and the text of the paragraph being written (None when there is none)."""
    from langchain_core.utils.json import parse_partial_json

    body = json_text(text)
    if not body:
        return [], None
    try:
        partial = parse_partial_json(body)
    except Exception:  # noqa: BLE001 - a prefix the partial parser cannot close yet
        return [], None
    paragraphs = partial.get("paragraphs") if isinstance(partial, dict) else None
    if not isinstance(paragraphs, list):
        return [], None
    closed = _list_closed(body)
    items = [p for p in paragraphs if isinstance(p, dict)]
    if closed:
        return items, None
    current = items[-1].get("text") if items else None
    return items[:-1], current if isinstance(current, str) else None


def _list_closed(body: str) -> bool:
    """Whether the paragraphs array has been closed (a ']' outside strings at depth 1)."""
    depth, in_string, escaped, seen = 0, False, False, False
    for ch in body:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            seen = seen or ch == "["
        elif ch in "]}":
            depth -= 1
            if ch == "]" and depth == 1 and seen:
                return True
    return False
