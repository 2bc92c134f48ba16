"""The number marks of an answer on the Ask page (AppTest): inline marks, reasons, and the cell a click opens.

The pipeline is replaced as in tests/ui/test_apptest.py; the answer carries one number of each mark.
"""

from __future__ import annotations

import pytest

from rag_core import pipeline
from rag_core.models import Answer, HighlightBox, NumberLocation, NumberTrace, Paragraph
from tests.fakes import replace
from tests.ui.apptest_support import DOC_ID, SOURCE, run_app, viewer_args

CELL_BOX = HighlightBox(page=3, x0=250, y0=300, x1=320, y1=318)
TEXT = "Paid 2 020 at 24 months; factor 1,542; total 3 970; reserve 4 567."


def _trace(text: str, status: str, reason: str = "", location: NumberLocation | None = None) -> NumberTrace:
    start = TEXT.index(text)
    return NumberTrace(
        text=text, start=start, end=start + len(text), value=0.0, status=status, reason=reason, location=location
    )


@pytest.fixture
def numbered(fake_pipeline: dict, monkeypatch: pytest.MonkeyPatch) -> dict:
    cell = NumberLocation(source_id=f"{SOURCE.id}#/tables/0", kind="cell", text="2 020", row=2, col=2, boxes=[CELL_BOX])
    numbers = [
        _trace("2 020", "quoted", location=cell),
        _trace("1,542", "computed", "facteur de développement de 1 310 ; 2 020 = 1.541985 (vérifié)"),
        _trace("3 970", "mismatch", "somme de 1 850 ; 2 020 donne 3 870, pas 3 970"),
        _trace("4 567", "unsupported", "absent des sources citées et d'aucun calcul déclaré"),
    ]

    def ask(question, settings, conversation_id=None, collections=None, doc_ids=None, *, principal):
        return Answer(
            question=question,
            mode="llm",
            sources=[SOURCE],
            unsupported_numbers=1,
            mismatched_numbers=1,
            paragraphs=[Paragraph(text=TEXT, source_ids=[SOURCE.id], numbers=numbers)],
        )

    replace(monkeypatch, pipeline, "ask", ask)
    return fake_pipeline


def test_each_number_has_its_mark_and_a_quoted_number_opens_its_cell(numbered: dict) -> None:
    at = run_app("views/ask.py")
    at.chat_input(key="ask_input").set_value("Paiements ?").run()
    assert not at.exception
    paragraph = next(m.value for m in at.markdown if "Paid" in m.value)
    for mark in (
        ":green-background[2 020 ✓]",
        ":blue-background[1,542 =]",
        ":orange-background[3 970 ≠]",
        ":red-background[4 567 ?]",
    ):
        assert mark in paragraph, paragraph
    captions = " ".join(c.value for c in at.caption)
    assert "calculé (vérifié)" in captions and "le calcul ne correspond pas" in captions and "non étayé" in captions
    assert "3 870" in captions and "absent des sources" in captions
    assert any("1 non étayé" in w.value and "1 calcul" in w.value for w in at.warning)

    chip = next(b for b in at.button if b.label.startswith("2 020 · cellule L3 C3"))
    chip.click().run()
    assert not at.exception
    args = viewer_args(at)
    assert numbered["page_pdf"][-1] == (DOC_ID, [3])
    strong = [a for a in args["annotations"] if a["id"].startswith("cite-")]
    assert strong == [
        {
            "id": "cite-0",
            "page": 1,
            "x": 250,
            "y": 300,
            "width": 70,
            "height": 18,
            "color": strong[0]["color"],
            "border": "solid",
        }
    ]
    assert args["scroll_to_annotation"] == 1


def test_only_a_figure_checked_against_a_cell_carries_a_check_mark() -> None:
    from rag_app.ui.number_marks import marked_text

    text = "Guideline 75 of 2019, on page 12 and dated 31/12/2019, sets the factor at 1.004 (stated as 0.5 elsewhere)."

    def traced(number: str, kind: str | None) -> NumberTrace:
        start = text.index(number)
        location = (
            NumberLocation(source_id=SOURCE.id, kind=kind, text=number, row=0, col=1, boxes=[CELL_BOX])
            if kind
            else None
        )
        return NumberTrace(
            text=number, start=start, end=start + len(number), value=0.0, status="quoted", location=location
        )

    numbers = [
        traced("75", "cell"),
        traced("2019", "cell"),
        traced("12", "cell"),
        traced("31", "cell"),
        traced("1.004", "cell"),
        traced("0.5", "sentence"),
    ]
    shown = marked_text(Paragraph(text=text, source_ids=[SOURCE.id], numbers=numbers))
    assert shown.count("✓") == 1 and ":green-background[1\\.004 ✓]" in shown, shown


def test_the_lines_of_a_quoted_list_are_shown_as_lines() -> None:
    from rag_app.ui.number_marks import marked_text

    text = "144. Two possible methods are:\n- consideration of the number of claims;\n- case-by-case estimation."
    shown = marked_text(Paragraph(text=text, source_ids=[SOURCE.id]))
    # each item on a line of its own (a hard break), its dash shown as written, not as a markdown list
    assert shown.split("  \n") == ["144\\. Two possible methods are\\:", "\\- consideration of the number of claims;",
                                   "\\- case-by-case estimation."]  # fmt: skip
