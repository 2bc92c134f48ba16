"""A table of words is read row by row, and a row an answer quotes for its words shows under its header.

A handbook page with a ruled table whose cells are words throughout (stages, requirements, deadlines)
is written here with PyMuPDF and ingested by the real offline pipeline. Its Markdown once took the
first three rows for a header of three rows, so the passage read "| Stage - Coursework - Qualifying
examination | Requirement - ... |": two stages merged into the column names; and an answer that quoted
a row showed a bare "| a | b |" line. The question is written for this test and names no row label.
"""

from __future__ import annotations

from pathlib import Path

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from tests.answer_pdfs import MILESTONES, milestones_table

LOCAL = Principal.local_operator()


def test_a_table_of_words_is_read_by_row_and_a_quoted_row_under_its_header(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    (result,) = pipeline.ingest([milestones_table(tmp_path / "handbook.pdf")], settings, principal=LOCAL)
    assert result.status == "ingested", result.message
    chunks = pipeline.load_chunks(result.doc_id, settings, principal=LOCAL)
    (table,) = [i for p in chunks.parents for i in p.items if i.kind == "table"]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table.text.splitlines()]
    assert [rows[0], *rows[2:]] == [list(row) for row in MILESTONES], table.text  # one line a row, one header

    a = pipeline.ask("What must the oral defence of the proposal be held before?", settings, principal=LOCAL)
    assert a.mode == "extractive"
    assert not [p.text for p in a.paragraphs if p.text.lstrip().startswith("|")], [p.text for p in a.paragraphs]
    shown = [p for p in a.paragraphs if p.table is not None]
    assert shown, [p.text for p in a.paragraphs]
    assert [c.text for c in shown[0].table.header] == list(MILESTONES[0])
    assert [[c.text for c in row] for row in shown[0].table.rows] == [list(MILESTONES[2])]
    assert all(c.box is not None for c in shown[0].table.rows[0])  # each cell opens the viewer on itself
    assert shown[0].table.source_id in {s.id for s in a.sources}  # the table is cited
