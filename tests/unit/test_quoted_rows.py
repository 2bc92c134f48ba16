"""A table row an extractive answer quotes for its words is shown under its table's header
(`rag_core.answering.table_rows.quoted_row_paragraph`), never as a bare "| a | b |" line whose values
say nothing without their columns. Parents and tables built by hand; the question names no row label
(that path, `table_paragraphs`, is tested elsewhere), so the row is chosen as a sentence."""

from __future__ import annotations

import hashlib

from rag_core.answering.extractive import extractive_paragraphs
from rag_core.answering.table_rows import quoted_row, quoted_row_paragraph
from rag_core.models import HighlightBox, Item
from tests.answering_support import document, grid_cells, retrieved

DOC = document(hashlib.sha256(b"programme-handbook.pdf").hexdigest(), "Graduate programme handbook", "en")
GRID = [
    ["Stage", "Requirement", "Deadline"],
    ["Coursework", "Complete 30 modular credits of graded modules", "Month 24"],
    ["Qualifying examination", "Oral defence of the thesis proposal before the advisory committee", "Month 24"],
    ["Dissertation", "Submission of the thesis for examination", "Month 60"],
]
MARKDOWN = "\n".join(
    [
        "| Stage | Requirement | Deadline |",
        "|---|---|---|",
        "| Coursework | Complete 30 modular credits of graded modules | Month 24 |",
        "| Qualifying examination | Oral defence of the thesis proposal before the advisory committee | Month 24 |",
        "| Dissertation | Submission of the thesis for examination | Month 60 |",
    ]
)
TABLE = Item(
    ref="#/tables/0",
    kind="table",
    caption="Table 3: Milestones of the programme",
    page=7,
    boxes=[HighlightBox(page=7, x0=72, y0=300, x1=342, y1=400)],
    text=MARKDOWN,
    cells=grid_cells(GRID, 7),
    n_rows=4,
    n_cols=3,
)
INTRO = "Each student follows the milestones below, reviewed by the graduate office every semester."


def _hits() -> list:
    return [retrieved(1, [INTRO, MARKDOWN], ["Milestones"], [7], rank=1, items=[TABLE], doc=DOC)]


def test_a_row_chosen_for_its_words_is_shown_under_its_header() -> None:
    question = "What must the oral defence of the thesis proposal be held before?"
    paragraphs = extractive_paragraphs(_hits(), question, ["s1"], language="en")
    assert not [p.text for p in paragraphs if p.text.lstrip().startswith("|")], [p.text for p in paragraphs]
    (shown,) = [p for p in paragraphs if p.table is not None]
    assert [c.text for c in shown.table.header] == GRID[0]
    assert [[c.text for c in row] for row in shown.table.rows] == [GRID[2]]
    assert all(c.box is not None and c.box.page == 7 for c in shown.table.rows[0])  # a click opens the cells
    # the row reads under its columns, and the quote is the document's own line (the highlight finds it)
    assert "Requirement: Oral defence of the thesis proposal before the advisory committee" in shown.text
    assert shown.quote in MARKDOWN.splitlines()
    assert shown.source_ids == [shown.table.source_id] and shown.table.source_id.endswith("#/tables/0")


def test_two_rows_of_one_table_read_as_one_excerpt() -> None:
    question = "Which requirements concern the thesis: its proposal and its submission for examination?"
    paragraphs = extractive_paragraphs(_hits(), question, ["s1"], language="en")
    excerpts = [p for p in paragraphs if p.table is not None]
    assert len(excerpts) == 1, [p.text for p in paragraphs]
    assert sorted(row[0].text for row in excerpts[0].table.rows) == ["Dissertation", "Qualifying examination"]


def test_only_a_body_row_of_a_held_table_is_matched() -> None:
    parent = _hits()[0].parent
    lines = MARKDOWN.splitlines()
    assert quoted_row(parent, lines[0]) is None  # the header row is no body row
    assert quoted_row(parent, lines[1]) is None  # the delimiter row
    assert quoted_row(parent, "| Coursework | Complete 40 modular credits | Month 24 |") is None  # not its row
    assert quoted_row(parent, INTRO) is None
    found = quoted_row(parent, "|Dissertation|Submission of the thesis for examination|Month 60|")
    assert found is not None and found[1] == 3  # spacing is not content
    no_cells = parent.model_copy(update={"items": [TABLE.model_copy(update={"cells": []})]})
    assert quoted_row_paragraph(no_cells, lines[4:]) is None  # a table without its cells keeps the line
    assert quoted_row_paragraph(parent, [lines[3], INTRO]) is None  # a row and prose stay prose
    both = quoted_row_paragraph(parent, lines[3:5])
    assert both is not None and both.table is not None and both.table.matched == [(2, 0), (3, 0)]


def test_a_row_the_question_names_is_shown_once() -> None:
    # "coursework" names the row's label (the table-rows path shows it); the same row is also the
    # sentence that answers: one excerpt, not the row twice
    question = "How many modular credits of graded modules does the coursework require?"
    paragraphs = extractive_paragraphs(_hits(), question, ["s1"], language="en")
    showing = [p for p in paragraphs if p.table is not None and any(r[0].text == "Coursework" for r in p.table.rows)]
    assert len(showing) == 1, [p.text for p in paragraphs]


def test_a_first_row_of_figures_is_no_header() -> None:
    # a table printed without a header: its first row is data, so its figures name no column
    grid = [["3", "4909", "0.91263", "5379"], ["10", "344", "0.06922", "4970"]]
    markdown = "| 3 | 4909 | 0.91263 | 5379 |\n|---|---|---|---|\n| 10 | 344 | 0.06922 | 4970 |"
    table = TABLE.model_copy(update={"text": markdown, "cells": grid_cells(grid, 7), "n_rows": 2, "n_cols": 4})
    parent = _hits()[0].parent.model_copy(update={"items": [table]})
    shown = quoted_row_paragraph(parent, [markdown.splitlines()[2]])
    assert shown is not None and shown.table is not None and shown.table.header == []
    assert shown.text == "10 — 344; 0.06922; 4970"
    # development periods heading the columns are a header
    periods = [["", "12", "24", "36"], ["2019", "1 200", "1 850", "1 990"]]
    markdown = "|  | 12 | 24 | 36 |\n|---|---|---|---|\n| 2019 | 1 200 | 1 850 | 1 990 |"
    table = TABLE.model_copy(update={"text": markdown, "cells": grid_cells(periods, 7), "n_rows": 2, "n_cols": 4})
    parent = parent.model_copy(update={"items": [table]})
    shown = quoted_row_paragraph(parent, [markdown.splitlines()[2]])
    assert shown is not None and shown.text == "2019 — 12: 1 200; 24: 1 850; 36: 1 990"
