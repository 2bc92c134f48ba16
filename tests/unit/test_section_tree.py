"""Inspect's section tree (`ui.section_tree`): each heading once, in reading order, at its depth,
with the page a click opens, and a warning on sections that look mis-detected."""

from __future__ import annotations

from rag_app.ui.section_tree import section_rows
from rag_core.models import Parent

BODY = "Undertakings should ensure that data are complete.\nThey should check it every year."


def _parent(i: int, path: list[str], text: str, page: int) -> Parent:
    return Parent(
        id=f"p{i}", doc_id="d" * 64, index=i, heading_path=path, text=text, tokens=10, pages=[page], child_ids=[]
    )


def test_the_tree_lists_each_heading_with_its_first_page_and_flags_suspect_ones() -> None:
    section = "Section 1: Data quality"
    parents = [
        _parent(0, [section, "Guideline 1 – Completeness of data"], BODY, 2),
        _parent(1, [section, "Guideline 1 – Completeness of data"], BODY, 3),
        _parent(2, [section, "Where"], "Where", 4),  # a formula's word taken for a heading: one line
        _parent(3, [section, "Guideline 2 – Appropriateness of data"], "Guideline 2 – Appropriateness of data", 5),
        _parent(4, ["Section 2: Segmentation", "Guideline 3 – Segmentation"], BODY, 6),
    ]
    rows = section_rows(parents)
    assert [(r.depth, r.title, r.page, r.suspect) for r in rows] == [
        (1, section, 2, False),  # a section with sub-sections is not empty
        (2, "Guideline 1 – Completeness of data", 2, False),
        (2, "Where", 4, True),
        (2, "Guideline 2 – Appropriateness of data", 5, True),  # nothing under its heading
        (1, "Section 2: Segmentation", 6, False),
        (2, "Guideline 3 – Segmentation", 6, False),
    ]
