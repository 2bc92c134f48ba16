"""Outline (bookmark) entries of a PDF checked against the headings of its parse, on the pages
the entries point at only: those pages are cut out with PyMuPDF and given the PDF's own outline
entries for them, their page numbers mapped onto the cut (their text is the PDF's). Used by the
outline test and by `benchmarks/outline_coverage.py`."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
from docling_core.types.doc import DocItemLabel, DoclingDocument

from rag_core.parsing.outline import without_number

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
    """The PDF (or its `pages`) saved at `target` with its outline, the entries' pages mapped onto
    the cut; returns the entries that point at a page of the cut."""
    with pymupdf.open(source) as doc:
        toc = doc.get_toc(simple=True)
        if pages is None:
            doc.save(target)
            return toc
        new_page = {page: index + 1 for index, page in enumerate(pages)}
        # every entry stays (the parser reads the whole outline: a slide's navigation bar is
        # told from a running title by the entries it spells); those of pages left out point nowhere
        cut = [[level, title, new_page.get(page, -1)] for level, title, page in toc]
        doc.select([p - 1 for p in pages])
        doc.set_toc(cut)
        doc.save(target)
        return [entry for entry in cut if entry[2] >= 1]


def missed_entries(document: DoclingDocument, toc: list[list]) -> list[list]:
    """The outline entries that are no heading of `document` on their page or the next one (a
    heading holding the entry's words, its number left aside)."""
    heads = [
        (item.prov[0].page_no, key(item.text))
        for item, _ in document.iterate_items()
        if getattr(item, "label", None) in (DocItemLabel.SECTION_HEADER, DocItemLabel.TITLE)
    ]
    found = []
    for entry in toc:
        # its title, with or without its number: a part the outline calls "I Matière pour l'examen
        # partiel" is printed "Première partie" above "Matière pour l'examen partiel"
        keys = {key(entry[1]), key(without_number(entry[1]))} - {""}
        if any(p in (entry[2], entry[2] + 1) and any(k in text for k in keys) for p, text in heads):
            found.append(entry)
    return [e for e in toc if e not in found]


def check_golden(golden: Path, actual: str, what: str) -> None:
    """`actual` equals the golden file (a readable diff otherwise); RAG_GEN_GOLDEN=1 writes it."""
    import difflib

    import pytest

    from tests.integration.test_parsing_golden import GEN_GOLDEN

    if GEN_GOLDEN:
        golden.write_text(actual, encoding="utf-8")
        return
    assert golden.is_file(), f"{golden} is missing: run with RAG_GEN_GOLDEN=1 once, then check it"
    expected = golden.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True), actual.splitlines(keepends=True), f"golden/{golden.name}", "parse"
            )
        )
        pytest.fail(f"{what} differs from its golden file (RAG_GEN_GOLDEN=1 rewrites it):\n{diff}")
