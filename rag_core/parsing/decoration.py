"""Pictures that are page decoration: a strip along the page's edge, repeated across pages.

A picture is decoration when it touches an edge of its page (within EDGE_SHARE of the page's
side), is a strip (its short side at most STRIP_SHARE of the page's side across it, and
MIN_STRIP_RATIO times shorter than its long side), and the same box (within SAME_BOX_PT)
comes back on at least MIN_REPEATS pages. Such pictures are dropped: a reader does not see
them as figures, and they hold no text. Logos and figures repeated in the body are kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rag_core.parsing.document_builder import Block, PageSize

EDGE_SHARE = 0.02
STRIP_SHARE = 0.12
MIN_STRIP_RATIO = 4.0
SAME_BOX_PT = 2.0
MIN_REPEATS = 2


def drop_decoration(blocks: Sequence[Block], sizes: dict[int, PageSize]) -> list[Block]:
    """`blocks` without the decoration strips (see the module's docstring)."""
    strips = [
        b
        for b in blocks
        if b.kind == "picture"
        and not b.children
        and not b.captions
        and b.page_no in sizes
        and _edge_strip(b.bbox, sizes[b.page_no])
    ]
    if not strips:
        return list(blocks)
    seen = Counter(_key(b.bbox) for b in strips)
    repeated = {key for key in seen if _pages_with(strips, key) >= MIN_REPEATS}
    drop = {id(b) for b in strips if _key(b.bbox) in repeated}
    return [b for b in blocks if id(b) not in drop]


def _edge_strip(bbox, size: PageSize) -> bool:
    x0, y0, x1, y1 = bbox
    w, h = x1 - x0, y1 - y0
    if w <= 0 or h <= 0:
        return False
    vertical = (
        h >= MIN_STRIP_RATIO * w
        and w <= STRIP_SHARE * size.width
        and (x0 <= EDGE_SHARE * size.width or x1 >= (1 - EDGE_SHARE) * size.width)
    )
    horizontal = (
        w >= MIN_STRIP_RATIO * h
        and h <= STRIP_SHARE * size.height
        and (y0 <= EDGE_SHARE * size.height or y1 >= (1 - EDGE_SHARE) * size.height)
    )
    return vertical or horizontal


def _key(bbox) -> tuple[int, ...]:
    return tuple(int(round(v / SAME_BOX_PT)) for v in bbox)


def _pages_with(strips: Sequence[Block], key: tuple[int, ...]) -> int:
    return len({b.page_no for b in strips if _key(b.bbox) == key})
