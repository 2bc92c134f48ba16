"""The messages as every chat template keeps them, the events a call yields besides its text, and token estimates.

`arrange` merges every instruction (the caller's system messages and the format instruction) into one leading
system message, or folds them into the first user message for templates that drop or reject system messages:
never a system message after a user message. `estimate_tokens` counts with the local tokenizer when the
endpoint reports no usage (the count is then marked as estimated).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FOLD_HEADER = "Instructions (follow them for this whole conversation):"


@dataclass(frozen=True)
class Waiting:
    """The call waits for its turn at an endpoint that runs one generation at a time: `position` 1 is next."""

    position: int


@dataclass(frozen=True)
class Retrying:
    """The reply stopped at its token limit (`partial`: what it had written); the call asks again, shorter."""

    partial: str
    limit: int


def arrange(messages: list[dict[str, Any]], extra_instruction: str | None, fold: bool) -> list[dict[str, Any]]:
    """One leading system message at most (or none, folded into the first user message), then the rest in order."""
    instructions = [str(m["content"]) for m in messages if m.get("role") == "system"]
    if extra_instruction:
        instructions.append(extra_instruction)
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if not instructions:
        return rest
    joined = "\n\n".join(instructions)
    if not fold:
        return [{"role": "system", "content": joined}, *rest]
    first_user = next((i for i, m in enumerate(rest) if m.get("role") == "user"), None)
    if first_user is None:
        return [{"role": "user", "content": f"{FOLD_HEADER}\n{joined}"}, *rest]
    message = rest[first_user]
    content = message.get("content")
    prefix = f"{FOLD_HEADER}\n{joined}\n\n"
    if isinstance(content, list):
        message["content"] = [{"type": "text", "text": prefix.rstrip()}, *content]
    else:
        message["content"] = prefix + str(content or "")
    return rest


def message_chars(messages: list[dict[str, Any]]) -> str:
    """The text of the messages (images left out), for a token estimate."""
    parts: list[str] = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            parts += [str(p.get("text", "")) for p in content if isinstance(p, dict)]
        else:
            parts.append(str(content or ""))
    return "\n".join(parts)


def estimate_tokens(text: str) -> int:
    """Tokens of `text` by the local (XLM-R) tokenizer; 4 characters a token when it cannot be loaded."""
    if not text:
        return 0
    try:
        from rag_core.chunking.tokenizer import count_tokens

        return int(count_tokens(text))
    except Exception:  # an estimate is all that is asked for
        return -(-len(text) // 4)
