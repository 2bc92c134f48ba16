"""A parsed table as the CSV or Excel bytes a user downloads (`Item.grid`, header row first).

Cells below the header that hold one figure alone are written as numbers, read the way the
answering code reads figures (`answering.numbers.extract_numbers`: "31 116" with narrow no-break
spaces, "1 234,5", "(1,577)" as -1577, "12 %" as 0.12), so that a spreadsheet sums a triangle at
once: Excel numeric cells, CSV with a dot decimal and no thousands separator. A cell of digit groups
split by spaces, each group after the first of three digits, is one figure even when its first group
is longer than usual ("7143 342", a space lost in print or OCR); two figures of two cells are never
joined. A dash alone ("—") and "not available" ("NA", "N/A") are empty cells. The Excel file keeps
the cells as printed on a second sheet, and on a third the caption, page, and the unit and scale
the caption or header states ("en milliers d'euros": 1000). The header row stays text
(development years are labels).

`pipeline.export_table` produces these bytes only after checking that the principal may read
the document. This module does not read the library.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Literal

from openpyxl import Workbook

from rag_core.answering.numbers import extract_numbers
from rag_core.models import Item
from rag_core.text import safe_cell

TableFormat = Literal["csv", "xlsx"]
PRINTED_SHEET = "as printed"
ABOUT_SHEET = "about"
_SCALES = (  # what a caption or header says of the figures' unit: (pattern, scale words)
    (
        re.compile(
            r"\bk\s?€|\bK€|\bkEUR\b|(?:en )?milliers? d['’]euros|\bthousands? (?:of )?(?:euros?|EUR|dollars?|USD)|"
            r"\b(?:EUR|USD|€|\$) ?(?:thousands?|000s?|'000)\b|\bin thousands\b|\ben milliers\b",
            re.I,
        ),
        1e3,
    ),
    (
        re.compile(
            r"\bM\s?€|\bMEUR\b|(?:en )?millions? d['’]euros|\bmillions? (?:of )?(?:euros?|EUR|dollars?|USD)|"
            r"\b(?:EUR|USD|€|\$) ?millions?\b|\bin millions\b|\ben millions\b",
            re.I,
        ),
        1e6,
    ),
)
_EMPTY_MARKS = {"—", "–", "…"}  # a lone "-" stays text: neutralised as a possible formula
_MISSING = {"NA", "N/A", "#N/A", "n/a", "N.A."}  # "not available" (R's and Excel's): an empty cell, not a word
_WRAPPERS = " ()"
# digit groups separated by spaces (plain, no-break, narrow no-break, thin), every group after the first
# of three digits: one figure whose first group may be longer than usual ("7143 342": a space the
# printer or the OCR lost), with an optional decimal part
_SPACE_GROUPED = re.compile(r"^([-−]?)(\d+)((?:[ \u00a0\u202f\u2009]\d{3})+)(?:[.,](\d+))?$")


def cell_number(text: str, language: str = "en") -> float | None:
    """The value of a cell that holds one figure and nothing else; None otherwise (text, empty, a dash)."""
    stripped = " ".join(text.split())
    if not stripped or stripped in _EMPTY_MARKS or stripped in _MISSING:
        return None
    grouped = _SPACE_GROUPED.match(stripped)
    if grouped:
        sign, first, rest, decimals = grouped.groups()
        value = float(first + "".join(rest.split()) + (f".{decimals}" if decimals else ""))
        return -value if sign else value
    numbers = extract_numbers(stripped, language)
    if len(numbers) != 1:
        return None
    number = numbers[0]
    if (stripped[: number.start] + stripped[number.end :]).strip(_WRAPPERS):
        return None  # words or a unit that is not a figure's around it
    return number.value


def table_scale(item: Item) -> tuple[str, float]:
    """The unit phrase and scale the table's caption or header row states ("en milliers d'euros":
    1000); ("", 1.0) when it states none. The exported figures are as printed, not multiplied."""
    header = " ".join(item.grid()[0]) if item.cells else ""
    for text in (item.caption, header):
        for pattern, scale in _SCALES:
            found = pattern.search(text or "")
            if found:
                return found.group(0), scale
    return "", 1.0


def _value(text: str, language: str) -> float | int | str | None:
    if " ".join(text.split()) in _EMPTY_MARKS | _MISSING:
        return None
    value = cell_number(text, language)
    if value is None:
        return safe_cell(text, numbers_allowed=True)
    return int(value) if value.is_integer() and abs(value) < 1e15 else value


def table_values(item: Item, language: str = "en") -> list[list[float | int | str | None]]:
    """The grid with the header row as text and every figure below it as a number."""
    header, *rows = item.grid()
    return [
        [safe_cell(text, numbers_allowed=True) for text in header],
        *[[_value(text, language) for text in row] for row in rows],
    ]


def table_bytes(item: Item, fmt: TableFormat, language: str = "en") -> bytes:
    # no cell may run as a formula (CSV injection); a plain negative number such as "-12" stays one
    grid = table_values(item, language)
    if fmt == "csv":
        buffer = io.StringIO()
        csv.writer(buffer).writerows([["" if v is None else v for v in row] for row in grid])
        return buffer.getvalue().encode("utf-8")
    book = Workbook()
    sheet = book.active
    sheet.title = "table"
    for row in grid:
        sheet.append(row)
    printed = book.create_sheet(PRINTED_SHEET)
    for texts in item.grid():
        printed.append([safe_cell(text, numbers_allowed=True) for text in texts])
    unit, scale = table_scale(item)
    about = book.create_sheet(ABOUT_SHEET)
    about.append(["caption", safe_cell(item.caption)])
    about.append(["page", item.page])
    about.append(["unit (as stated)", safe_cell(unit)])
    about.append(["scale", scale])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
