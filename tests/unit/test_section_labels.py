"""A citation's section label: the heading path the reader recognises, shortened in its middle
(never cut at its end, which would lose the guideline's title or number)."""

from __future__ import annotations

from rag_core.citations import section_label

GUIDELINE = "Guideline 69 – Methods to calculate outstanding reported claims provision"


def test_a_short_path_is_shown_whole() -> None:
    assert section_label(["Section 4: Methodologies", GUIDELINE]) == f"Section 4: Methodologies › {GUIDELINE}"


def test_a_long_path_drops_its_middle_headings_first() -> None:
    path = ["Section 4: Methodologies to calculate technical provisions", "Calculation of claims provisions", GUIDELINE]
    label = section_label(path, limit=140)
    assert label == f"Section 4: Methodologies to calculate technical provisions › … › {GUIDELINE}"


def test_a_heading_too_long_for_the_card_keeps_its_start_and_its_end() -> None:
    label = section_label(["Part A", GUIDELINE], limit=40)
    assert len(label) <= 40 and label.startswith("Guideline 69 – ") and label.endswith("provision") and "…" in label


def test_no_heading_gives_an_empty_label() -> None:
    assert section_label([]) == "" and section_label(["  "]) == ""
