"""The text layer of a PDF page read as lines (`layout_text.Line`): inside a box, or the whole page.

What the layout analysis's own boxes do not give: the lines of a formula or of a table without a grid,
the lines under a picture box, and every line of a page for the outline's headings.
"""

from __future__ import annotations

import pymupdf

from rag_core.parsing.layout_text import Line, clamp_bbox, line_from_spans


def lines_in_rect(page: pymupdf.Page, bbox, width: float, height: float) -> list[Line]:
    """Text-layer lines inside a box (formulas, tables without a grid)."""
    return [line for blk in line_blocks_in_rect(page, bbox, width, height) for line in blk]


def page_lines(doc: pymupdf.Document, page_no: int) -> list[Line]:
    """All text-layer lines of a page (1-based; none past the last page)."""
    if not 1 <= page_no <= doc.page_count:
        return []
    page = doc[page_no - 1]
    width, height = page.rect.width, page.rect.height
    return lines_in_rect(page, page.rect, width, height)


# ligatures ("ﬂ", "ﬁ") written as their letters, as the layout's own text lines have them
TEXT_FLAGS = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_LIGATURES


def line_blocks_in_rect(page: pymupdf.Page, bbox, width: float, height: float) -> list[list[Line]]:
    """Text-layer lines inside a box, grouped by text-layer block."""
    found: list[list[Line]] = []
    for blk in page.get_text("dict", clip=pymupdf.Rect(bbox), flags=TEXT_FLAGS)["blocks"]:
        lines = [
            line_from_spans(line.get("spans", []), clamp_bbox(line["bbox"], width, height))
            for line in blk.get("lines", [])
        ]
        if any(ln.text for ln in lines):
            found.append([ln for ln in lines if ln.text])
    return found
