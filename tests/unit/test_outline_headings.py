"""Headings the PDF declares: outline entries found on their page, labelled numbers in English and
French, lines that continue a sentence or formula never taken for headings (`parsing.outline`), and
the levels of a text made of guidelines or articles (`headings.unit_levels`)."""

from __future__ import annotations

import pytest

from rag_core.parsing.document_builder import Block
from rag_core.parsing.headings import HeadingInfo, assign_levels
from rag_core.parsing.layout_text import Line
from rag_core.parsing.outline import apply_outline, continues_sentence, labelled_heading, wordmark


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


def test_a_brand_name_with_a_trademark_sign_is_not_a_heading() -> None:
    """A back cover's logo ("Redpaper ™", 28 pt bold) is laid out like a heading; it is text."""
    assert wordmark("Redpaper ™") and wordmark("Acme Reserving®")
    assert not wordmark("Securing and protecting IBM DB2 data") and not wordmark("The Acme® reserving method explained")
    blocks = apply_outline([_block("heading", 18, "Redpaper ™"), _block("heading", 18, "Back cover summary")], [])
    assert [b.kind for b in blocks] == ["text", "heading"]


def test_an_outline_part_number_without_a_dot_and_a_bulleted_section_number() -> None:
    """ "III Annexes" is the page's "Annexes"; "• 4.3 Bornes de Fréchet" (a bullet the layout read
    before the number, so a list item) is the entry "Bornes de Fréchet"."""
    part = _block("text", 59, "Annexes")
    bulleted = _block("list", 4, "• 4.3 Bornes de Fréchet")
    blocks = apply_outline([bulleted, part], [[1, "III Annexes", 59], [2, "Bornes de Fréchet", 4]])
    assert [b.kind for b in blocks] == ["heading", "heading"]


def test_an_entry_the_layout_boxed_nowhere_is_taken_from_the_text_layer_in_reading_order() -> None:
    """A heading missing from every block (the layout skipped it, or a slide prints the section's
    name only in its navigation bar) becomes a heading made of its text-layer lines, placed
    before the first body block below it in its column; lines a body block holds are not taken."""
    above = _block("text", 7, "the end of the previous section.")
    first = Line("The first thing you often want", (50.0, 300.0, 400.0, 310.0))
    below = Block("text", 7, (50.0, 300.0, 400.0, 340.0), lines=[first])
    header = _block("header", 7, "Running title")
    lines = {
        7: [
            Line("the end of the previous section.", (50.0, 100.0, 400.0, 110.0)),
            Line("3.1.1", (50.0, 200.0, 70.0, 210.0)),
            Line("Plotting triangles", (80.0, 200.0, 200.0, 210.0)),
        ]
    }
    blocks = apply_outline([header, above, below], [[3, "Plotting triangles", 7]], lambda page: lines.get(page, []))
    assert [line.text for line in blocks[2].lines] == ["3.1.1", "Plotting triangles"]
    assert [(b.kind, b.lines[0].text) for b in blocks] == [
        ("header", "Running title"),
        ("text", "the end of the previous section."),
        ("heading", "3.1.1"),  # its section number, on a line of its own, comes with it
        ("text", "The first thing you often want"),
    ]
    # a title a body block already holds (in other words than the outline's) is never taken twice
    held = {7: [Line("the end of the previous section.", (50.0, 100.0, 400.0, 110.0))]}
    assert len(apply_outline([above], [[1, "the end of the previous section", 9]], lambda p: held.get(p, []))) == 1
