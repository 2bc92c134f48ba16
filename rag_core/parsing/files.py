"""Reading and writing parsed documents, and page excerpts for the viewer.

Kept beside the parsers because they own the docling-core and PyMuPDF imports.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pymupdf
from docling_core.types.doc import DoclingDocument

from rag_core.errors import NotFoundError


def save_document(doc: DoclingDocument, path: Path) -> None:
    """Write to a temporary name, then rename: a killed process never leaves half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    # export_to_dict keeps picture URIs as they are: crops stay files in artifacts/, and
    # save_as_json would try to read (or embed) them.
    tmp.write_text(json.dumps(doc.export_to_dict(), ensure_ascii=False))
    tmp.replace(path)


def load_document(path: Path) -> DoclingDocument:
    return DoclingDocument.load_from_json(path)


def page_excerpt(pdf_path: Path, pages: Sequence[int]) -> tuple[bytes, dict[int, int]]:
    """A PDF holding only `pages` (1-based, physical), and the map original page -> excerpt page.

    The viewer receives only what it shows, so a 300-page PDF opens as fast as a 3-page one.
    """
    with pymupdf.open(pdf_path) as src:
        wanted = sorted({p for p in pages if 1 <= p <= src.page_count})
        if not wanted:
            raise NotFoundError.of("doc.page_missing")
        out = pymupdf.open()
        mapping: dict[int, int] = {}
        for page in wanted:
            out.insert_pdf(src, from_page=page - 1, to_page=page - 1)
            mapping[page] = len(mapping) + 1
        data = out.tobytes(garbage=3, deflate=True)
        out.close()
    return data, mapping


def page_count(pdf_path: Path) -> int:
    with pymupdf.open(pdf_path) as src:
        return src.page_count


def page_png(pdf_path: Path, page: int, boxes: Sequence[tuple[float, float, float, float]], zoom: float = 1.5) -> bytes:
    """One page (1-based, physical) as a PNG, with `boxes` (PDF points, top-left origin) drawn as
    translucent highlights: the picture a client without a PDF viewer shows for a citation."""
    with pymupdf.open(pdf_path) as src:
        if not 1 <= page <= src.page_count:
            raise NotFoundError.of("doc.page_missing")
        out = pymupdf.open()
        out.insert_pdf(src, from_page=page - 1, to_page=page - 1)
        shown = out[0]
        for x0, y0, x1, y1 in boxes:
            shape = shown.new_shape()
            shape.draw_rect(pymupdf.Rect(x0, y0, x1, y1) * shown.derotation_matrix)
            shape.finish(color=(0.9, 0.6, 0.0), fill=(1.0, 0.85, 0.0), fill_opacity=0.35, width=1.2)
            shape.commit()
        data = shown.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False).tobytes("png")
        out.close()
    return data


def region_png(
    pdf_path: Path, page: int, rect: tuple[float, float, float, float], zoom: float = 2.0, margin: float = 4.0
) -> bytes:
    """The region `rect` (PDF points, top-left origin) of one page (1-based, physical), `margin`
    points wider on each side and clipped to the page, as a PNG drawn at `zoom` times 72 dpi: a
    passage as the page prints it."""
    with pymupdf.open(pdf_path) as src:
        if not 1 <= page <= src.page_count:
            raise NotFoundError.of("doc.page_missing")
        shown = src[page - 1]
        x0, y0, x1, y1 = rect
        clip = pymupdf.Rect(x0 - margin, y0 - margin, x1 + margin, y1 + margin) & shown.rect  # both as displayed
        if clip.is_empty:
            raise NotFoundError.of("doc.page_missing")
        return shown.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=clip, alpha=False).tobytes("png")
