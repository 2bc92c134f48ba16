"""Headings that cannot name a section (`parsing.fragments`, applied by `parsing.outline.apply_outline`):
a sentence's or formula's piece and an author's byline become text, a section's name in either language
stays; a labelled line no layout block holds, and a topic line above a unit's heading, become headings."""

from __future__ import annotations

import pytest

from rag_core.parsing.document_builder import Block
from rag_core.parsing.fragments import byline, sentence_fragment
from rag_core.parsing.layout_text import Line
from rag_core.parsing.outline import apply_outline


def _block(kind: str, page: int, top: float, *texts: str, left: float = 85.0, size: float = 11.0) -> Block:
    lines = [Line(text, (left, top + 12 * i, 480.0, top + 10 + 12 * i), size) for i, text in enumerate(texts)]
    return Block(kind, page, (left, top, 480.0, top + 12 * len(texts) - 2), lines=lines)


@pytest.mark.parametrize(
    "text",
    [
        "puis",  # a lowercase word: the next line of a sentence
        "variable antimonotone et la borne inférieure de Fréchet •",
        "Comme",  # one grammatical word alone
        "Where",
        "Donc,",
        "Or",
        "~ with",  # a symbol first: a formula's piece
        "= 0,5 × S",
        "→ on obtient",
        "On note que",
        "Estimation de",  # ends waiting for its noun
        "Results and",
        "The development of",
    ],
)
def test_a_piece_of_a_sentence_is_no_section_name(text: str) -> None:
    assert sentence_fragment(text)


@pytest.mark.parametrize(
    "text",
    [
        "Introduction",
        "Market data",
        "Crédibilité partielle",
        "L’approche bayésienne",
        "« Best estimate » et marge de risque",
        "(a) Scope",
        "• 4.3 Bornes de Fréchet",
        "AY 1926-1965",
        "Remark 1",
        "What to rely on",
        "A",  # an index's letter
        "Exhibit A",
        "Data set A",
        "A.1 Data set A",
        "Démonstration.",
        "Projection of Expenses",
    ],
)
def test_a_section_name_is_no_fragment(text: str) -> None:
    assert not sentence_fragment(text)


@pytest.mark.parametrize("text", ["Thomas Mack", "J. Smith", "Marie-Claire de Vries", "Jean-Pierre Dupont"])
def test_names_are_bylines(text: str) -> None:
    assert byline(text)


@pytest.mark.parametrize(
    "text", ["Market data", "Thomas", "The Prediction Error", "Section 3", "Loss Reserving Methods 2"]
)
def test_other_short_titles_are_not_bylines(text: str) -> None:
    assert not byline(text)


def test_fragments_and_a_byline_become_text_and_declared_headings_stay() -> None:
    blocks = [
        _block("title", 1, 80, "The Prediction Error of Bornhuetter-Ferguson", size=18.0),
        _block("heading", 1, 110, "Thomas Mack", size=14.0),  # under the title, smaller, before the first paragraph
        _block(
            "text", 1, 140, "Abstract: Together with the Chain Ladder method, the BF method is one of the most popular."
        ),
        _block("heading", 2, 100, "Comme"),
        _block("heading", 2, 130, "~ with"),
        _block("heading", 2, 160, "puis"),
        _block("heading", 2, 190, "2.1 puis la suite"),  # numbered: the PDF numbers it
        _block("heading", 2, 220, "Comme un exemple"),  # an outline entry
        _block("heading", 3, 100, "Prime Bayésienne"),  # name-shaped, but not under the first page's title
    ]
    toc = [[1, "Comme un exemple", 2]]
    out = apply_outline(blocks, toc)
    kinds = {" ".join(line.text for line in b.lines): b.kind for b in out}
    assert kinds["Thomas Mack"] == "text"
    assert kinds["Comme"] == kinds["~ with"] == kinds["puis"] == "text"
    assert kinds["The Prediction Error of Bornhuetter-Ferguson"] == "title"
    assert kinds["2.1 puis la suite"] == kinds["Comme un exemple"] == kinds["Prime Bayésienne"] == "heading"


def test_a_title_printed_larger_under_a_school_name_is_no_byline() -> None:
    """The triangles report: "Master en Actuariat" (20.7 pt), then its title "Provisionnement Non Vie" (24.8 pt)."""
    blocks = [
        _block("heading", 1, 80, "Master en Actuariat", size=20.7),
        _block("heading", 1, 140, "Provisionnement Non Vie", size=24.8),
        _block("text", 1, 200, "Achour Salma", size=14.3),
    ]
    assert [b.kind for b in apply_outline(blocks, [])] == ["heading", "heading", "text"]


def test_a_labelled_line_no_block_holds_becomes_a_heading_before_the_text_below_it() -> None:
    """EIOPA's "Section 3: Assumptions", under the page's logo, was in no layout block."""
    blocks = [
        _block("picture", 9, 43),
        _block("heading", 9, 155, "Guideline 24 – Consistency of assumptions"),
        _block("list", 9, 179, "44. Insurance and reinsurance undertakings should ensure that assumptions"),
        _block("heading", 9, 300, "Guideline 24A – Materiality in assumptions setting"),
    ]
    lines = {9: [Line("Section 3: Assumptions", (85.0, 130.0, 190.0, 141.0), 11.0), *blocks[1].lines]}
    out = apply_outline(blocks, [], lambda page: lines.get(page, []))
    texts = [(b.kind, b.lines[0].text if b.lines else "") for b in out]
    assert texts[1] == ("heading", "Section 3: Assumptions")
    assert [t for _, t in texts].count("Guideline 24 – Consistency of assumptions") == 1


def test_a_topic_line_above_a_unit_heading_is_a_heading_and_a_sentence_there_is_not() -> None:
    blocks = [
        _block("heading", 13, 100, "Guideline 33 – Changes in expenses"),
        _block("text", 13, 120, "79. Insurance and reinsurance undertakings should ensure that assumptions hold."),
        _block("text", 13, 671, "Treatment of financial guarantees and contractual options"),
        _block("heading", 13, 695, "Guideline 35 – Charges for embedded options"),
        _block("text", 14, 100, "These are to be read together."),
        _block("heading", 14, 130, "Guideline 36 – Appropriateness of assumptions"),
        _block("text", 14, 160, "options charged to policyholders"),  # lowercase: a sentence's piece
        _block("heading", 14, 190, "Guideline 37 – Assumptions on policyholder behaviour"),
    ]
    out = apply_outline(blocks, [])
    kinds = {b.lines[0].text: b.kind for b in out}
    assert kinds["Treatment of financial guarantees and contractual options"] == "heading"
    assert kinds["These are to be read together."] == "text"  # a sentence: it ends with a stop
    assert kinds["options charged to policyholders"] == "text"
