"""Tables of the text layer: the layout model's grid filled with the page's whole words.

`table_block` takes one "table" box of pymupdf4llm's layout (its grid of cell boxes), reads
the page's words and horizontal rules inside it (in the page's displayed coordinates, so
that rotated pages work) and builds the cells with `table_structure.build_table`. Tables
read from pictures are `table_images`' job.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import replace

import pymupdf

from rag_core.parsing.document_builder import CONTENTS_KIND, Block
from rag_core.parsing.layout_text import BBox, clamp_bbox
from rag_core.parsing.table_structure import Rule, Table, build_table
from rag_core.parsing.table_words import Word

SOURCE_TEXT = "text layer"
_RULE_MAX_THICKNESS_PT = 2.0


def table_block(page: pymupdf.Page, page_no: int, bbox: BBox, table: dict, width: float, height: float) -> Block | None:
    """A table Block from the layout's grid, or None when the layout gave no grid. A contents page
    or a list of figures read as a table is kept with its grid but as a CONTENTS_KIND block."""
    cells, rows, cols = table.get("cells"), table.get("row_count") or 0, table.get("col_count") or 0
    if not cells or not rows or not cols:
        return None
    col_edges, row_edges = _grid_edges(cells, rows, cols)
    if len(col_edges) < 2 or len(row_edges) < 2:
        return None
    area = pymupdf.Rect(bbox)
    words = page_words(page, area)
    built = build_table(words, col_edges, row_edges, page_rules(page, area), bbox)
    block = table_from_structure(built, page_no, bbox, width, height, SOURCE_TEXT)
    if contents_list(block):  # navigation, not data: Docling's "document_index", never a data table
        block.kind = CONTENTS_KIND
    return block


MIN_CONTENTS_ROWS = 3
CONTENTS_SHARE = 0.8  # of its rows end with a page number after text only
_PAGE_NUMBER = re.compile(r"^\d{1,4}$")
_SECTION_NUMBER = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.?|[A-Z]\.)\s+[^\W\d_]")
_LEADER = re.compile(r"(?:\.\s?){3,}|…{2,}")


def contents_list(block: Block) -> bool:
    """A table of contents, a list of figures or tables: rows of text that end with a page number,
    the numbers never going back, the titles led by dot leaders or by section numbers ("1.2").
    Not data: never a table."""
    rows: dict[int, list[tuple[int, str]]] = {}
    for cell in block.cells:
        if cell.text.strip():
            rows.setdefault(cell.row, []).append((cell.col, cell.text.strip()))
    pages: list[int] = []
    marked = 0
    for row in sorted(rows):
        cells = sorted(rows[row])
        line = " ".join(text for _, text in cells)
        words = _LEADER.sub(" ", line).split()
        if len(words) < 2 or not _PAGE_NUMBER.match(words[-1]):
            continue
        title = " ".join(words[:-1])
        if re.search(r"[^\W\d_]", title) and not re.search(r"\d[\s.,]?\d{3}", title):
            pages.append(int(words[-1]))
            marked += bool(_LEADER.search(line) or _SECTION_NUMBER.match(title))
    return (
        len(rows) >= MIN_CONTENTS_ROWS
        and len(pages) >= CONTENTS_SHARE * len(rows)
        and marked * 2 >= len(pages)
        and all(a <= b for a, b in zip(pages, pages[1:]))
    )


def table_from_structure(built: Table, page_no: int, bbox: BBox, width: float, height: float, source: str) -> Block:
    grid = [replace(c, bbox=clamp_bbox(c.bbox, width, height)) for c in built.cells]
    return Block("table", page_no, bbox, cells=grid, n_rows=built.n_rows, n_cols=built.n_cols, table_source=source)


def page_words(page: pymupdf.Page, area: pymupdf.Rect) -> list[Word]:
    """The page's words whose centre lies in `area` (displayed coordinates, top-left origin)."""
    matrix = page.rotation_matrix
    found: list[Word] = []
    for x0, y0, x1, y1, text, *_ in page.get_text("words"):
        rect = pymupdf.Rect(x0, y0, x1, y1) * matrix
        cx, cy = (rect.x0 + rect.x1) / 2, (rect.y0 + rect.y1) / 2
        if area.x0 <= cx <= area.x1 and area.y0 <= cy <= area.y1:
            found.append(Word(text, (rect.x0, rect.y0, rect.x1, rect.y1)))
    return found


def page_rules(page: pymupdf.Page, area: pymupdf.Rect) -> list[Rule]:
    """Horizontal rules (lines, thin rectangles, edges of boxes) inside `area`, displayed coordinates."""
    matrix = page.rotation_matrix
    zone = pymupdf.Rect(area.x0 - 3, area.y0 - 3, area.x1 + 3, area.y1 + 3)
    rules: list[Rule] = []
    try:
        drawings = page.get_drawings()
    except Exception:  # a broken content stream: no rules, the grid's rows are kept
        return rules
    for drawing in drawings:
        for item in drawing.get("items", []):
            if item[0] == "l":
                a, b = pymupdf.Point(item[1]) * matrix, pymupdf.Point(item[2]) * matrix
                if abs(a.y - b.y) <= 1.0:
                    _add_rule(rules, zone, (a.y + b.y) / 2, min(a.x, b.x), max(a.x, b.x))
            elif item[0] == "re":
                rect = pymupdf.Rect(item[1]) * matrix
                if rect.height <= _RULE_MAX_THICKNESS_PT:
                    _add_rule(rules, zone, (rect.y0 + rect.y1) / 2, rect.x0, rect.x1)
                elif rect.width > _RULE_MAX_THICKNESS_PT:
                    _add_rule(rules, zone, rect.y0, rect.x0, rect.x1)
                    _add_rule(rules, zone, rect.y1, rect.x0, rect.x1)
    return _merge_rules(rules)


def _add_rule(rules: list[Rule], zone: pymupdf.Rect, y: float, x0: float, x1: float) -> None:
    x0, x1 = max(x0, zone.x0), min(x1, zone.x1)
    if zone.y0 <= y <= zone.y1 and x1 - x0 > 3:
        rules.append(Rule(y, x0, x1))


def _merge_rules(rules: list[Rule]) -> list[Rule]:
    """Collinear touching segments (a rule drawn cell by cell) become one rule."""
    merged: list[Rule] = []
    for rule in sorted(rules, key=lambda r: (round(r.y), r.x0)):
        last = merged[-1] if merged else None
        if last is not None and abs(last.y - rule.y) <= 1.0 and rule.x0 <= last.x1 + 2.0:
            merged[-1] = Rule(last.y, last.x0, max(last.x1, rule.x1))
        else:
            merged.append(rule)
    return merged


def _grid_edges(cells: list, rows: int, cols: int) -> tuple[list[float], list[float]]:
    """Column and row edges of the layout's grid (medians of its cell boxes)."""
    lefts: list[list[float]] = [[] for _ in range(cols)]
    tops: list[list[float]] = [[] for _ in range(rows)]
    right, bottom = [], []
    for r, row in enumerate(cells[:rows]):
        for c, cell in enumerate(row[:cols]):
            if cell is None:
                continue
            lefts[c].append(cell[0])
            tops[r].append(cell[1])
            right.append(cell[2])
            bottom.append(cell[3])
    col_edges = [statistics.median(v) for v in lefts if v]
    row_edges = [statistics.median(v) for v in tops if v]
    if not right or not bottom:
        return [], []
    col_edges.append(max(right))
    row_edges.append(max(bottom))
    return sorted(col_edges), sorted(row_edges)
