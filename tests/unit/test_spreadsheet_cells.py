"""Spreadsheet-safe cells (OWASP CSV injection): table exports (CSV and Excel) and the audit CSV
never hand a spreadsheet a formula, also after leading Unicode spaces and in full-width forms,
while a numeric column keeps its plain negative numbers."""

from __future__ import annotations

import csv
import io

import pytest
from openpyxl import load_workbook

from rag_core.access import to_csv
from rag_core.models import Item, TableCell
from rag_core.pipeline.exports import table_bytes
from rag_core.text import safe_cell

INJECTIONS = [
    "=1+1",
    "+1+1",
    "-1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1)",
    "\t=1",
    "\r=1",
    " =1+1",
    "\u00a0=1+1",
    "\u2003+1",
    "\u200b=1",
    '＝HYPERLINK("http://x")',
    "＋1",
    "－1+1",
    "＠SUM(A1)",
    " -2+3",
    "-",
]


@pytest.mark.parametrize("text", INJECTIONS)
def test_a_cell_that_could_run_as_a_formula_is_neutralised(text: str) -> None:
    assert safe_cell(text) == "'" + text
    assert safe_cell(text, numbers_allowed=True) == "'" + text


@pytest.mark.parametrize("text", ["-12", "-1 200", "-1\u00a0310,5", "-3.5%", "-0,25"])
def test_a_plain_negative_number_stays_a_number_where_numbers_are_allowed(text: str) -> None:
    assert safe_cell(text, numbers_allowed=True) == text
    assert safe_cell(text) == "'" + text  # a text column (the audit trail) never starts with "-"


@pytest.mark.parametrize("text", ["12", "board", "Réserve - 2027", "", "a=b", "'=1"])
def test_harmless_cells_are_kept(text: str) -> None:
    assert safe_cell(text) == text and safe_cell(text, numbers_allowed=True) == text


def _table(cells: list[str]) -> Item:
    rows = [["label", "value"], *[[c, "-12"] for c in cells]]
    return Item(
        kind="table",
        ref="#/tables/0",
        page=1,
        boxes=[],
        n_rows=len(rows),
        n_cols=2,
        cells=[TableCell(row=r, col=c, text=text) for r, row in enumerate(rows) for c, text in enumerate(row)],
    )


def test_table_exports_and_the_audit_csv_neutralise_every_injection() -> None:
    rows = list(csv.reader(io.StringIO(table_bytes(_table(INJECTIONS), "csv").decode("utf-8"))))
    assert [r[0] for r in rows[1:]] == ["'" + t for t in INJECTIONS]
    assert {r[1] for r in rows[1:]} == {"-12"}  # the numeric column keeps its negative numbers
    sheet = load_workbook(io.BytesIO(table_bytes(_table(INJECTIONS), "xlsx"))).active
    assert [c.value for c in sheet["A"]][1:] == ["'" + t for t in INJECTIONS]
    assert all(c.data_type != "f" for c in sheet["A"])
    audit = to_csv(
        [{"at": "2026-12-01", "event": "search", "user": "x", "query": t, "file_name": t} for t in INJECTIONS]
    ).decode("utf-8-sig")
    parsed = list(csv.DictReader(io.StringIO(audit)))
    assert [r["file_name"] for r in parsed] == ["'" + t for t in INJECTIONS]
    assert all(r["details"].lstrip()[:1] not in "=+-@" for r in parsed)
