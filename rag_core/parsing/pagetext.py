"""Raw text of each page of a PDF (PyMuPDF's text layer): the page channel's unit.

Used at ingestion for the knowledge base's page channel (whole pages under BM25), and by the
evaluation's one-document-per-page BM25 baseline (docs/method.md, "Baselines and published
figures"). It does not parse layout, headings or tables: that is `parsing.parse`.

Boilerplate can be left out of the page channel's text (`retrieval.drop_repeated_page_lines`, off:
measured in docs/refusals_and_pages.md): a line written on two or more
pages of the same document (a running header or footer, a slide's navigation bar, a contents
page's entries, which repeat the headings of the pages they point to, a disclaimer repeated
through a filing) says nothing about which of those pages answers, so BM25 over whole pages
should not score it. Lines are compared by their words (folded, numbers and punctuation
dropped, so "2.3 Tail factors ....... 12" matches the heading "Tail factors"); a line of one
word is kept (a variable or a lone heading word is too ambiguous to call repeated text).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pymupdf

from rag_core.models import Child
from rag_core.parsing.unicode_text import clean_text
from rag_core.text import fold

_LETTERS = re.compile(r"[^\W\d_]+")
_MIN_REPEATED_WORDS = 2


def page_texts(pdf_path: Path) -> list[str]:
    """Text of every page, in order: element i is physical page i + 1."""
    with pymupdf.open(pdf_path) as doc:
        return [clean_text(page.get_text("text")) for page in doc]


def searchable_page_texts(
    path: Path, kind: str, children: Sequence[Child], drop_repeated_lines: bool = False
) -> list[str]:
    """Text of every page for the page channel: the PDF's text layer, or, where a page has none
    (a scan read by OCR, or a file that is not a PDF), the text of the children on that page;
    with `drop_repeated_lines`, the lines repeated on other pages of the document left out."""
    layer = page_texts(path) if kind == "pdf" else []
    parsed: dict[int, list[str]] = {}
    for child in children:
        for number in child.pages:
            parsed.setdefault(number, []).append(child.text)
    count = max([len(layer), *parsed])
    texts = [
        layer[i] if i < len(layer) and layer[i].strip() else "\n".join(parsed.get(i + 1, [])) for i in range(count)
    ]
    return without_repeated_lines(texts) if drop_repeated_lines else texts


def _line_key(line: str) -> str | None:
    words = _LETTERS.findall(fold(line))
    return " ".join(words) if len(words) >= _MIN_REPEATED_WORDS else None


def without_repeated_lines(texts: Sequence[str]) -> list[str]:
    """Each page's text without the lines whose words are written on another page of the same
    document too (see the module docstring); the other lines keep their order."""
    pages_of: dict[str, set[int]] = {}
    for number, text in enumerate(texts):
        for line in text.splitlines():
            if (key := _line_key(line)) is not None:
                pages_of.setdefault(key, set()).add(number)
    repeated = {key for key, pages in pages_of.items() if len(pages) > 1}
    return ["\n".join(x for x in text.splitlines() if _line_key(x) not in repeated) for text in texts]
