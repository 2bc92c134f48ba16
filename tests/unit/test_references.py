"""Numbered parts a question names (`rag_core.understanding.references`), on questions and headings written here."""

from __future__ import annotations

import pytest

from rag_core.understanding.references import Reference, named, names, opening


@pytest.mark.parametrize(
    ("question", "found"),
    [
        ("Que dit la ligne directrice 37C ?", [("guideline", "37c", "ligne directrice 37C")]),
        ("What does Guideline 12 require of undertakings?", [("guideline", "12", "Guideline 12")]),
        ("Que prévoit l'orientation 5 ?", [("guideline", "5", "orientation 5")]),
        ("Summarise Annex IV and Article 58.", [("annex", "iv", "Annex IV"), ("article", "58", "Article 58")]),
        ("What does paragraph 89 say about premiums?", [("paragraph", "89", "paragraph 89")]),
        ("Article 58 and article 58 again", [("article", "58", "Article 58")]),  # each part once
    ],
)
def test_the_parts_a_question_names(question: str, found: list[tuple[str, str, str]]) -> None:
    assert [(r.kind, r.label, r.mention) for r in named(question)] == found


@pytest.mark.parametrize(
    "question",
    [
        "What was the combined ratio in 2017?",  # a year is no part
        "Which section 3.2 results are shown?",  # a dotted number is not read as section 3
        "Is there an article iv in lower case?",  # a Roman label is written in capitals
        "How many guidelines are there?",
    ],
)
def test_no_part_where_none_is_named(question: str) -> None:
    assert named(question) == ()


def test_a_heading_opens_with_its_part_and_a_label_is_read_whole() -> None:
    assert opening("Guideline 37C – Option to pay additional premiums") == ("guideline", "37c")
    assert opening("Orientation 37C – Option") == ("guideline", "37c")  # French and English kinds are one
    assert opening("- Article 12") == ("article", "12")
    assert opening("Projection of Expenses") is None
    asked = named("What does Guideline 37 say?")
    assert names(["Section 2", "Guideline 37 – Contractual options"], "", asked)
    assert not names(["Section 2", "Guideline 37C – Option to pay"], "", asked)  # 37 is not 37C
    assert not names(["Guideline 37 – X"], "", ())


def test_a_paragraph_is_found_by_the_number_that_opens_its_line() -> None:
    asked = named("What does paragraph 89 say?")
    assert names([], "- 88. Something else.\n- 89. Insurance undertakings should model options.", asked)
    assert not names([], "The figure was 89 in 2017.\n- 90. Another.", asked)  # a number inside a line
    assert not names([], "- 890. Far away.\n- 9. Close.", asked)
    assert Reference("paragraph", "89", "paragraph 89") in asked
