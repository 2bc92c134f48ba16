"""Text of the text layer inside a layout "picture" box, and the box a picture really has.

The layout model calls framed forms, banners, slides' text boxes and header bands "pictures".
Their text must not be lost. For one picture box (PyMuPDF backend), `split_picture` decides:

- the figure's own box: when the box holds images that are figures (holding no other image,
  under MAX_TEXT_ON_FIGURE of the image covered by text lines) and no vector drawing, and those images cover under
  SHRINK_SHARE of the box (a header band much larger than the logo it holds), the picture's box
  becomes the union of those images, and the text outside it is ordinary text;
- a picture that is mostly text (text lines cover at least MOSTLY_TEXT_SHARE of it, with no
  figure image, no vector path and at most MAX_FRAME_SHAPES rectangles or rules) is not a picture: its
  text becomes text blocks, one per text-layer block;
- otherwise the picture stays, and its text (axis labels, a form's fields) becomes its
  children, as Docling keeps it: searchable, citable, with line boxes.

Lines of plot markers drawn with a font ("G GG G", R's points) are not text. It does not read
text that is only in the pixels (that is OCR's work, `table_images` and
the OCR of text-less pages).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pymupdf

from rag_core.parsing.document_builder import Block
from rag_core.parsing.layout_text import BBox, Line

MOSTLY_TEXT_SHARE = 0.15  # text lines over this share of a picture without a figure image: text
MAX_TEXT_ON_FIGURE = 0.15  # an image under more text than this is a background, not a figure
SHRINK_SHARE = 0.5  # figure images covering less of the box than this: the box is theirs
MIN_IMAGE_INSIDE = 0.5  # share of an image inside the box for it to belong to the box
MAX_FRAME_SHAPES = 4  # more rectangles or rules than this inside the box: a drawing (chart, grid)


@dataclass
class PictureSplit:
    """What a layout "picture" box holds: the figure (None when it is text) and its text."""

    picture_bbox: BBox | None
    children: list[list[Line]] = field(default_factory=list)  # text inside the figure
    text_blocks: list[list[Line]] = field(default_factory=list)  # text that is not the figure's


def split_picture(bbox: BBox, line_blocks: list[list[Line]], graphics: list[tuple[pymupdf.Rect, str]]) -> PictureSplit:
    """Decide what a picture box is (see the module's docstring).

    `line_blocks`: text-layer lines inside the box, grouped by text-layer block;
    `graphics`: `pictures.graphics_of(page)`.
    """
    box = pymupdf.Rect(bbox)
    line_blocks = [[ln for ln in blk if not _plot_markers(ln.text)] for blk in line_blocks]
    line_blocks = [blk for blk in line_blocks if blk]
    lines = [ln for blk in line_blocks for ln in blk]
    if box.is_empty:
        return PictureSplit(bbox)
    images = [
        rect
        for rect, kind in graphics
        if kind == "image" and not rect.is_empty and abs(rect & box) >= MIN_IMAGE_INSIDE * abs(rect)
    ]
    vector = any(kind == "path" and not rect.is_empty and abs(rect & box) >= 0.5 * abs(rect) for rect, kind in graphics)
    # rectangles and rules: a few make a frame, more make a chart or a table drawn in vectors
    shapes = sum(kind == "rect" and abs(rect & box) >= 0.5 * abs(rect) for rect, kind in graphics)
    vector = vector or shapes > MAX_FRAME_SHAPES
    # an image that holds another image, or lies under much text, is a background, not a figure
    figures = [
        rect & box
        for rect in images
        if not any(other != rect and other in rect for other in images)
        and _text_share(lines, rect) <= MAX_TEXT_ON_FIGURE
    ]
    if figures and not vector:
        union = pymupdf.Rect(figures[0])
        for rect in figures[1:]:
            union |= rect
        if abs(union) < SHRINK_SHARE * abs(box):
            inside, outside = _partition(line_blocks, union)
            return PictureSplit((union.x0, union.y0, union.x1, union.y1), children=inside, text_blocks=outside)
    if lines and not figures and not vector and _text_share(lines, box) >= MOSTLY_TEXT_SHARE:
        return PictureSplit(None, text_blocks=[blk for blk in line_blocks if blk])
    return PictureSplit(bbox, children=[blk for blk in line_blocks if blk])


def _plot_markers(text: str) -> bool:
    """A line of plot markers drawn with a font ("G GGG", "+ +"): each word one character repeated."""
    words = text.split()
    return bool(words) and all(len(set(word)) == 1 and not word.isdigit() for word in words)


def _text_share(lines: list[Line], rect: pymupdf.Rect) -> float:
    area = abs(rect)
    if area <= 0:
        return 0.0
    return sum(abs(pymupdf.Rect(ln.bbox) & rect) for ln in lines) / area


def _partition(line_blocks: list[list[Line]], rect: pymupdf.Rect) -> tuple[list[list[Line]], list[list[Line]]]:
    """Lines whose middle lies in `rect`, and the others, each kept in their blocks."""
    inside: list[list[Line]] = []
    outside: list[list[Line]] = []
    for blk in line_blocks:
        ins = [ln for ln in blk if _middle(ln.bbox) in rect]
        outs = [ln for ln in blk if _middle(ln.bbox) not in rect]
        if ins:
            inside.append(ins)
        if outs:
            outside.append(outs)
    return inside, outside


def _middle(bbox: BBox) -> pymupdf.Point:
    return pymupdf.Point((bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2)


def text_blocks(page_no: int, line_blocks: list[list[Line]]) -> list[Block]:
    """One text Block per text-layer block, with the union of its lines as its box."""
    blocks = []
    for lines in line_blocks:
        if not lines:
            continue
        x0 = min(ln.bbox[0] for ln in lines)
        y0 = min(ln.bbox[1] for ln in lines)
        x1 = max(ln.bbox[2] for ln in lines)
        y1 = max(ln.bbox[3] for ln in lines)
        blocks.append(Block("text", page_no, (x0, y0, x1, y1), lines=list(lines)))
    return blocks
