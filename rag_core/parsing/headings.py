"""Heading levels for the PyMuPDF backend: table of contents, then numbering, then font size.

The layout model only says "section-header"; the level comes from, in order of trust:
the PDF's outline (bookmarks) when it covers at least half of the headings, the
labelled units ("Guideline 12", "Article 5": `unit_levels`) when there are MIN_NUMBERED
of them, the numbering ("2.3.1 ..." is level 3) when at least half of the headings or MIN_NUMBERED of them
are numbered, and otherwise the rank of the heading's font size among heading font sizes
(pymupdf4llm's own rule). Under numbering, an unnumbered heading at least as large as the
numbered level-1 headings, or larger than every numbered sub-section heading ("Preface" in a
report whose chapters read "1 Securing ..." and sections "1.1 ..."), is level 1, and another is
one level below the heading before it that has a level from its number or size.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.parsing.layout_text import fold_key

MIN_NUMBERED = 3  # this many numbered headings give every numbered heading its level, even if a minority
SIZE_STEP = 0.5  # points: a heading this much larger than every numbered one is above them
MAX_FONT_LEVELS = 6  # pymupdf4llm's update_header_tags keeps the 6 largest heading sizes
_UNIT = re.compile(r"^(?:Guidelines?|Article|Orientation|Recommendation|Recommandation)\s+(?:[LRD]\.?\s?)?\d")
_CONTAINER = re.compile(
    r"^(?:Technical\s+)?(?:Section|Chapter|Chapitre|Part|Partie|Titre|Title|Annex|Annexe|Appendix)\s+(?:\d|[IVXLC]+\b)"
)
_NUMBERED = re.compile(r"^(?:(\d{1,2}(?:\.\d{1,2})*)\.?|((?:[IVX]+|[A-Z])(?:\.\d{1,2})*)[.)])\s+\S")


@dataclass(frozen=True)
class HeadingInfo:
    text: str
    page_no: int
    font_size: float


def assign_levels(headings: Sequence[HeadingInfo], toc: Sequence[Sequence]) -> list[int]:
    """One level (1..100) per heading, in document order."""
    if not headings:
        return []
    font_levels = _font_levels(headings)
    primary = _toc_levels(headings, toc)
    if sum(lvl is not None for lvl in primary) * 2 < len(headings):
        if sum(_UNIT.match(h.text) is not None for h in headings) >= MIN_NUMBERED:
            return unit_levels(headings)
        primary = [numbering_depth(h.text) for h in headings]
        numbered = sum(lvl is not None for lvl in primary)
        if numbered < MIN_NUMBERED and numbered * 2 < len(headings):
            return font_levels
    top_sizes = [h.font_size for h, lvl in zip(headings, primary) if lvl == 1]
    top_size = min(top_sizes) if top_sizes else None
    sub_sizes = [h.font_size for h, lvl in zip(headings, primary) if lvl is not None and lvl > 1]
    if sub_sizes:  # larger than every numbered sub-section ("1.1"): a chapter ("Preface" beside "1 Securing")
        top_size = min(top_size or math.inf, max(sub_sizes) + SIZE_STEP)
    if top_size is None:
        top_size = max(h.font_size for h, lvl in zip(headings, primary) if lvl is not None) + SIZE_STEP
    levels: list[int] = []
    anchor = 0
    for heading, lvl, font_lvl in zip(headings, primary, font_levels):
        if lvl is not None:
            anchor = lvl
        elif top_size is not None and heading.font_size >= top_size:
            lvl = anchor = 1
        else:
            lvl = anchor + 1 if anchor else font_lvl
        levels.append(max(1, min(lvl, 100)))
    return levels


def labelled_unit(text: str) -> bool:
    """A line that names a unit of a labelled text ("Guideline 12", "Article 5"), not its container."""
    return _UNIT.match(text.strip()) is not None


def unit_levels(headings: Sequence[HeadingInfo]) -> list[int]:
    """Levels of a text made of labelled units (guidelines, articles): a container ("Section 2",
    "Chapter", "Annex", "Titre") is level 1, another heading is level 2 under a container (else
    1), and a unit is one level below the last heading that is not a unit, so that each unit is
    a section of its own inside its topic."""
    levels: list[int] = []
    seen_container, topic = False, 0
    for heading in headings:
        text = heading.text.strip()
        if _UNIT.match(text):
            levels.append(topic + 1)
            continue
        if _CONTAINER.match(text):
            seen_container, topic = True, 1
        else:
            topic = 2 if seen_container else 1
        levels.append(topic)
    return levels


def _font_levels(headings: Sequence[HeadingInfo]) -> list[int]:
    sizes = sorted({round(h.font_size) for h in headings}, reverse=True)[:MAX_FONT_LEVELS]
    return [sizes.index(round(h.font_size)) + 1 if round(h.font_size) in sizes else MAX_FONT_LEVELS for h in headings]


def _toc_levels(headings: Sequence[HeadingInfo], toc: Sequence[Sequence]) -> list[int | None]:
    entries = [(int(e[0]), fold_key(str(e[1])), int(e[2])) for e in toc if len(e) >= 3 and str(e[1]).strip()]
    levels: list[int | None] = []
    for heading in headings:
        key = fold_key(heading.text)
        found = None
        if len(key) >= 2:
            for level, toc_key, page in entries:
                if abs(page - heading.page_no) > 1 or not toc_key:
                    continue
                if key == toc_key or (
                    min(len(key), len(toc_key)) >= 6 and (key.startswith(toc_key) or toc_key.startswith(key))
                ):
                    found = level
                    break
        levels.append(found)
    return levels


def numbering_depth(text: str) -> int | None:
    match = _NUMBERED.match(text.strip())
    if not match:
        return None
    return (match.group(1) or match.group(2)).count(".") + 1


_LABEL = r"Guidelines?|Article|Articles|Orientation|Section|Chapter|Chapitre|Annex|Annexe|Appendix|Part|Partie|Titre"
# "Guideline 24B – ...", "Article L. 123-4", "Annex IV", "Chapitre 2 :"
# (a reference, "Article 5 of", has no separator after its number: not a heading)
LABELLED = re.compile(
    rf"^(?:{_LABEL})\s+(?:[LRD]\.?\s?)?(?:\d{{1,4}}(?:[-.]\d{{1,4}})*[A-Z]?|[IVXLC]{{1,6}})\b\.?(?P<rest>.*)$"
)
_TITLE_SEP = re.compile(r"^\s*(?:[–—:\-.]\s*\S|$)")


def labelled_heading(text: str) -> bool:
    """A line that opens a labelled unit: "Guideline 12 – Data quality", "Article L. 123-4"."""
    match = LABELLED.match(text.strip())
    return match is not None and bool(_TITLE_SEP.match(match.group("rest")))
