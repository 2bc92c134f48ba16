"""The passages a reader judges: short windows around the context's best sentences.

Each candidate is a sentence of a context parent (`answering.evidence.candidates`, ranked by the share of
the question's terms it covers) with its neighbours: the lines around it, or, when it announces something
(it ends with a colon), the lines that follow it (a formula set on lines of its own, a list's items), up to
`reader.candidate_chars`. The best sentence of the first-ranked parent is always among them (the search's
own choice); windows that overlap one already taken are skipped. Best first, at most `reader.candidates`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.answering.evidence import Candidate, candidates
from rag_core.answering.units import parent_lines
from rag_core.models import RetrievedParent

ANNOUNCED_SHARE = 1.5  # an announcement's window may be this much longer: what it announces comes with it


@dataclass(frozen=True)
class Window:
    parent: int  # index in the context
    start: int  # first line (of `units.parent_lines`)
    end: int  # after the last line
    line: int  # the line of the sentence it was built around
    sentence: str
    text: str
    prior: float  # the sentence's relevance (coverage of the question's terms)
    rank: int  # its place in the prior order (0: best)


def _clip_line(line: str, sentence: str, limit: int) -> str:
    """A line longer than `limit`: the sentence and what follows it, then what precedes it, within `limit`."""
    at = max(line.find(sentence), 0)
    text = line[at : at + limit]
    if len(text) < limit and at > 0:
        text = line[max(0, at - (limit - len(text))) : at] + text
    return text.strip()


def window(lines: Sequence[str], line: int, sentence: str, limit: int) -> tuple[int, int, str]:
    """The lines around `line` (after it first), or the lines after an announcement, within `limit` chars."""
    if len(lines[line]) >= limit:
        return line, line + 1, _clip_line(lines[line], sentence, limit)
    start, end, size = line, line + 1, len(lines[line])
    announces = sentence.rstrip().endswith(":") or lines[line].rstrip().endswith(":")
    budget = int(limit * ANNOUNCED_SHARE) if announces else limit
    while True:
        grown = False
        if end < len(lines) and size + len(lines[end]) <= budget:
            size += len(lines[end]) + 1
            end += 1
            grown = True
        if not announces and start > 0 and size + len(lines[start - 1]) <= budget:
            start -= 1
            size += len(lines[start]) + 1
            grown = True
        if not grown:
            break
    return start, end, "\n".join(x.strip() for x in lines[start:end] if x.strip())


def candidate_windows(
    hits: Sequence[RetrievedParent], question: str, language: str, extra_terms: Sequence[str], limit: int, count: int
) -> list[Window]:
    """At most `count` windows, best first (see the module docstring)."""
    every = [c for c in candidates(hits, question, language, extra_terms) if c.relevance > 0]
    if not every:
        return []
    ranked = sorted(every, key=lambda c: (-c.relevance, c.parent, c.order))
    first = next((c for c in ranked if c.parent == 0), None)  # the search's own first choice is always judged
    lines = {p: parent_lines(hits[p]) for p in {c.parent for c in every}}
    taken: list[tuple[Candidate, int, int, str]] = []
    for c in [first, *ranked] if first is not None else ranked:
        if len(taken) >= count:
            break
        if not 0 <= c.line < len(lines[c.parent]) or any(
            o.parent == c.parent and s <= c.line < e for o, s, e, _ in taken
        ):
            continue
        start, end, text = window(lines[c.parent], c.line, c.text, limit)
        if text:
            taken.append((c, start, end, text))
    taken.sort(key=lambda t: (-t[0].relevance, t[0].parent, t[0].order))
    return [Window(c.parent, s, e, c.line, c.text, text, c.relevance, i) for i, (c, s, e, text) in enumerate(taken)]
