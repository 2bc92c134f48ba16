"""The reported-citations file: one JSON line per report, its fields in a fixed order."""

from __future__ import annotations

import json
from pathlib import Path

from rag_core.evaluation.citation_reports import read_reports, report_citation


def test_report_file_format(tmp_path: Path) -> None:
    report_citation(tmp_path, question="q?", language="en", source_id="s", pdf="a.pdf", pages=[4, 2, 4])
    lines = read_reports(tmp_path).decode().splitlines()
    record = json.loads(lines[0])
    assert list(record)[:8] == ["id", "pdf", "question", "language", "type", "pages", "answer", "quote"]
    assert record["pages"] == [2, 4]
