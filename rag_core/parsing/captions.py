"""Captions and false headings of one page's layout blocks (PyMuPDF backend).

The layout model sometimes calls a caption a heading ("Table 0, Part A. Cumulative Paid
Loss Amounts") or plain text ("Figure 2.2 – Facteurs de développement"), and calls a body
sentence that starts with "Table 3-2 lists ..." a caption. Here:

- a block whose first line reads as a caption label ("Table N", "Tableau N", "Figure N",
  "Figure N.M –", "Fig. N", "Exhibit N", "Graphique N", "Table: ...") becomes a caption;
  a label followed by a lower-case verb ("Table 3-2 lists ...") is a sentence, never a caption;
- captions go to the nearest table or picture above or below (`attach_captions`); a listing's
  or an example's caption ("Listing 1", "Example 2-1") goes to no table or picture.

False headings of other kinds are corrected afterwards (`heading_blocks.fix_headings`).
"""

from __future__ import annotations

import re

from rag_core.parsing.document_builder import Block

CAPTION_GAP_PT = 60.0  # further away is not this figure's caption
# "[표 1]", "<Table 2>": a label may stand in brackets (Korean reports); 표/그림/表/图/図 = table/figure
_LABEL = (
    r"(?:[\[<〈(]?(?:table|tableau|figure|fig\.|exhibit|graphique|graph|chart|listing|example|exemple|algorithm|code"
    r"|표|그림|表|图|図))"
)
_NUMBER = r"(?:[A-Z]?\d+|[IVX]+)(?:[.\-–]\d+)*[\]>〉)]?"
_CAPTION = re.compile(rf"^{_LABEL}\s*(?::|{_NUMBER}(?:\s*[:.,–—\-]|\s*$|\s+(?!(?-i:[a-zà-ÿ]))))", re.IGNORECASE)
_SENTENCE_AFTER_LABEL = re.compile(rf"^{_LABEL}\s*{_NUMBER}\s+(?-i:[a-zà-ÿ])", re.IGNORECASE)
_NOT_FLOAT = re.compile(r"^(?:listing|example|exemple|algorithm|code)\b", re.IGNORECASE)


def is_caption_text(text: str) -> bool:
    """A caption label at the start of `text`, not a sentence that mentions a table or figure."""
    text = text.strip()
    if not text or _SENTENCE_AFTER_LABEL.match(text):
        return False
    return bool(_CAPTION.match(text))


def relabel(blocks: list[Block]) -> list[Block]:
    """Captions found among headings and text, sentences removed from captions."""
    floats = [b for b in blocks if b.kind in ("table", "picture")]
    for block in blocks:
        first = block.lines[0].text if block.lines else ""
        if (
            block.kind in ("heading", "title", "text")
            and is_caption_text(first)
            and (block.kind != "text" or any(_gap(block, f) <= CAPTION_GAP_PT for f in floats))
        ):
            block.kind = "caption"
        elif block.kind == "caption" and not is_caption_text(first) and _SENTENCE_AFTER_LABEL.match(first):
            block.kind = "text"
    return blocks


def attach_captions(blocks: list[Block]) -> list[Block]:
    """Give each caption to the nearest table or picture just above or below it."""
    targets = [b for b in blocks if b.kind in ("table", "picture")]
    kept: list[Block] = []
    for block in blocks:
        target = _caption_target(block, targets) if block.kind == "caption" else None
        if target is None:
            kept.append(block)
        else:
            target.captions.append(block)
    return kept


def _gap(a: Block, b: Block) -> float:
    overlap = min(a.bbox[2], b.bbox[2]) - max(a.bbox[0], b.bbox[0])
    if overlap <= 0:
        return float("inf")
    return max(a.bbox[1] - b.bbox[3], b.bbox[1] - a.bbox[3], 0.0)


def _caption_target(caption: Block, targets: list[Block]) -> Block | None:
    text = caption.lines[0].text.lower() if caption.lines else ""
    if _NOT_FLOAT.match(text):
        return None
    best, best_cost = None, CAPTION_GAP_PT
    for target in targets:
        gap = _gap(caption, target)
        pictured = target.kind == "picture" or target.picture is not None  # a table read from a picture
        if not pictured and text.startswith(("fig", "graph")) or target.kind == "picture" and text.startswith("tab"):
            gap += 30.0
        if gap < best_cost:
            best, best_cost = target, gap
    return best
