"""The answer prompt cut to fit the endpoint's context, keeping what was sent quotable.

`context_parents` keeps the first parent whole whatever its size; a long section (a 30-page chapter) then makes a
prompt that a small-context endpoint cannot hold (llama.cpp truncates it or the reply has no room left). Here the
whole prompt (instructions, the answer's schema as sent in the prompt, question, sources) is measured with the
local tokenizer against what the endpoint's context leaves once the reply has its room (`llm.endpoint_context_tokens`
less the reply's budget), or against `llm.context_tokens` for the sources. When it does not fit, the later sources
are left out of the prompt first, then the first parent is cut around its best-matching children: the best child
the search found, then the children that hold most of the question's words, nearest first. What is sent of a cut
parent is verbatim runs of its text joined by a visible gap mark, so a quote copied from it is found in the
registered source by the verification; a quote spanning a gap is not, and is marked as such.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rag_core.answering.model_answer import FRAME_TOKENS, answer_shape, bounded_schema, build_messages, paragraph_tokens
from rag_core.answering.prompts import PromptSource
from rag_core.config import Settings
from rag_core.llm.shaping import estimate_tokens, message_chars
from rag_core.models import RetrievedParent

GAP = "\n[…]\n"  # between the verbatim runs of a cut parent (and at its ends when they are left out)
SAFETY = 1.1  # the local tokenizer is not the endpoint's: the same margin as the reply's budget takes
SLACK = 16
MIN_SOURCE_TOKENS = 64
_WORD = re.compile(r"\w{4,}", re.UNICODE)


def prompt_allowance(settings: Settings) -> int:
    """Most tokens the whole prompt may take so that the reply keeps room for a two-paragraph answer: the endpoint's
    context (`endpoint_context_tokens`) less that reply (bounded by `max_tokens`); 0 when the context is unknown."""
    llm = settings.llm
    if not llm.endpoint_context_tokens:
        return 0
    reply = FRAME_TOKENS + min(2, llm.max_paragraphs) * paragraph_tokens(llm.paragraph_chars, llm.quote_chars)
    if llm.max_tokens:
        reply = min(reply, llm.max_tokens)
    return max(int((llm.endpoint_context_tokens - reply - SLACK) / SAFETY), MIN_SOURCE_TOKENS)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def cut_parent(text: str, spans: Sequence[tuple[int, int]], best: int, terms: set[str], max_chars: int) -> str:
    """`text` cut to about `max_chars`: whole children (`spans` into `text`) chosen best first (`best`, then those
    sharing most words with `terms`, nearest to `best` first), sent in document order, verbatim, joined by `GAP`.
    Without child spans, or when the best child alone is too long, a window of the text around the best child."""
    if len(text) <= max_chars:
        return text
    spans = [(a, z) for a, z in spans if 0 <= a < z <= len(text)]
    if not spans or not 0 <= best < len(spans) or spans[best][1] - spans[best][0] > max_chars:
        a = spans[best][0] if spans and 0 <= best < len(spans) else 0
        a = min(a, max(len(text) - max_chars, 0))
        return ("" if a == 0 else GAP.lstrip("\n")) + text[a : a + max_chars] + GAP.rstrip("\n")

    def rank(i: int) -> tuple[int, int, int]:
        a, z = spans[i]
        return (0 if i == best else 1, -len(terms & _words(text[a:z])), abs(i - best))

    chosen: list[int] = []
    used = 0
    for i in sorted(range(len(spans)), key=rank):
        size = spans[i][1] - spans[i][0] + len(GAP)
        if used + size > max_chars:
            continue
        chosen.append(i)
        used += size
    chosen.sort()
    parts: list[str] = []
    runs: list[list[int]] = []
    for i in chosen:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    for run in runs:
        parts.append(text[spans[run[0]][0] : spans[run[-1]][1]].strip())
    head = "" if spans[runs[0][0]][0] == 0 else GAP.lstrip("\n")
    tail = "" if spans[runs[-1][-1]][1] >= len(text.rstrip()) else GAP.rstrip("\n")
    return head + GAP.join(parts) + tail


def _tokens(messages: list[dict[str, Any]], schema_text: str) -> int:
    return estimate_tokens(message_chars(messages) + "\n" + schema_text)


def fit_messages(
    question: str,
    prompt_sources: Sequence[PromptSource],
    hits: Sequence[RetrievedParent],
    settings: Settings,
    language: str,
    history: Sequence[tuple[str, str]] | None = None,
    absent_terms: Sequence[str] = (),
    terms: Sequence[str] = (),
) -> tuple[list[dict[str, Any]], list[PromptSource]]:
    """The answer's messages fitted to the endpoint (see the module docstring), and the sources as sent (a source
    left out of the prompt is absent; a cut parent carries the text sent)."""
    sources = list(prompt_sources)

    def build(chosen: Sequence[PromptSource]) -> list[dict[str, Any]]:
        return build_messages(question, chosen, hits, settings, language, history, absent_terms)

    allowance = prompt_allowance(settings)
    sources_limit = settings.llm.context_tokens
    if not allowance and not sources_limit:
        return build(sources), sources
    schema_text = json.dumps(bounded_schema(answer_shape(settings)), ensure_ascii=False)
    fixed = _tokens(build([]), schema_text)
    room = allowance - fixed if allowance else sources_limit
    if allowance and sources_limit:
        room = min(room, sources_limit)
    room = max(room, MIN_SOURCE_TOKENS)

    def size(chosen: Sequence[PromptSource]) -> int:
        return sum(estimate_tokens(ps.source.text if ps.text is None else ps.text) for ps in chosen)

    while len(sources) > 1 and size(sources) > room:
        sources.pop()  # the last source first: the later parents, then the first parent's items
    if size(sources) <= room:
        return build(sources), sources  # built once, for what is sent
    first = sources[0]
    hit = next((h for h in hits if h.parent.id == first.source.parent_id), None)
    best = next((i for i, c in enumerate(hit.children) if c.id == hit.best_child.id), 0) if hit else 0
    words = _words(" ".join([question, *terms]))
    text = first.source.text
    chars = len(text) * room // max(estimate_tokens(text), 1)
    for _ in range(4):  # the tokens of a cut text are not proportional to its characters: shrink until it fits
        cut = cut_parent(text, first.source.child_spans, best, words, chars)
        if estimate_tokens(cut) <= room or chars < 200:
            break
        chars = chars * 9 // 10
    sources[0] = replace(first, text=cut)
    return build(sources), sources
