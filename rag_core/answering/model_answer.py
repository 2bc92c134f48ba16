"""The answer call: the structured answer schema, the messages sent, and one model call.

The schema (`AnswerOut`: paragraphs with source ids, quote and declared computations, plus
the missing information) and the messages (system instructions, numbered sources, pictures
for models that accept images) are answering's own; the call itself goes through the shared
client `rag_core.llm.call_structured`. This module verifies nothing (see `verification`).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from rag_core import storage
from rag_core.answering.prompts import PromptSource, image_caption, system_prompt, user_prompt
from rag_core.citations import item_source_id
from rag_core.config import Settings
from rag_core.llm import Retrying, StructuredReply, Waiting, json_text, stream_structured
from rag_core.llm.shaping import estimate_tokens, message_chars
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
    estimated: bool = False
    notes: tuple[str, ...] = ()


# Tokens a paragraph's JSON costs besides its text and quote (keys, ids, punctuation), and the answer's frame
# (braces, `missing_information` up to its bound); text at 3 characters a token, safe for French and escapes.
PARAGRAPH_OVERHEAD_TOKENS = 60
FRAME_TOKENS = 120
CHARS_PER_REPLY_TOKEN = 3
MISSING_CHARS = 300


@dataclass(frozen=True)
class Shape:
    """What the answer may hold and the token budget of the reply, derived from the settings and the prompt."""

    paragraphs: int
    paragraph_chars: int
    quote_chars: int
    max_tokens: int | None

    def instruction(self, language: str) -> str:
        if language == "fr":
            return (
                f"Format : au plus {self.paragraphs} paragraphe(s), chacun d'au plus {self.paragraph_chars} "
                f"caractères ; chaque citation (`quote`) d'au plus {self.quote_chars} caractères."
            )
        return (
            f"Size: at most {self.paragraphs} paragraph(s), each at most {self.paragraph_chars} characters; each "
            f"`quote` at most {self.quote_chars} characters."
        )


def paragraph_tokens(paragraph_chars: int, quote_chars: int) -> int:
    return (paragraph_chars + quote_chars) // CHARS_PER_REPLY_TOKEN + PARAGRAPH_OVERHEAD_TOKENS


def answer_shape(settings: Settings, prompt_tokens: int = 0) -> Shape:
    """The reply's budget: the `max_tokens` setting, cut to what the endpoint's context leaves after the prompt
    (`endpoint_context_tokens`); the number of paragraphs asked for is what fits in that budget."""
    llm = settings.llm
    budget = llm.max_tokens
    if llm.endpoint_context_tokens:
        room = max(llm.endpoint_context_tokens - prompt_tokens - 16, 1)
        budget = min(budget, room) if budget else room
    per = paragraph_tokens(llm.paragraph_chars, llm.quote_chars)
    fits = (budget - FRAME_TOKENS) // per if budget else llm.max_paragraphs
    return Shape(max(1, min(llm.max_paragraphs, fits)), llm.paragraph_chars, llm.quote_chars, budget)


def sources_budget(settings: Settings) -> int:
    """Most tokens the sources may take: `context_tokens`, else what the endpoint's context leaves once the reply
    (at least two paragraphs) and the instructions have their room; 0 when neither is known."""
    llm = settings.llm
    if llm.context_tokens or not llm.endpoint_context_tokens:
        return llm.context_tokens
    reply = FRAME_TOKENS + min(2, llm.max_paragraphs) * paragraph_tokens(llm.paragraph_chars, llm.quote_chars)
    return max(llm.endpoint_context_tokens - reply - INSTRUCTION_TOKENS, 256)


INSTRUCTION_TOKENS = 1200  # the system prompt, the schema and the question


def bounded_schema(shape: Shape) -> dict[str, Any]:
    """`AnswerOut`'s JSON schema with the shape's bounds (llama.cpp's servers make a grammar of it, so a small model
    cannot write past them); validation itself does not enforce them."""
    schema = AnswerOut.model_json_schema()
    props = schema["properties"]
    props["paragraphs"] = {**props["paragraphs"], "minItems": 1, "maxItems": shape.paragraphs}
    props["missing_information"] = {**props["missing_information"], "maxLength": MISSING_CHARS}
    paragraph = schema["$defs"]["ParagraphOut"]["properties"]
    paragraph["text"] = {**paragraph["text"], "maxLength": shape.paragraph_chars}
    paragraph["quote"] = {**paragraph["quote"], "maxLength": shape.quote_chars}
    paragraph["source_ids"] = {**paragraph["source_ids"], "maxItems": 4}
    paragraph["computations"] = {**paragraph["computations"], "maxItems": 2}
    computation = schema["$defs"]["ComputationOut"]["properties"]
    computation["inputs"] = {**computation["inputs"], "maxItems": 4}
    computation["result"] = {**computation["result"], "maxLength": 60}
    schema["$defs"]["ComputationInputOut"]["properties"]["value"]["maxLength"] = 40
    return prompt_schema(schema)


def _descriptions(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["description"]] if isinstance(node.get("description"), str) else []
        return own + [d for value in node.values() for d in _descriptions(value)]
    if isinstance(node, list):
        return [d for value in node for d in _descriptions(value)]
    return []


# The schema's own descriptions, which a small model copies into a paragraph instead of answering (seen with
# Gemma 3 270M): such a paragraph is no answer (`verification.verify_citations`).
FORMAT_ECHOES = frozenset(
    " ".join(d.split()).casefold().rstrip(".") for d in _descriptions(AnswerOut.model_json_schema())
)


def prompt_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The bounded schema as sent in the prompt and as a grammar: without titles, and without the descriptions of
    the answer's and the paragraph's fields (the instructions say what each holds; a small model copied them as its
    answer); the computations keep theirs (what each operation computes)."""
    kept = {"ComputationOut", "ComputationInputOut"}

    def strip(node: Any, keep: bool) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key == "title" or (key == "description" and not keep and isinstance(value, str)):
                    continue
                out[key] = strip(value, keep)
            return out
        if isinstance(node, list):
            return [strip(value, keep) for value in node]
        return node

    out = strip({k: v for k, v in schema.items() if k != "$defs"}, False)
    out["$defs"] = {name: strip(d, name in kept) for name, d in schema.get("$defs", {}).items()}
    return out


