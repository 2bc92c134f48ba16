"""Two pages printed side by side on one sheet (a landscape scan of an open booklet): left, then right.

A page is read as a spread when it is wide (width at least MIN_WIDE_RATIO times its height),
an empty vertical band (the gutter, at least MIN_GUTTER_PT wide, its middle between
GUTTER_ZONE of the width) crosses it from top to bottom without touching any text line,
table or picture, and each side holds at least MIN_SIDE_SHARE of the page's characters.
The blocks of the left side then come first, then those of the right side, each side in
the layout model's order; a block whose lines lie on both sides is cut in two at the gutter.

It does not find a spread whose halves are joined by a box across the gutter (a title over
both pages): such a page is read as the layout model orders it.
"""

from __future__ import annotations

from dataclasses import replace

from rag_core.parsing.document_builder import Block
from rag_core.parsing.layout_text import BBox, Line, union_bbox

MIN_WIDE_RATIO = 1.2
MIN_GUTTER_PT = 8.0
GUTTER_ZONE = (0.35, 0.65)
MIN_SIDE_SHARE = 0.2


def read_spread(blocks: list[Block], width: float, height: float) -> list[Block]:
    """The blocks in spread order (left page, right page), or unchanged when the page is no spread."""
    if width < MIN_WIDE_RATIO * height or not blocks:
        return blocks
    gutter = find_gutter(_extents(blocks), width)
    if gutter is None:
        return blocks
    chars = [0, 0]
    for block in blocks:
        for line in block.lines:
            chars[_side(line.bbox, gutter)] += len(line.text)
    total = sum(chars)
    if total == 0 or min(chars) < MIN_SIDE_SHARE * total:
        return blocks
    sides: tuple[list[Block], list[Block]] = ([], [])
    for block in blocks:
        by_side = (
            [ln for ln in block.lines if _side(ln.bbox, gutter) == 0],
            [ln for ln in block.lines if _side(ln.bbox, gutter) == 1],
        )
        if by_side[0] and by_side[1]:
            for side in (0, 1):
                sides[side].append(_part(block, by_side[side]))
        else:
            sides[_side(block.bbox, gutter)].append(block)
    return sides[0] + sides[1]


def find_gutter(extents: list[tuple[float, float]], width: float) -> float | None:
    """The middle of the widest empty band between `extents` (x0, x1) in GUTTER_ZONE, if any."""
    lo, hi = GUTTER_ZONE[0] * width, GUTTER_ZONE[1] * width
    best: tuple[float, float] | None = None
    reach = float("-inf")  # right end of what is covered so far
    for x0, x1 in sorted(extents):
        if reach > float("-inf") and x0 - reach >= MIN_GUTTER_PT and lo <= (x0 + reach) / 2 <= hi:
            if best is None or x0 - reach > best[1] - best[0]:
                best = (reach, x0)
        reach = max(reach, x1)
    return None if best is None else (best[0] + best[1]) / 2


def _extents(blocks: list[Block]) -> list[tuple[float, float]]:
    found: list[tuple[float, float]] = []
    for block in blocks:
        if block.lines and block.kind not in ("table", "picture"):
            found.extend((ln.bbox[0], ln.bbox[2]) for ln in block.lines)
        else:
            found.append((block.bbox[0], block.bbox[2]))
    return found


def _side(bbox: BBox, gutter: float) -> int:
    return 0 if (bbox[0] + bbox[2]) / 2 < gutter else 1


def _part(block: Block, lines: list[Line]) -> Block:
    return replace(block, bbox=union_bbox(ln.bbox for ln in lines) or block.bbox, lines=lines)
