"""Table exports write figures as numbers (`pipeline.exports`): French and English forms read as
the answering code reads them, Excel numeric cells and a CSV with a dot decimal and no thousands
separator, read back by pandas and openpyxl as numbers, so that a column sums at once; the cells
as printed stay available on a second sheet."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from openpyxl import load_workbook

from rag_core.models import Item, TableCell
from rag_core.pipeline.exports import PRINTED_SHEET, cell_number, table_bytes, table_scale

NNBSP = "\u202f"


@pytest.mark.parametrize(
    ("text", "language", "value"),
    [
        (f"31{NNBSP}116", "fr", 31116),
        ("31\u00a0116", "en", 31116),
        ("1 234,5", "fr", 1234.5),
        ("1,234.5", "en", 1234.5),
        ("(1,577)", "en", -1577),
        ("(1 577)", "fr", -1577),
        ("12 %", "fr", 0.12),
        ("-12", "en", -12),
        ("0,25", "fr", 0.25),
    ],
)
def test_a_cell_holding_one_figure_has_its_value(text: str, language: str, value: float) -> None:
    assert cell_number(text, language) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("7143 342", 7143342),  # a thousands space lost in print or OCR: groups after the first of three digits
        ("7 143 342", 7143342),
        (f"7143{NNBSP}342,5", 7143342.5),
        ("12345\u00a0678", 12345678),
        ("-7143 342", -7143342),
    ],
)
def test_digit_groups_split_by_spaces_are_one_figure(text: str, value: float) -> None:
    assert cell_number(text, "fr") == pytest.approx(value)
    assert cell_number(text, "en") == pytest.approx(value)


@pytest.mark.parametrize("text", ["7143 3421", "2 3", "2014 15", "1 2 3"])
def test_groups_not_of_three_digits_are_not_joined(text: str) -> None:
    assert cell_number(text, "fr") is None


def test_two_figures_in_adjacent_cells_stay_two_and_na_is_empty() -> None:
    rows = [["", "1", "2", "3"], ["2005", "7143", "342", "NA"]]
    cells = [TableCell(row=r, col=c, text=t) for r, row in enumerate(rows) for c, t in enumerate(row) if t]
    item = Item(kind="table", ref="#/tables/4", page=1, boxes=[], n_rows=2, n_cols=4, cells=cells)
    frame = pd.read_csv(io.StringIO(table_bytes(item, "csv", "fr").decode("utf-8")))
    assert frame.iloc[0].tolist()[:3] == [2005, 7143, 342] and pd.isna(frame.iloc[0, 3])
    sheet = load_workbook(io.BytesIO(table_bytes(item, "xlsx", "fr")))["table"]
    assert [c.value for c in sheet[2]] == [2005, 7143, 342, None]


@pytest.mark.parametrize("text", ["—", "", "Total", "2015-2020", "n = 5", "1 200 et 3 400", "S1", "NA", "N/A"])
def test_a_cell_that_is_not_one_figure_has_no_value(text: str) -> None:
    assert cell_number(text, "fr") is None


def _triangle() -> Item:
    rows = [
        ["Année", "12 mois", "24 mois"],
        ["2021", f"1{NNBSP}200", f"1{NNBSP}850"],
        ["2022", f"1{NNBSP}310,5", "—"],
        ["Total", f"2{NNBSP}510,5", f"1{NNBSP}850"],
    ]
    cells = [TableCell(row=r, col=c, text=t) for r, row in enumerate(rows) for c, t in enumerate(row)]
    return Item(kind="table", ref="#/tables/0", page=1, boxes=[], n_rows=4, n_cols=3, cells=cells)


def test_csv_export_is_read_by_pandas_as_numbers_and_sums_to_the_printed_total() -> None:
    data = table_bytes(_triangle(), "csv", "fr").decode("utf-8")
    assert "1310.5" in data and NNBSP not in data.split("\n", 1)[1]
    frame = pd.read_csv(io.StringIO(data))
    assert list(frame.columns) == ["Année", "12 mois", "24 mois"]
    assert frame["12 mois"].dtype.kind == "f" and frame["24 mois"].isna().tolist() == [False, True, False]
    body = frame[frame["Année"] != "Total"]
    assert body["12 mois"].sum() == pytest.approx(frame.loc[frame["Année"] == "Total", "12 mois"].item())


def test_xlsx_export_has_numeric_cells_and_the_printed_text() -> None:
    book = load_workbook(io.BytesIO(table_bytes(_triangle(), "xlsx", "fr")))
    sheet = book["table"]
    assert [c.value for c in sheet[2]] == [2021, 1200, 1850]
    assert all(c.data_type == "n" for c in sheet[3][1:2]) and sheet["C3"].value is None
    assert sheet["B2"].value + sheet["B3"].value == pytest.approx(sheet["B4"].value)
    assert [c.value for c in book[PRINTED_SHEET][3]] == ["2022", f"1{NNBSP}310,5", "—"]
    frame = pd.read_excel(io.BytesIO(table_bytes(_triangle(), "xlsx", "fr")), sheet_name="table")
    assert frame["12 mois"].iloc[:2].sum() == pytest.approx(frame["12 mois"].iloc[2])


def test_a_triangle_header_with_an_empty_corner_is_its_header_not_data() -> None:
    rows = [["", "1", "2", "3"], ["2019", "100", "150", "160"], ["2020", "110", "170", ""], ["2021", "120", "", ""]]
    cells = [TableCell(row=r, col=c, text=t) for r, row in enumerate(rows) for c, t in enumerate(row) if t]
    item = Item(kind="table", ref="#/tables/1", page=1, boxes=[], n_rows=4, n_cols=4, cells=cells)
    assert item.grid() == rows  # no synthetic "1 2 3 4" above the development years
    frame = pd.read_csv(io.StringIO(table_bytes(item, "csv").decode("utf-8")))
    assert list(frame.columns)[1:] == ["1", "2", "3"] and frame["1"].sum() == 330


def test_a_table_without_a_header_row_gets_column_numbers() -> None:
    rows = [["", "x", "y"], ["", "2", "3"]]  # an empty corner, but no row labels under it
    cells = [TableCell(row=r, col=c, text=t) for r, row in enumerate(rows) for c, t in enumerate(row) if t]
    item = Item(kind="table", ref="#/tables/2", page=1, boxes=[], n_rows=2, n_cols=3, cells=cells)
    assert item.grid()[0] == ["1", "2", "3"]


def test_the_unit_and_scale_stated_by_the_caption_or_header_are_exported() -> None:
    item = _triangle().model_copy(update={"caption": "Tableau 3 : règlements cumulés (en milliers d'euros)"})
    assert table_scale(item) == ("en milliers d'euros", 1000.0)
    about = load_workbook(io.BytesIO(table_bytes(item, "xlsx", "fr")))["about"]
    assert {row[0].value: row[1].value for row in about.iter_rows()}["scale"] == 1000
    header = [["Year", "Paid (EUR million)"], ["2021", "12.5"], ["2022", "13.1"]]
    cells = [TableCell(row=r, col=c, text=t) for r, row in enumerate(header) for c, t in enumerate(row)]
    paid = Item(kind="table", ref="#/tables/3", page=2, boxes=[], n_rows=3, n_cols=2, cells=cells)
    assert table_scale(paid) == ("EUR million", 1e6)
    assert table_scale(_triangle()) == ("", 1.0)