def shorter_shape(shape: Shape) -> Shape:
    return Shape(
        max(1, min(2, shape.paragraphs)),
        max(100, shape.paragraph_chars // 2),
        shape.quote_chars // 2 or 40,
        shape.max_tokens,
    )


SHORTER = {
    "en": "Your previous reply was cut off at its length limit. Reply again with the JSON object only, shorter: {size}",
    "fr": "Votre réponse précédente a été coupée à sa limite de longueur. Répondez de nouveau avec l'objet JSON seul, "
    "plus court : {size}",
}


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
    shape = answer_shape(settings)
    system = f"{system_prompt(language)}\n\n{shape.instruction(language)}"
    return [{"role": "system", "content": system}, {"role": "user", "content": content}]


def stream_model(
    messages: list[dict[str, Any]], settings: Settings, language: str = "en"
) -> Generator[str | LLMReply | Waiting | Retrying, None, None]:
    """`Waiting` while the endpoint is busy, the reply's text as it grows, `Retrying` when it was cut off, then
    the validated `LLMReply`. The reply is bounded by `answer_shape` (in the schema and the budget) and asked
    again shorter once when it stops at its token limit. Raises `LLMError` with a user message."""
    schema_text = json.dumps(bounded_schema(answer_shape(settings)), ensure_ascii=False)  # sent in the prompt too
    shape = answer_shape(settings, estimate_tokens(message_chars(messages) + "\n" + schema_text) * 11 // 10)
    short = shorter_shape(shape)
    again = SHORTER.get(language, SHORTER["en"]).format(size=short.instruction(language))
    for item in stream_structured(
        messages,
        AnswerOut,
        settings,
        language,
        grammar=bounded_schema(shape),
        max_tokens=shape.max_tokens,
        shorter=(again, bounded_schema(short)),
    ):
        if isinstance(item, StructuredReply):
            yield LLMReply(
                output=item.parsed,
                prompt_tokens=item.prompt_tokens,
                completion_tokens=item.completion_tokens,
                dialect=item.dialect,
                estimated=item.estimated,
                notes=tuple(item.notes),
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
    except Exception:  # a prefix the partial parser cannot close yet
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
