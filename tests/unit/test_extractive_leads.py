"""What an extractive answer leads with (`rag_core.answering.extractive`): never a passage or a table cell
that only says back the question's own words (a chart's source note the question quotes, a heading it
names); such a passage may follow, for its citation of the place. Parents built by hand."""

from __future__ import annotations

import hashlib

from rag_core.answering.extractive import extractive_paragraphs
from rag_core.models import HighlightBox, Item
from tests.answering_support import document, grid_cells, retrieved

DOC = document(hashlib.sha256(b"seniors-online.pdf").hexdigest(), "Older adults and technology use", "en")
QUESTION = (
    "How many seniors have broadband at home in the Pew Research Center's Internet Project "
    "July 18-September 30, 2013 tracking survey?"
)
SOURCE_NOTE = "Pew Research Center's Internet Project July 18-September 30, 2013 tracking survey."
ANSWER = "Today, 47% of seniors say they have a high-speed broadband connection at home."


def test_a_sentence_that_only_says_back_the_question_does_not_lead() -> None:
    hits = [
        retrieved(1, [SOURCE_NOTE], ["Methods"], [3], rank=1, doc=DOC),
        retrieved(2, [ANSWER], ["Internet adoption"], [8], rank=2, doc=DOC),
    ]
    paragraphs = extractive_paragraphs(hits, QUESTION, ["s1", "s2"], language="en")
    assert paragraphs and paragraphs[0].text == ANSWER, [p.text for p in paragraphs]


def test_a_table_row_whose_named_cell_only_says_back_the_question_does_not_lead() -> None:
    # a chart's source note the layout read as a table: its row and column are named by the question,
    # and where they cross it says nothing the question does not
    grid = [
        ["Age", "Broadband at home"],
        ["Pew Research Center's Internet Project July 18-September 30,", "2013 tracking survey."],
    ]
    table = Item(
        ref="#/tables/0",
        kind="table",
        caption="",
        page=8,
        boxes=[HighlightBox(page=8, x0=72, y0=300, x1=470, y1=340)],
        text="\n".join("| " + " | ".join(row) + " |" for row in grid),
        cells=grid_cells(grid, 8),
        n_rows=2,
        n_cols=2,
    )
    hits = [
        retrieved(1, [ANSWER], ["Internet adoption"], [8], rank=1, doc=DOC),
        retrieved(
            2,
            ["The chart shows broadband adoption by age."],
            ["Internet adoption"],
            [8],
            rank=2,
            doc=DOC,
            items=[table],
        ),
    ]
    paragraphs = extractive_paragraphs(hits, QUESTION, ["s1", "s2"], language="en")
    assert paragraphs[0].table is None and paragraphs[0].text == ANSWER, [p.text for p in paragraphs]
    assert any(p.table is not None for p in paragraphs[1:])  # the row still follows, citing the chart
