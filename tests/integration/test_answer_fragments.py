"""A table that the layout set as lines of text is quoted with its rows, never as one fragment.

A brochure's schedule (a header row "Programme Full-Time", then each programme and its duration, one
name cut over two lines) is written here with PyMuPDF as lines of text without rules or columns, as
brochures print it, and ingested by the real offline pipeline. Asked which programme lasts longest,
the answer once quoted "Programme Full-Time" alone, or glued to the sentence before it: words that
say nothing. The question is written for this test.
"""

from __future__ import annotations

from pathlib import Path

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from tests.answer_pdfs import SCHEDULE_ROWS, schedule_lines

LOCAL = Principal.local_operator()


def test_a_schedule_set_as_lines_is_answered_with_its_rows(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    (result,) = pipeline.ingest([schedule_lines(tmp_path / "brochure.pdf")], settings, principal=LOCAL)
    assert result.status == "ingested", result.message
    lines = [
        x.strip()
        for c in pipeline.load_chunks(result.doc_id, settings, principal=LOCAL).children
        for x in c.text.splitlines()
    ]
    assert [r for r in SCHEDULE_ROWS if r in lines] == list(SCHEDULE_ROWS)  # the premise: one line a row
    a = pipeline.ask(
        "Which programme has the longest duration among the leadership programmes?", settings, principal=LOCAL
    )
    assert a.mode == "extractive"
    quoting = [p.text for p in a.paragraphs if SCHEDULE_ROWS[0] in p.text]
    assert quoting, [p.text for p in a.paragraphs]
    # the header row with the rows under it, one a line; never glued to a sentence
    assert all(p.splitlines()[: len(SCHEDULE_ROWS)] == list(SCHEDULE_ROWS) for p in quoting), quoting
