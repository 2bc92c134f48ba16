"""Progress that moves during a slow page: two real pages of the corpus's triangles report, whose
tables are printed as images and read by OCR, parsed by the real parser in one process. Each
such page is a batch of its own (pages done advance page by page) and each picture read sends
a progress event while its page is still being parsed."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from rag_core import parsing
from rag_core.config import Settings
from rag_core.parsing.page_batches import page_runs, plan

REPORT = "fr_rapport_provisionnement_non_vie_triangles_cadences.pdf"


def test_slow_pages_are_batches_of_their_own() -> None:
    assert page_runs(7, set(), {2, 3}) == [([0, 1], False), ([2], False), ([3], False), ([4, 5, 6], False)]
    assert page_runs(6, {0}, set()) == [([0], True), ([1, 2, 3, 4], False), ([5], False)]


def test_events_arrive_while_a_table_image_page_is_parsed(tmp_path: Path, corpus_dir: Path) -> None:
    pdf = tmp_path / "triangles_pages.pdf"
    with pymupdf.open(corpus_dir / REPORT) as source, pymupdf.open() as out:
        out.insert_pdf(source, from_page=3, to_page=4)  # two pages of triangles printed as images
        out.save(pdf)
    with pymupdf.open(pdf) as doc:
        assert [b.pages for b in plan(doc, True, tmp_path, True)] == [[0], [1]]
    settings = Settings(data_dir=tmp_path / "lib", parsing={"workers": 1})
    events: list[tuple[int, int]] = []
    parsed = parsing.parse(pdf, settings, tmp_path / "artifacts", progress=lambda d, t: events.append((d, t)))
    tables = [item for item in parsed.document.tables]
    assert tables, "the table images were read as tables"
    assert events[-1] == (2, 2)
    during_first = [e for e in events if e == (0, 2)]  # sent before the first page was done
    during_second = [e for e in events if e == (1, 2)]
    assert during_first and len(during_second) >= 2, events  # the page's end, then its pictures
