"""Raw text of each page of a PDF (PyMuPDF's text layer), for page-level baselines.

Used by the evaluation's one-document-per-page BM25 baseline (METHOD.md §6). It does not
parse layout, headings or tables: that is `parsing.parse`.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf


def page_texts(pdf_path: Path) -> list[str]:
    """Text of every page, in order: element i is physical page i + 1."""
    with pymupdf.open(pdf_path) as doc:
        return [page.get_text("text") for page in doc]
