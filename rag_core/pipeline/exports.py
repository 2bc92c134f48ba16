"""A parsed table as the CSV or Excel bytes a user downloads (`Item.grid`, header row first).

`pipeline.export_table` produces these bytes only after checking that the principal may read
the document. This module does not read the library.
"""

from __future__ import annotations

import csv
import io
from typing import Literal

from openpyxl import Workbook

from rag_core.models import Item
from rag_core.text import safe_cell

TableFormat = Literal["csv", "xlsx"]


def table_bytes(item: Item, fmt: TableFormat) -> bytes:
    # no cell may run as a formula (CSV injection); a plain negative number such as "-12" stays one
    grid = [[safe_cell(text, numbers_allowed=True) for text in row] for row in item.grid()]
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
