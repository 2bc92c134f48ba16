"""Headings the PDF itself declares: its outline (bookmarks) and labelled numbering.

The layout model misses headings printed in the body's size (EIOPA's "Guideline 12 – ..." in
italics), merges a heading into its paragraph, or takes a formula's "where" for one. Two
signals the PDF gives are trusted above the model:

- the outline (`get_toc`): each entry's title is looked for, line by line, on the page it
  points at (then the page after it: some outlines point at the page before); the lines that
  spell it become a heading block of their own, split from the block that held them;
- a labelled number at the start of a block ("Guideline 12 – Data quality", "Article 5",
  "Article L. 123-4", "Orientation 3", "Chapitre 2", "Annex I"): that line (and its
  continuation lines, while the title has not ended) is a heading, whatever its size.

And one rule the other way: a "heading" that opens with a word that continues a sentence or a
formula ("where", "with", "so that", "où", "avec") is text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_core.parsing.document_builder import Block
from rag_core.parsing.layout_text import fold_key, union_bbox

MAX_LINES = 3  # an outline title or a labelled heading spans at most this many lines
MAX_LABELLED_WORDS = 25
_HEADING_KINDS = ("heading", "title")
_SEARCHED_KINDS = ("heading", "title", "text", "list", "caption")
_LABEL = r"Guidelines?|Article|Articles|Orientation|Section|Chapter|Chapitre|Annex|Annexe|Appendix|Part|Partie|Titre"
# "Guideline 24B – ...", "Article L. 123-4", "Annex IV", "Chapitre 2 :"
# (a reference, "Article 5 of", has no separator after its number: not a heading)
LABELLED = re.compile(
    rf"^(?:{_LABEL})\s+(?:[LRD]\.?\s?)?(?:\d{{1,4}}(?:[-.]\d{{1,4}})*[A-Z]?|[IVXLC]{{1,6}})\b\.?(?P<rest>.*)$"
)
_TITLE_SEP = re.compile(r"^\s*(?:[–—:\-.]\s*\S|$)")
_CONTINUATION = re.compile(r"^(?:where|with|so that|such that|and|or|then|hence|thus|i\.e\.|où|avec|soit|donc|et|ou)\b")
_LEAD_IN = re.compile(r"^(?:where|with|so that|such that|où|avec|soit)\b", re.IGNORECASE)
_LEADING_NUMBER = re.compile(r"^\s*(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.|[A-Z]\.)\s+")


def continues_sentence(text: str) -> bool:
    """A line that carries on the sentence or formula above it ("where", "with", "so that"), or
    leads into what follows ("Where", "With respect to premium provisions:")."""
    text = text.strip()
    if _CONTINUATION.match(text):
        return True
    return bool(_LEAD_IN.match(text)) and (len(text.split()) <= 2 or text.endswith(":"))


def labelled_heading(text: str) -> bool:
    """A line that opens a labelled unit: "Guideline 12 – Data quality", "Article L. 123-4"."""
    match = LABELLED.match(text.strip())
    return match is not None and bool(_TITLE_SEP.match(match.group("rest")))


def apply_outline(blocks: Sequence[Block], toc: Sequence[Sequence]) -> list[Block]:
    """The blocks with every outline entry found on its page, and every labelled line, a heading."""
    out = [b for block in blocks for b in _labelled_split(block)]
    for entry in toc:
        if len(entry) < 3 or not str(entry[1]).strip():
            continue
        title, page = str(entry[1]), int(entry[2])
        for candidate in (page, page + 1):
            if _mark(out, title, candidate):
                break
    for block in out:
        if block.kind == "heading" and continues_sentence(" ".join(line.text for line in block.lines)):
            block.kind = "text"
    return out


def _keys(text: str) -> set[str]:
    """The title's loose keys: as printed, and without its leading number ("2.3 ", "IV.")."""
    keys = {fold_key(text), fold_key(_LEADING_NUMBER.sub("", text))}
    return {k for k in keys if len(k) >= 2}


def _mark(blocks: list[Block], title: str, page: int) -> bool:
    """Make the lines spelling `title` on `page` a heading block; False when not found there."""
    targets = _keys(title)
    if not targets:
        return False
    for index, block in enumerate(blocks):
        if block.page_no != page or block.kind not in _SEARCHED_KINDS:
            continue
        for start in range(len(block.lines)):
            end = _spelled(block, start, targets)
            if end is not None:
                # a block the layout already took for a heading stays whole (its number may stand alone)
                if block.kind not in _HEADING_KINDS:
                    blocks[index : index + 1] = _split(block, start, end)
                return True
    return False


def _spelled(block: Block, start: int, targets: set[str]) -> int | None:
    """The end (exclusive) of the lines from `start` whose text is one of `targets`."""
    text = ""
    for end in range(start, min(start + MAX_LINES, len(block.lines))):
        text = f"{text} {block.lines[end].text}"
        keys = _keys(text)
        if keys & targets:
            return end + 1
        if keys and not any(t.startswith(k) for t in targets for k in keys):
            return None  # (a section number alone on its line has no key yet: read on)
    return None


def _split(block: Block, start: int, end: int) -> list[Block]:
    """[lines before, the heading, lines after], each part that has lines."""
    if block.kind in _HEADING_KINDS and (start, end) == (0, len(block.lines)):
        return [block]
    kind = "text" if block.kind in _HEADING_KINDS else block.kind
    parts = [(kind, block.lines[:start]), ("heading", block.lines[start:end]), (kind, block.lines[end:])]
    return [
        Block(part_kind, block.page_no, union_bbox(line.bbox for line in lines) or block.bbox, lines=lines)
        for part_kind, lines in parts
        if lines
    ]


def _labelled_split(block: Block) -> list[Block]:
    """A block that opens with a labelled heading line: [heading, rest]. The heading takes the
    lines after the first while the title has not ended (no full stop, same size, few words)."""
    if block.kind not in _SEARCHED_KINDS or not block.lines or not labelled_heading(block.lines[0].text):
        return [block]
    end, words = 1, len(block.lines[0].text.split())
    first_size = block.lines[0].size
    while end < min(len(block.lines), MAX_LINES) and not block.lines[end - 1].text.rstrip().endswith((".", ":", ";")):
        line = block.lines[end]
        words += len(line.text.split())
        if abs(line.size - first_size) > 0.25 or words > MAX_LABELLED_WORDS or not line.text[:1].islower():
            break
        end += 1
    if len(" ".join(line.text for line in block.lines[:end]).split()) > MAX_LABELLED_WORDS:
        return [block]
    return _split(block, 0, end)
