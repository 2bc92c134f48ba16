"""Headings the PDF declares: outline entries found on their page, labelled numbers in English and
French, lines that continue a sentence or formula never taken for headings (`parsing.outline`), and
the levels of a text made of guidelines or articles (`headings.unit_levels`)."""

from __future__ import annotations

import pytest

from rag_core.parsing.document_builder import Block
from rag_core.parsing.headings import HeadingInfo, assign_levels
from rag_core.parsing.layout_text import Line
from rag_core.parsing.outline import apply_outline, continues_sentence, labelled_heading


def _block(kind: str, page: int, *texts: str, size: float = 10.0) -> Block:
    lines = [Line(text, (50.0, 100.0 + 12 * i, 400.0, 110.0 + 12 * i), size) for i, text in enumerate(texts)]
    return Block(kind, page, (50.0, 100.0, 400.0, 100.0 + 12 * len(texts)), lines=lines)


@pytest.mark.parametrize(
    "text",
    [
        "Guideline 12 – Recommendations of the actuarial function",
        "Guideline 24B – Governance of Assumptions setting",
        "Guideline 5 - Consideration of the methodologies to be applied",
        "Article 5",
        "Article L. 123-4 : Dispositions générales",
        "Article R. 351-2",
        "Orientation 3 – Gouvernance des données",
        "Chapitre 2 : Méthode de Chain Ladder",
        "Section 1: Data quality",
        "Annex IV",
    ],
)
def test_a_labelled_number_opens_a_heading(text: str) -> None:
    assert labelled_heading(text)


@pytest.mark.parametrize(
    "text",
    [
        "Guideline 5 applies to all undertakings that",  # a reference at the start of a paragraph
        "Article 77 of Directive 2009/138/EC requires",
        "Section 3 of this report shows the triangle",
        "Guidelines on valuation of technical provisions",  # no number
        "Chapitre premier",
    ],
)
def test_a_reference_to_a_labelled_unit_is_not_a_heading(text: str) -> None:
    assert not labelled_heading(text)


@pytest.mark.parametrize("text", ["where", "Where", "with", "so that", "où", "avec", "With respect to premiums:"])
def test_a_line_continuing_a_sentence_or_formula_is_not_a_heading(text: str) -> None:
    assert continues_sentence(text)


@pytest.mark.parametrize("text", ["Withdrawal rates", "Wherefore reserves", "Avec-profits business in France"])
def test_a_heading_that_only_starts_like_a_connective_stays(text: str) -> None:
    assert not continues_sentence(text)


def test_an_outline_entry_inside_a_paragraph_becomes_its_own_heading() -> None:
    para = _block("text", 3, "some closing words of the section.", "2.1 Estimation des cadences", "Les cadences de")
    other_page = _block("text", 2, "2.1 Estimation des cadences")  # same words on the contents page
    blocks = apply_outline([other_page, para], [[2, "Estimation des cadences", 3]])
    kinds = [(b.page_no, b.kind, " ".join(line.text for line in b.lines)) for b in blocks]
    assert kinds == [
        (2, "text", "2.1 Estimation des cadences"),
        (3, "text", "some closing words of the section."),
        (3, "heading", "2.1 Estimation des cadences"),
        (3, "text", "Les cadences de"),
    ]


def test_an_outline_title_over_two_lines_and_an_outline_pointing_a_page_early() -> None:
    block = _block("text", 5, "Calcul de la provision pour", "sinistres à payer", "Le montant est")
    blocks = apply_outline([block], [[1, "Calcul de la provision pour sinistres à payer", 4]])
    assert [(b.kind, len(b.lines)) for b in blocks] == [("heading", 2), ("text", 1)]


def test_an_outline_entry_absent_from_the_page_changes_nothing() -> None:
    block = _block("text", 1, "Nothing to see here.")
    assert apply_outline([block], [[1, "Missing chapter", 1]]) == [block]


def test_a_labelled_line_is_split_from_its_paragraph_and_a_formula_where_is_text() -> None:
    para = _block("text", 2, "Guideline 3 – Data checks", "1.7. Undertakings should perform checks.")
    where = _block("heading", 2, "where")
    blocks = apply_outline([para, where], [])
    assert [(b.kind, b.lines[0].text) for b in blocks] == [
        ("heading", "Guideline 3 – Data checks"),
        ("text", "1.7. Undertakings should perform checks."),
        ("text", "where"),
    ]


def test_a_labelled_heading_keeps_its_wrapped_title_line() -> None:
    para = _block(
        "text", 4, "Guideline 79 – Simplified calculation of recoverables from", "reinsurance contracts", "1.2. Text"
    )
    blocks = apply_outline([para], [])
    assert [(b.kind, len(b.lines)) for b in blocks] == [("heading", 2), ("text", 1)]


def test_each_guideline_is_a_section_inside_its_topic() -> None:
    texts = [
        "Section 1: Data quality",
        "Completeness of data",
        "Guideline 1 – Completeness of data",
        "Guideline 2 – Appropriateness of data",
        "Review of data",
        "Guideline 3 – Data checks",
        "Section 2: Segmentation",
        "Guideline 4 – Segmentation",
    ]
    levels = assign_levels([HeadingInfo(t, 1, 11.0) for t in texts], [])
    assert levels == [1, 2, 3, 3, 2, 3, 1, 2]


def test_a_heading_whose_number_stands_on_its_own_line_is_kept_whole() -> None:
    heading = _block("heading", 2, "1", "Payment per payment, ordinary deductible", size=14.0)
    blocks = apply_outline([heading], [[1, "1 Payment per payment, ordinary deductible", 2]])
    assert blocks == [heading] and [ln.text for ln in blocks[0].lines] == [
        "1",
        "Payment per payment, ordinary deductible",
    ]
