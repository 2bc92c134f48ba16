"""Coordinates and readable labels for citations.

Docling provenance boxes are in PDF points, usually with a bottom-left origin; browser
viewers draw from the top-left. The conversion happens here and nowhere else.
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
