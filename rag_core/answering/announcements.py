"""Lists announced at the end of a parent whose items open the parents after it (read by the question's
search: `rag_core.question.announced`).

A parent that ends with a sentence announcing what follows in so many words (a colon, "the following",
"suivants") does not hold the list: its items are its subsections (their heading path extends its own), or,
when the sentence says how many there are ("across 4 areas:"), that many next parents under headings of one
level. The document's own numbered sections are never read as such items.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag_core.answering.evidence import is_code_like
from rag_core.answering.units import _ANNOUNCES, _TITLE, _is_item, _number
from rag_core.models import Parent

_COUNT_WORDS = {
    w: n
    for n, words in enumerate(
        [(), (), ("two", "deux"), ("three", "trois"), ("four", "quatre"), ("five", "cinq"), ("six",),
         ("seven", "sept"), ("eight", "huit"), ("nine", "neuf"), ("ten", "dix"), ("eleven", "onze"),
         ("twelve", "douze")]
    )
    for w in words
}  # fmt: skip
# a count before the plural noun it counts, maybe after one adjective: "4 areas", "two possible methods"
_COUNT = re.compile(r"\b(\d{1,2}|" + "|".join(_COUNT_WORDS) + r")\s+(?:[^\W\d_]+\s+)?[^\W\d_]+[sx]\b", re.IGNORECASE)
MAX_ANNOUNCED_ITEMS = 12  # a list longer than this is not read from the parents after its announcement


def closing_announcement(text: str, split: Callable[[str], list[str]]) -> str | None:
    """The sentence that ends `text` (a parent's) when it announces what follows in so many words (a
    colon, "the following", "suivants"): the list it announces is not in `text`. None otherwise."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or _is_item(lines[-1]) or _number(lines[-1]) is not None:
        return None
    sentence = (split(lines[-1]) or [""])[-1]
    if not sentence or is_code_like(sentence) or not _ANNOUNCES.search(sentence):
        return None
    return sentence.strip()


def announced_count(sentence: str) -> int | None:
    """How many items the sentence announces, when it says ("across 4 areas:", "deux méthodes :")."""
    found = [m.group(1).lower() for m in _COUNT.finditer(sentence)]
    counts = [int(w) if w.isdigit() else _COUNT_WORDS[w] for w in found]
    counts = [n for n in counts if 2 <= n <= MAX_ANNOUNCED_ITEMS]
    return counts[-1] if len(counts) == 1 else None


def announced_items(announcing: Parent, following: Sequence[Parent], sentence: str) -> list[Parent]:
    """The parents after `announcing` that hold the items of the list its last `sentence` announces:
    its subsections (their heading path extends its own; two at least, none a numbered section of the
    document), consecutive from the next parent; else, when
    the sentence says how many items there are, that many next parents under headings of one level (a
    layout that set each item as a heading beside the announcement). Nothing when neither holds."""
    path = announcing.heading_path
    subsections = []
    for parent in following[:MAX_ANNOUNCED_ITEMS]:
        if len(parent.heading_path) <= len(path) or parent.heading_path[: len(path)] != path or _sectioned(parent):
            break
        subsections.append(parent)
    if len(subsections) >= 2:
        return subsections
    count = announced_count(sentence)
    if count is None or len(following) < count:
        return []
    chosen = list(following[:count])
    depth = len(chosen[0].heading_path)
    if depth == 0 or any(
        len(p.heading_path) != depth or p.heading_path[:-1] != chosen[0].heading_path[:-1] or _sectioned(p)
        for p in chosen
    ):
        return []
    return chosen


_SECTION_NUMBER = re.compile(r"^\s*(?:\d{1,2}(?:\.\d{1,2})+\.?|\d{1,2}\.|[IVX]{1,5}\.|[A-Z]\.)\s")


def _sectioned(parent: Parent) -> bool:
    """The parent opens a numbered section of the document ("5.3.2.1 Exact fitting", "Guideline 12 – …"),
    not an item of a list: the document's own sections are never read as the items announced before them."""
    heading = parent.heading_path[-1] if parent.heading_path else ""
    return bool(_SECTION_NUMBER.match(heading) or _TITLE.match(heading))
