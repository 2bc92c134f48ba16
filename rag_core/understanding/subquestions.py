"""Sub-questions of a comparison (docs/method.md, "Question understanding"): rules that split, and the budget's shares.

"Compare Mack and Bootstrap for the reserve uncertainty" becomes "Mack for the reserve
uncertainty" and "Bootstrap for the reserve uncertainty"; "différence entre la PSAP et la
PPNA" becomes "la PSAP" and "la PPNA". At most three items; a question that does not split
stays whole. The LLM router (`budget.llm_plan`) writes its own sub-questions.
This module does not search and does not call a model.
"""

from __future__ import annotations

import re

MAX_SUB_QUESTIONS = 3

# The text after the cue holds the items; the items end where the shared part begins.
# Only explicit comparison requests split: an imperative "Compare..." or "What is the difference
# between...", at the start of the question. "compares" inside a clause is no request (measured:
# the dev set's factual questions must stay whole).
_CUE = re.compile(
    r"(?i)^(?:(?:please|merci de|veuillez|peux-tu|pouvez-vous|can you|could you)\s+)?"
    r"(?:(?:quelles?|what)\s+(?:est|sont|is|are)\s+(?:la|les|the)\s+|y a-t-il une\s+)?"
    r"(?:compare[rsz]?|comparing|comparaison (?:de|des|du|entre)|différences? (?:entre|between)|"
    r"differences? (?:entre|between)|contrast(?:er)?)\s+(?P<rest>.+)$"
)
_VERSUS = re.compile(r"(?i)^(?P<a>[^,;]{1,60}?)\s+(?:versus|vs\.?)\s+(?P<rest>.+)$")
_AND = re.compile(r"(?i)\s+(?:and|et|with|avec|to|à|aux|au|vs\.?|versus)\s+")
_SHARED = re.compile(
    r"(?i)\s+(?:for|pour|in|dans|when|lorsque|quand|regarding|concernant|en ce qui concerne|under|sous|"
    r"on|sur|in terms of|en termes de|with respect to|du point de vue|as regards|applied to|appliqu[ée]es? "
    r"(?:à|au|aux))\s+"
)


def _clean(text: str) -> str:
    return text.strip(" ,;:?!.\u00a0")


def _items_and_shared(rest: str) -> tuple[list[str], str]:
    """'Mack and Bootstrap for X' -> (['Mack', 'Bootstrap'], 'for X')."""
    rest = _clean(rest)
    # The shared part starts at the first connector that comes after the last item separator.
    joints = list(_AND.finditer(rest))
    if not joints:
        return [], ""
    last_joint = joints[min(len(joints), MAX_SUB_QUESTIONS - 1) - 1]
    shared_match = _SHARED.search(rest, last_joint.end())
    end = shared_match.start() if shared_match else len(rest)
    comma = rest.find(",", last_joint.end(), end)  # "A and B, what ...": the clause after is shared
    if comma != -1:
        end = comma
    items_text, shared = rest[:end], _clean(rest[end:])
    parts = [p for chunk in _AND.split(items_text) for p in chunk.split(",")]
    items = [_clean(p) for p in parts if _clean(p)]
    return items, shared


def split_comparison(question: str) -> list[str]:
    """1-3 sub-questions (an empty list when the question does not split into 2 or more)."""
    text = _clean(question)
    items: list[str] = []
    shared = ""
    cue = _CUE.match(text)
    if cue:
        items, shared = _items_and_shared(cue.group("rest"))
    else:
        versus = _VERSUS.search(text)
        if versus:
            first = _clean(re.split(r"(?i)\b(?:is|est|are|sont|should|faut-il|do|does)\b", versus.group("a"))[-1])
            rest_items, shared = _items_and_shared("x and " + versus.group("rest"))
            items = [first, *rest_items[1:]] if rest_items else []
    items = [i for i in items if i][:MAX_SUB_QUESTIONS]
    if len(items) < 2:
        return []
    return [f"{item} {shared}".strip() for item in items]


def share_budget(total: int, n: int) -> list[int]:
    """Split `total` parents over `n` sub-questions, the first ones taking the remainder; each gets at least 1."""
    n = max(1, n)
    base, extra = divmod(max(total, n), n)
    return [base + (1 if i < extra else 0) for i in range(n)]
