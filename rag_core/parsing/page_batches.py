"""The page batches of a PDF (pymupdf backend), and the seam through which they are run.

`plan` cuts a PDF into `Batch`es of consecutive pages; each batch gives a `BatchResult`
(light `Block`s, page sizes, warnings) and the PNG crops of its pictures, written into
`Batch.artifacts_dir`. A `PageBatchRunner` runs them and returns the results in batch order:
`pymupdf_parser` has one for this process and its helpers (`page_workers`), and the Ray
executor (`rag_core.jobs.ray_runner`) one that runs them as tasks of a cluster. The document is
built from the results alone, so any runner gives the same document. This module holds no
layout analysis: it only surveys the text layer to decide which pages need OCR.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pymupdf

from rag_core.parsing.document_builder import Block, PageSize

BATCH_PAGES = 4  # pages per parse_document call: bounded memory, smooth progress, ~20 ms overhead
SCAN_MAX_CHARS = 50
SCAN_MIN_IMAGE_SHARE = 0.25
SLOW_IMAGE_SHARE = 0.2  # images over a fifth of a page: likely a table image or a scan, seconds of OCR


@dataclass(frozen=True)
class Batch:
    """Consecutive pages analysed by one `parse_document` call (0-based page numbers)."""

    pages: list[int]
    needs_ocr: bool
    ocr: bool  # settings.parsing.ocr (for the message about a page without text)
    no_text: frozenset[int]  # pages of this batch without a text layer
    artifacts_dir: str
    table_images: bool = False  # settings.parsing.table_images


@dataclass
class BatchResult:
    blocks: list[Block]
    sizes: dict[int, PageSize]
    warnings: list[str]
    ocr_seconds: float


class PageBatchRunner(Protocol):
    """Runs every batch of one PDF; results in batch order, `on_done(index)` as each one ends."""

    def run(self, path: Path, batches: Sequence[Batch], on_done: Callable[[int], None]) -> list[BatchResult]: ...


def plan(doc: pymupdf.Document, ocr: bool, artifacts_dir: Path, table_images: bool) -> list[Batch]:
    """The batches of an open PDF: runs of at most BATCH_PAGES pages that share the same OCR decision."""
    no_text: set[int] = set()
    scanned: set[int] = set()
    pictured: set[int] = set()
    for pno in range(doc.page_count):
        page = doc.load_page(pno)
        chars, scan = text_survey(page)
        if chars == 0:
            no_text.add(pno)
        if scan:
            scanned.add(pno)
        if (ocr or table_images) and image_share(page) >= SLOW_IMAGE_SHARE:
            pictured.add(pno)
    slow = (scanned if ocr else set()) | pictured
    return [
        Batch(pages, needs_ocr, ocr, frozenset(no_text.intersection(pages)), str(artifacts_dir), table_images)
        for pages, needs_ocr in page_runs(doc.page_count, scanned if ocr else set(), slow)
    ]


def image_share(page: pymupdf.Page) -> float:
    """Share of the page covered by images."""
    covered = sum(abs(pymupdf.Rect(info["bbox"]) & page.rect) for info in page.get_image_info())
    return covered / (abs(page.rect) or 1.0)


def text_survey(page: pymupdf.Page) -> tuple[int, bool]:
    """(characters in the text layer, whether the page looks scanned and needs OCR).

    Scanned: no text at all, or under SCAN_MAX_CHARS characters (a page number, a running
    title) with images covering at least SCAN_MIN_IMAGE_SHARE of the page. pymupdf4llm's
    own `needs_ocr` fires on most born-digital pages with a logo, so it is not used.
    """
    chars = len("".join(page.get_text("text").split()))
    if chars == 0:
        return 0, True
    if chars >= SCAN_MAX_CHARS:
        return chars, False
    return chars, image_share(page) >= SCAN_MIN_IMAGE_SHARE


def page_runs(total: int, ocr_pages: set[int], slow_pages: set[int] | None = None) -> list[tuple[list[int], bool]]:
    """Consecutive runs of at most BATCH_PAGES pages that share the same OCR decision; a slow page
    (scanned, or large images that may be tables read by OCR) is a batch of its own, so that the
    pages done advance page by page where each takes seconds, and the processes share them evenly."""
    slow_pages = slow_pages or set()
    batches: list[tuple[list[int], bool]] = []
    for pno in range(total):
        needs = pno in ocr_pages
        alone = pno in slow_pages or (batches and batches[-1][0][-1] in slow_pages)
        if batches and not alone and batches[-1][1] == needs and len(batches[-1][0]) < BATCH_PAGES:
            batches[-1][0].append(pno)
        else:
            batches.append(([pno], needs))
    return batches


def file_pages(path: Path, suffix: str) -> int:
    """Pages of an uploaded file: a PDF's page count; 1 for other kinds or an unreadable file."""
    if suffix.lower() != "pdf":
        return 1
    try:
        with pymupdf.open(path) as doc:
            return max(1, doc.page_count)
    except (RuntimeError, ValueError, OSError):
        return 1
