"""Raw text of each page of a PDF (PyMuPDF's text layer): the page channel's unit.

Used at ingestion for the knowledge base's page channel (whole pages under BM25), and by the
evaluation's one-document-per-page BM25 baseline (docs/method.md, "Baselines and published
figures"). It does not parse layout, headings or tables: that is `parsing.parse`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf

from rag_core.models import Child
from rag_core.parsing.unicode_text import clean_text


def page_texts(pdf_path: Path) -> list[str]:
    """Text of every page, in order: element i is physical page i + 1."""
    with pymupdf.open(pdf_path) as doc:
        return [clean_text(page.get_text("text")) for page in doc]


def searchable_page_texts(path: Path, kind: str, children: Sequence[Child]) -> list[str]:
    """Text of every page for the page channel: the PDF's text layer, or, where a page has none
    (a scan read by OCR, or a file that is not a PDF), the text of the children on that page."""
    layer = page_texts(path) if kind == "pdf" else []
    parsed: dict[int, list[str]] = {}
    for child in children:
        for number in child.pages:
            parsed.setdefault(number, []).append(child.text)
    count = max([len(layer), *parsed])
    return [layer[i] if i < len(layer) and layer[i].strip() else "\n".join(parsed.get(i + 1, [])) for i in range(count)]
