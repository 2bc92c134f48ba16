"""Outline (bookmark) entries of a PDF checked against the headings of its parse, on the pages
the entries point at only: those pages are cut out with PyMuPDF and given the PDF's own outline
entries for them, their page numbers mapped onto the cut (their text is the PDF's). Used by the
outline test and by `benchmarks/outline_coverage.py`."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
from docling_core.types.doc import DocItemLabel, DoclingDocument

_KEY = re.compile(r"\w+")


def key(text: str) -> str:
    return " ".join(_KEY.findall(text.lower()))


def outline_pages(source: Path) -> list[int]:
    """The pages (1-based) the PDF's outline entries point at, and the page after each (some
    outlines point at the page before the heading's)."""
    with pymupdf.open(source) as doc:
        pointed = {int(e[2]) for e in doc.get_toc(simple=True) if int(e[2]) >= 1}
        return sorted(pointed | {p + 1 for p in pointed if p + 1 <= doc.page_count})


def cut_with_outline(source: Path, pages: list[int] | None, target: Path) -> list[list]:
    """The PDF (or its `pages`) saved at `target` with its outline entries for those pages;
    returns that outline."""
    with pymupdf.open(source) as doc:
        toc = doc.get_toc(simple=True)
        if pages is None:
            doc.save(target)
            return toc
        new_page = {page: index + 1 for index, page in enumerate(pages)}
        kept, level = [], 0
        for entry_level, title, page in toc:
            if page in new_page:
                level = min(entry_level, level + 1)  # an outline never skips a level
                kept.append([level, title, new_page[page]])
        doc.select([p - 1 for p in pages])
        doc.set_toc(kept)
        doc.save(target)
        return kept


def missed_entries(document: DoclingDocument, toc: list[list]) -> list[list]:
    """The outline entries that are no heading of `document` on their page or the next one."""
    heads = [
        (item.prov[0].page_no, key(item.text))
        for item, _ in document.iterate_items()
        if getattr(item, "label", None) in (DocItemLabel.SECTION_HEADER, DocItemLabel.TITLE)
    ]
    return [e for e in toc if not any(p in (e[2], e[2] + 1) and key(e[1]) in text for p, text in heads)]
