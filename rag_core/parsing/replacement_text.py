"""Text a PDF gives in place of images: a heading set as pictures of its lines, with its words as the
images' replacement text (a tagged PDF's ActualText).

PyMuPDF's plain-text extraction returns that text as a block of no width at the images' left edge, and
its "dict" extraction (what the rest of the parser reads) as an empty block: without this module the
words are lost and the images become pictures. Here each such block becomes a text block over the images
it stands for (their union; the images are then no pictures), its one line sized from the images'
height, so that the page's heading rules judge it like printed text ("Sharp divides in German and
American views of security issues", the chapter headings of a survey report).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pymupdf

from rag_core.parsing.document_builder import Block
from rag_core.parsing.layout_text import Line, clamp_bbox, union_bbox
from rag_core.parsing.unicode_text import clean_text

MAX_WIDTH_PT = 1.0  # a text block narrower than this holds no printed glyph: replacement text
EDGE_PT = 3.0  # an image it stands for starts within this distance of its left edge
LINE_HEIGHT_RATIO = 1.2  # an image of one line of text is about this many times the font size tall
SAME_HEIGHT = 0.2  # the images of one text's lines differ in height by at most this share
STACK_GAP = 0.5  # and each starts within this share of a line's height below the one above it
MAX_PAGE_SHARE = 0.5  # an image this large (a scanned page) is no image of a line of text
_WORD = re.compile(r"[^\W\d_]{2,}")  # a replacement text holds a word, not a stray glyph of a text layer


Placed = tuple[tuple[float, float, float, float], str]  # a replacement text: its block of no width, its words


def replacement_texts(page: pymupdf.Page) -> list[Placed]:
    """The replacement texts of a page's images, read before the layout analysis (which rewrites the
    page and loses them); none, and no text read, on a page that draws no image."""
    if not page.get_images(full=False):
        return []
    found: list[Placed] = []
    for x0, y0, x1, y1, text, _no, kind in page.get_text("blocks"):
        text = " ".join(clean_text(text).split())
        if kind == 0 and text and x1 - x0 < MAX_WIDTH_PT and y1 > y0:
            found.append(((x0, y0, x1, y1), text))
    return found


def _line_images(x0: float, y0: float, y1: float, images: Sequence[pymupdf.Rect]) -> list[pymupdf.Rect]:
    """The images of the lines a replacement text stands for: those at its left edge that overlap its
    height, then the images stacked right below them at the same left edge and of the same line height
    (the height PyMuPDF gives the text does not always reach its last lines)."""
    lines = [
        r
        for r in images
        if r.height > 0 and abs(r.x0 - x0) <= EDGE_PT and min(r.y1, y1) - max(r.y0, y0) >= 0.5 * r.height
    ]
    if not lines:
        return []
    line_height = sum(r.height for r in lines) / len(lines)
    while True:
        bottom = max(r.y1 for r in lines)
        below = [
            r
            for r in images
            if r not in lines
            and abs(r.x0 - x0) <= EDGE_PT
            and abs(r.height - line_height) <= SAME_HEIGHT * line_height
            and abs(r.y0 - bottom) <= STACK_GAP * line_height
        ]
        if not below:
            return lines
        lines.extend(below)


def read_replacement_texts(doc: pymupdf.Document, pages: Sequence[int]) -> dict[int, list[Placed]]:
    """The replacement texts of the images of `pages` (0-based), read from a handle of their own: once a
    layout analysis ran on `doc` (an earlier batch in this process) its pages no longer give them. A batch
    whose pages draw no image (most of them) opens and reads nothing."""
    pictured = [pno for pno in pages if doc[pno].get_images(full=False)]
    if not pictured:
        return {}
    fresh = pymupdf.open(doc.name, filetype="pdf") if doc.name and Path(doc.name).is_file() else None
    try:
        source = fresh or doc
        return {pno: replacement_texts(source[pno]) for pno in pictured}
    finally:
        if fresh is not None:
            fresh.close()


def replacement_blocks(
    texts: Sequence[Placed], page_no: int, images: Sequence[pymupdf.Rect], width: float, height: float
) -> list[Block]:
    """The replacement texts as "heading" blocks (the page's heading rules decide what they are) over
    the images they stand for; a text next to no image is left out (nothing to place it on)."""
    found: list[Block] = []
    page_area = width * height
    images = [r for r in images if abs(r) < MAX_PAGE_SHARE * page_area]  # a scanned page is no line of text
    for (x0, y0, _x1, y1), text in texts:
        lines = _line_images(x0, y0, y1, images)
        bbox = union_bbox(clamp_bbox((r.x0, r.y0, r.x1, r.y1), width, height) for r in lines)
        if bbox is None or not _WORD.search(text):
            continue
        size = sum(r.height for r in lines) / len(lines) / LINE_HEIGHT_RATIO
        found.append(Block("heading", page_no, bbox, lines=[Line(text, bbox, size)]))
    return found


def stands_for(bbox: Sequence[float], replaced: Sequence[Block]) -> bool:
    """The picture box `bbox` lies (mostly) within the images a replacement text stands for."""
    rect = pymupdf.Rect(bbox)
    return abs(rect) > 0 and any(abs(rect & pymupdf.Rect(b.bbox)) >= 0.8 * abs(rect) for b in replaced)
