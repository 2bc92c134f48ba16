"""Pictures of a page (PyMuPDF backend): which layout "pictures" draw something, images the layout
model missed, and the PNG crop of each picture.

- A "picture" box with no image and no drawing inside, other than at most MAX_PLAIN_SHAPES
  rectangles or rules (a coloured band, a frame), is not a picture: its text, if any, is text.
- An image of the page that no layout box holds (at least MIN_IMAGE_SIDE_PT on each side, under
  MAX_COVERED_SHARE of it covered by other boxes, and not the page's background) is a picture.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import pymupdf

from rag_core.parsing.document_builder import PICTURE_DPI, Block

log = logging.getLogger(__name__)

MIN_PICTURE_PT = 8.0  # smaller boxes are rules or specks, not figures
MAX_PLAIN_SHAPES = 4  # a "picture" of fewer rectangles and rules is a band or a frame (text, or nothing)
MIN_SHAPE_PT = 4.0  # a drawing smaller than this both ways draws nothing worth a picture
# A crop is for reading on screen: cap its size so that a huge page or a poster-sized figure
# cannot cost gigabytes (a 2,000 x 2,000 pt picture at 110 dpi would be 9 Mpx). The source
# image's own size does not matter: MuPDF scales it down while drawing the crop.
MAX_PICTURE_PIXELS = 4_000_000
MIN_IMAGE_SIDE_PT = 32.0  # a smaller image the layout model left out is a bullet, a logo's piece or a band
MAX_COVERED_SHARE = 0.3  # an image under other boxes (text on a background) is not a missed picture
MAX_PAGE_SHARE = 0.9  # an image covering the page is its background


def page_images(page: pymupdf.Page) -> list[pymupdf.Rect]:
    """Where the page draws its images (cheap: no drawing is read)."""
    return [pymupdf.Rect(info["bbox"]) for info in page.get_image_info()]


def missed_images(
    images: Sequence[pymupdf.Rect], blocks: Sequence[Block], width: float, height: float
) -> list[tuple[float, float, float, float]]:
    """Boxes of images no layout block holds (see the module's docstring)."""
    page = pymupdf.Rect(0, 0, width, height)
    found: list[tuple[float, float, float, float]] = []
    for shape in images:
        rect = shape & page
        if rect.width < MIN_IMAGE_SIDE_PT or rect.height < MIN_IMAGE_SIDE_PT or abs(rect) >= MAX_PAGE_SHARE * abs(page):
            continue
        covered = sum(abs(rect & pymupdf.Rect(b.bbox)) for b in blocks)
        held = any(b.kind in ("picture", "table", "contents") and abs(rect & pymupdf.Rect(b.bbox)) > 0 for b in blocks)
        if (
            not held
            and covered < MAX_COVERED_SHARE * abs(rect)
            and all(abs(rect & pymupdf.Rect(f)) == 0 for f in found)
        ):
            found.append((rect.x0, rect.y0, rect.x1, rect.y1))
    return found


def graphics_of(page: pymupdf.Page, images: Sequence[pymupdf.Rect] | None = None) -> list[tuple[pymupdf.Rect, str]]:
    """(box, "image" | "rect" | "path") of every image and vector path of the page; "rect" is a
    path made of rectangles and horizontal or vertical rules only. `images`: the page's
    `page_images` when the caller has them already (each reading builds a text page)."""
    found = [(rect, "image") for rect in (page_images(page) if images is None else images)]
    try:
        paths = page.get_drawings()
    except Exception:  # a broken content stream: assume the pictures draw something
        return [(page.rect, "image")]
    for path in paths:
        items = path.get("items") or []
        plain = bool(items) and all(
            it[0] in ("re", "qu") or it[0] == "l" and (it[1].x == it[2].x or it[1].y == it[2].y) for it in items
        )
        found.append((pymupdf.Rect(path["rect"]), "rect" if plain else "path"))
    return found


def draws_something(graphics: list[tuple[pymupdf.Rect, str]], bbox) -> bool:
    """An image or a drawing inside the box, other than at most MAX_PLAIN_SHAPES rectangles or rules
    (a band, a frame); a shape mostly outside the box (the page's background) does not count."""
    rect = pymupdf.Rect(bbox)
    rectangles = 0
    for shape, kind in graphics:
        if shape.width < MIN_SHAPE_PT and shape.height < MIN_SHAPE_PT:
            continue  # a speck
        if shape.width <= 0 or shape.height <= 0:  # a straight line: count it where its middle is
            inside = pymupdf.Point((shape.x0 + shape.x1) / 2, (shape.y0 + shape.y1) / 2) in rect
        else:
            share = abs(shape & rect)
            inside = share >= 0.5 * abs(shape) or kind == "image" and share >= 0.5 * abs(rect)
        if not inside:
            continue
        if kind != "rect":
            return True
        rectangles += 1
    return rectangles > MAX_PLAIN_SHAPES


def picture_block(page: pymupdf.Page, page_no: int, bbox, artifacts_dir: Path, index: int) -> Block | None:
    rect = pymupdf.Rect(bbox)
    if rect.width < MIN_PICTURE_PT or rect.height < MIN_PICTURE_PT:
        return None
    file_name = f"page{page_no:04d}-picture{index:02d}.png"
    try:
        pix = page.get_pixmap(clip=rect, dpi=picture_dpi(rect))
        pix.save(artifacts_dir / file_name)
        size = (pix.width, pix.height)
    except Exception:  # a broken image stream must not lose the rest of the page
        log.warning("could not render picture on page %d", page_no, exc_info=True)
        return Block("picture", page_no, bbox)
    return Block("picture", page_no, bbox, image_file=file_name, image_px=size)


def picture_dpi(rect: pymupdf.Rect) -> int:
    """PICTURE_DPI, lowered so that the crop stays under MAX_PICTURE_PIXELS."""
    area_in2 = (rect.width / 72) * (rect.height / 72)
    return max(1, min(PICTURE_DPI, int((MAX_PICTURE_PIXELS / area_in2) ** 0.5)))
