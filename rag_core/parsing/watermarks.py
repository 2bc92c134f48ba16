"""Watermarks (a slanted "DRAFT" across the page) and the picture boxes they stretch.

A watermark is a text line written at a slant (neither horizontal nor vertical: its direction
has both components above SLANT) in a font at least SIZE_RATIO times the page's body size
(the size of most of its characters). A rotated axis label is small; a watermark is huge.
Its text is not the document's: it is never kept as text.

The layout model takes the watermark's glyphs for part of a figure and stretches the figure's
box over them, down over the headings and paragraphs below it (the ChainLadder vignette's
plots reached 200 points below their drawing). A picture box that a watermark overlaps is cut
back to what the figure draws: the union of its images and drawings, and the text lines that
reach within LABEL_MARGIN_PT of it (axis titles, a legend); the lines left out are the page's text.

A formula box gets stretched the same way (the vignette's equations (6)-(9) reached over a whole
page, its "3.3.1 The "triangles" class" heading and code inside): a formula box that a watermark
overlaps ends where the first paragraph of prose begins (a text-layer block of two lines or more,
PROSE_WORDS words or more, mostly letters); the blocks from there on are the page's text again,
less the lines another layout box already holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pymupdf

from rag_core.parsing.document_builder import Block
from rag_core.parsing.layout_text import BBox, Line, union_bbox

SLANT = 0.2  # a direction with both components above this is slanted (about 11 degrees or more)
SIZE_RATIO = 3.0  # a watermark's font is at least this many times the body's
LABEL_MARGIN_PT = 48.0  # text this close to a figure's drawing is the figure's (axis titles, legends)
MIN_INSIDE = 0.5  # share of a drawing inside the picture box for it to be the figure's
SAME_BOX_PT = 3.0
PROSE_WORDS = 12  # a text-layer block of this many words, mostly letters, is prose, not a formula
PROSE_LETTERS = 0.7


def watermark_boxes(page: pymupdf.Page, text_blocks: Sequence[dict] | None = None) -> list[BBox]:
    """Boxes of the page's watermark lines (see the module's docstring).

    `text_blocks`: the page's text blocks as the layout analysis already read them (its
    `PageLayout.fulltext`, other extraction flags: other line boxes, the same characters at the
    same slant). A page none of whose lines is slanted there has no watermark, and its text
    layer is not read again (a text page and its dict per page, ~1 % of a text page's parse)."""
    if text_blocks is not None and not any(_slanted(line) for block in text_blocks for line in block.get("lines", ())):
        return []
    sizes: Counter[float] = Counter()
    slanted: list[tuple[BBox, float]] = []
    for block in page.get_text("dict")["blocks"]:
        for line in block.get("lines", []):
            spans = [s for s in line.get("spans", []) if s.get("text", "").strip()]
            if not spans:
                continue
            size = max(float(s.get("size") or 0.0) for s in spans)
            if _slanted(line):
                slanted.append((tuple(line["bbox"]), size))
            else:
                for span in spans:
                    sizes[round(float(span.get("size") or 0.0) * 2) / 2] += len(span["text"].strip())
    if not slanted:
        return []
    body = sizes.most_common(1)[0][0] if sizes else 0.0
    return [bbox for bbox, size in slanted if body and size >= SIZE_RATIO * body]


def _slanted(line: dict) -> bool:
    dx, dy = line.get("dir", (1.0, 0.0))
    return abs(dx) > SLANT and abs(dy) > SLANT


def is_watermark(line: Line, watermarks: Sequence[BBox]) -> bool:
    return any(all(abs(a - b) <= SAME_BOX_PT for a, b in zip(line.bbox, box)) for box in watermarks)


def overlaps(bbox: BBox, watermarks: Sequence[BBox]) -> bool:
    box = pymupdf.Rect(bbox)
    return any(not (pymupdf.Rect(w) & box).is_empty for w in watermarks)


def figure_box(bbox: BBox, graphics: Sequence[tuple[pymupdf.Rect, str]], lines: Sequence[Line]) -> BBox:
    """The part of a picture box its figure draws: its images and drawings, and the text lines
    within LABEL_MARGIN_PT of them, inside the box; the box itself when nothing is drawn in it."""
    box = pymupdf.Rect(bbox)
    drawn = [rect & box for rect, _ in graphics if not rect.is_empty and abs(rect & box) >= MIN_INSIDE * abs(rect)]
    if not drawn:
        return bbox
    union = pymupdf.Rect(drawn[0])
    for rect in drawn[1:]:
        union |= rect
    near = pymupdf.Rect(union.x0, union.y0, union.x1, union.y1)
    near.x0, near.y0 = near.x0 - LABEL_MARGIN_PT, near.y0 - LABEL_MARGIN_PT
    near.x1, near.y1 = near.x1 + LABEL_MARGIN_PT, near.y1 + LABEL_MARGIN_PT
    figure = pymupdf.Rect(union)
    for line in lines:
        rect = pymupdf.Rect(line.bbox)
        if rect.intersects(near):
            figure |= rect
    figure &= box
    return (figure.x0, figure.y0, figure.x1, figure.y1)


def without_watermarks(line_blocks: list[list[Line]], watermarks: Sequence[BBox]) -> list[list[Line]]:
    """The line blocks without their watermark lines (empty blocks dropped)."""
    if not watermarks:
        return line_blocks
    kept = [[ln for ln in blk if not is_watermark(ln, watermarks)] for blk in line_blocks]
    return [blk for blk in kept if blk]


def cut_picture(
    bbox: BBox, graphics: Sequence[tuple[pymupdf.Rect, str]], line_blocks: list[list[Line]], watermarks: Sequence[BBox]
) -> tuple[BBox, list[list[Line]], list[list[Line]], list[list[Line]]]:
    """(the picture's box, its line blocks, the line blocks above it, those below it): the box cut
    back to its figure when a watermark overlaps it, the lines it no longer holds set apart."""
    line_blocks = without_watermarks(line_blocks, watermarks)
    if not watermarks or not overlaps(bbox, watermarks):
        return bbox, line_blocks, [], []
    figure = figure_box(bbox, graphics, [ln for blk in line_blocks for ln in blk])
    rect = pymupdf.Rect(figure)
    inside: list[list[Line]] = []
    above: list[list[Line]] = []
    below: list[list[Line]] = []
    for blk in line_blocks:
        held = [ln for ln in blk if pymupdf.Rect(ln.bbox) in rect or _middle(ln.bbox) in rect]
        free = [ln for ln in blk if ln not in held]
        if held:
            inside.append(held)
        if free:
            (above if free[0].bbox[1] < rect.y0 else below).append(free)
    return figure, inside, above, below


def _middle(bbox: BBox) -> pymupdf.Point:
    return pymupdf.Point((bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2)


def formula_blocks(
    page_no: int, bbox: BBox, line_blocks: list[list[Line]], watermarks: Sequence[BBox], others: Sequence[BBox]
) -> list[Block]:
    """A formula box's block, and when a watermark stretched it, the text blocks below the formula
    it swallowed (see the module's docstring); `others`: the page's other layout boxes."""
    line_blocks = without_watermarks(line_blocks, watermarks)
    cut = next((i for i, blk in enumerate(line_blocks) if i and _prose(blk)), None)
    if not watermarks or not overlaps(bbox, watermarks) or cut is None:
        return [Block("formula", page_no, bbox, lines=[ln for blk in line_blocks for ln in blk])]
    head = [ln for blk in line_blocks[:cut] for ln in blk]
    out = [Block("formula", page_no, union_bbox(ln.bbox for ln in head) or bbox, lines=head)]
    for blk in line_blocks[cut:]:
        free = [ln for ln in blk if not any(_middle(ln.bbox) in pymupdf.Rect(o) for o in others)]
        if free:
            out.append(Block("text", page_no, union_bbox(ln.bbox for ln in free) or bbox, lines=free))
    return out


def _prose(lines: list[Line]) -> bool:
    text = " ".join(line.text for line in lines)
    chars = text.replace(" ", "")
    letters = sum(ch.isalpha() for ch in chars)
    return len(lines) >= 2 and len(text.split()) >= PROSE_WORDS and letters >= PROSE_LETTERS * len(chars)
