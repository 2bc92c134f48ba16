"""A reply's text as the client reads it: the JSON in it, parsed against the caller's schema, with its usage."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel


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
    # strict=False: a raw line break inside a string (llama.cpp's grammar lets a small model write one) is read
    return schema.model_validate(json.loads(body[: end + 1], strict=False))


@dataclass
class StructuredReply:
    """A validated reply: the object, the tokens (the endpoint's count, or the local tokenizer's estimate when
    `estimated`), the dialect used, and notes for the user on how the reply came (asked again shorter)."""

    parsed: Any
    prompt_tokens: int = 0
    completion_tokens: int = 0
    dialect: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    estimated: bool = False
    notes: list[str] = field(default_factory=list)


def usage_of(message: Any) -> dict[str, Any]:
    return dict(getattr(message, "usage_metadata", None) or {})
