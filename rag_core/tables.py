"""A parsed table as a grid of cell texts, and as the CSV or Excel bytes a user downloads.

The façade (`pipeline.export_table`) produces these bytes only after checking that the
principal may read the document. The first row becomes the header when every cell of it is
filled and distinct, as the Inspect page shows it. This module does not read the library.
"""

from __future__ import annotations

import csv
import io
from typing import Literal

from openpyxl import Workbook

from rag_core.models import Item

TableFormat = Literal["csv", "xlsx"]


def table_grid(item: Item) -> list[list[str]]:
    """Rows of cell texts (empty string for an empty cell), the header row first."""
    n_rows = max([item.n_rows] + [c.row + 1 for c in item.cells])
    n_cols = max([item.n_cols] + [c.col + 1 for c in item.cells])
    grid = [["" for _ in range(n_cols)] for _ in range(n_rows)]
    for cell in item.cells:
        grid[cell.row][cell.col] = cell.text
    if n_rows > 1 and all(grid[0]) and len(set(grid[0])) == n_cols:
        return grid
    return [[str(i + 1) for i in range(n_cols)], *grid]


def _safe(text: str) -> str:
    # a spreadsheet must not run a cell as a formula (CSV injection): "-12" stays a number
    if text[:1] in ("=", "+", "@") or (text[:1] == "-" and not text[1:2].isdigit()):
        return "'" + text
    return text


def table_bytes(item: Item, fmt: TableFormat) -> bytes:
    grid = [[_safe(text) for text in row] for row in table_grid(item)]
    if fmt == "csv":
        buffer = io.StringIO()
        csv.writer(buffer).writerows(grid)
        return buffer.getvalue().encode("utf-8")
    book = Workbook()
    sheet = book.active
    sheet.title = "table"
    for row in grid:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
