"""A heading wrapped over two lines that the layout boxed as two headings is one heading
(`parsing.heading_blocks.fix_headings`); two headings printed one under the other stay two."""

from __future__ import annotations

from rag_core.parsing.document_builder import Block
from rag_core.parsing.heading_blocks import fix_headings
from rag_core.parsing.layout_text import Line

BODY = "The tail factor is estimated from the development of the oldest accident years of the triangle."


def _heading(text: str, x0: float, x1: float, top: float, size: float = 14.0) -> Block:
    bbox = (x0, top, x1, top + size * 1.1)
    return Block("heading", 1, bbox, lines=[Line(text, bbox, size)])


def _page(*headings: Block) -> list[Block]:
    bottom = max(h.bbox[3] for h in headings)
    lines = [Line(BODY, (72.0, bottom + 20 + 12 * i, 520.0, bottom + 30 + 12 * i), 10.0) for i in range(4)]
    return [*headings, Block("text", 1, (72.0, bottom + 20, 520.0, bottom + 68), lines=lines)]


def _headings(blocks: list[Block]) -> list[str]:
    return [" ".join(line.text for line in b.lines) for b in blocks if b.kind == "heading"]


def test_a_centred_title_wrapped_over_two_boxes_is_one_heading() -> None:
    first = _heading("THE ESTIMATION OF LOSS DEVELOPMENT TAIL", 150.0, 520.0, 36.0)
    second = _heading("FACTORS: A SUMMARY REPORT", 208.0, 444.0, 56.0)
    assert _headings(fix_headings(_page(first, second), 792.0)) == [
        "THE ESTIMATION OF LOSS DEVELOPMENT TAIL FACTORS: A SUMMARY REPORT"
    ]


def test_a_left_aligned_heading_wrapped_over_two_boxes_is_one_heading() -> None:
    first = _heading("2.1 Introduction and Description of the", 72.0, 400.0, 100.0)
    second = _heading("Bondy-Type Methods", 72.0, 210.0, 117.0)
    assert _headings(fix_headings(_page(first, second), 792.0)) == [
        "2.1 Introduction and Description of the Bondy-Type Methods"
    ]


def test_headings_printed_one_under_the_other_stay_two() -> None:
    cases = [
        # a numbered or labelled unit opens a heading of its own
        (
            _heading("1. INTRODUCTION", 72.0, 200.0, 100.0),
            _heading("1.1 Importance of Tail Factors", 72.0, 300.0, 117.0),
        ),
        (
            _heading("Section 1: Data quality", 72.0, 250.0, 100.0),
            _heading("Guideline 1 – Completeness", 72.0, 290.0, 117.0),
        ),
        # a blank line between them, another size, a full stop, another alignment
        (_heading("Preface", 72.0, 150.0, 100.0), _heading("Authors", 72.0, 150.0, 130.0)),
        (_heading("Preface", 72.0, 150.0, 100.0), _heading("Authors", 72.0, 140.0, 117.0, size=12.0)),
        (_heading("Summary of the method.", 72.0, 250.0, 100.0), _heading("Its results", 72.0, 150.0, 117.0)),
        (_heading("Methods", 72.0, 150.0, 100.0), _heading("Results", 300.0, 380.0, 117.0)),
    ]
    for first, second in cases:
        texts = [first.lines[0].text, second.lines[0].text]
        assert _headings(fix_headings(_page(first, second), 792.0)) == texts
