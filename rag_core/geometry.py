"""Boxes and coordinate origins: the one place where PDF coordinates are converted.

Docling provenance boxes are in PDF points, usually with a bottom-left origin
(`coord_origin`); browser viewers draw from the top-left. Every box the product stores or
draws goes through `to_top_left` once, then `clamp` keeps it inside its page. This module
knows nothing of documents, chunks or citations.
"""

from __future__ import annotations

from rag_core.models import HighlightBox


def to_top_left(
    page: int, left: float, top: float, right: float, bottom: float, origin: str, page_height: float
) -> HighlightBox:
    """Box in PDF points with a top-left origin. `origin` is Docling's `coord_origin` value."""
    if str(origin).upper().endswith("BOTTOMLEFT"):
        y0, y1 = page_height - top, page_height - bottom
    else:
        y0, y1 = top, bottom
    y0, y1 = min(y0, y1), max(y0, y1)
    return HighlightBox(page=page, x0=min(left, right), y0=y0, x1=max(left, right), y1=y1)


def clamp(box: HighlightBox, width: float, height: float) -> HighlightBox:
    """Keep the box inside its page and at least half a point wide and high."""
    x0, x1 = max(0.0, min(box.x0, width)), max(0.0, min(box.x1, width))
    y0, y1 = max(0.0, min(box.y0, height)), max(0.0, min(box.y1, height))
    if x1 - x0 < 0.5:
        x0 = max(0.0, min(x0, width - 0.5))
        x1 = min(width, x0 + 0.5)
    if y1 - y0 < 0.5:
        y0 = max(0.0, min(y0, height - 0.5))
        y1 = min(height, y0 + 0.5)
    return HighlightBox(page=box.page, x0=x0, y0=y0, x1=x1, y1=y1, start=box.start, end=box.end)
