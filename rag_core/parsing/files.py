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
            raise NotFoundError("The cited page is not in this document.")
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
