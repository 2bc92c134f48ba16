"""A table answer (docs/method.md): the rows the question names, each cell a button that opens the viewer
on that cell (its own box strong, the table light). A row wider than `MAX_GRID_COLUMNS` is drawn
turned (one line per column: its heading, then each row's cell), since a dozen buttons side by side
in the answer's column cut every figure to "1…". Document text is escaped."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from rag_app.ui import state
from rag_app.ui.markdown import escape_md
from rag_app.ui.widgets import source_label
from rag_core.models import Paragraph, Source, TableCell
from rag_core.pipeline import ViewerTarget, highlight_target


def cell_target(cell: TableCell, source: Source) -> ViewerTarget:
    boxes = [cell.box] if cell.box is not None else []
    return highlight_target(
        doc_id=source.doc_id,
        file_name=source.file_name,
        label=f"{cell.text} · {source_label(source)}",
        pages=sorted({b.page for b in boxes}) or source.pages,
        boxes=boxes,
        parent_boxes=[b for b in source.boxes if b not in boxes],
        text=cell.text,
        source_id=f"{source.id}|{cell.row},{cell.col}",
        legend="table",
    )


MAX_GRID_COLUMNS = 6  # a wider row is drawn turned, one line per column, so that every cell stays readable


def _cell_button(col, cell: TableCell, source: Source, matched: set[tuple[int, int]], key: str) -> None:
    col.button(
        escape_md(cell.text) or "·",
        key=key,
        type="primary" if (cell.row, cell.col) in matched else "tertiary",
        disabled=cell.box is None,
        on_click=state.open_viewer,
        args=(cell_target(cell, source),),
    )


def table_excerpt(paragraph: Paragraph, sources: Mapping[str, Source], *, key: str) -> bool:
    """Draw the paragraph's table rows; False when it has none (or its table is not a cited source)."""
    table = paragraph.table
    source = sources.get(table.source_id) if table is not None else None
    if table is None or source is None or not table.rows:
        return False
    if table.caption:
        st.caption(escape_md(table.caption))
    width = max(len(table.header), *(len(r) for r in table.rows))
    matched = set(table.matched)
    if width > MAX_GRID_COLUMNS:  # turned: the column's heading, then the rows' cells side by side
        headings = {h.col: h.text for h in table.header}  # as the table reads them: no guess at merged headings
        for c in range(max(len(r) for r in table.rows)):
            label, *cols = st.columns([2] + [1] * len(table.rows), vertical_alignment="center")
            head = headings.get(next(row[c] for row in table.rows if c < len(row)).col, "")
            if head.strip():
                label.markdown("**" + escape_md(head) + "**")
            for r, (col, row) in enumerate(zip(cols, table.rows)):
                if c < len(row):
                    _cell_button(col, row[c], source, matched, f"{key}-{r}-{c}")
        return True
    heads = st.columns(width)
    for col, cell in zip(heads, table.header):
        col.markdown("**" + escape_md(cell.text) + "**")
    for r, row in enumerate(table.rows):
        for c, (col, cell) in enumerate(zip(st.columns(width), row)):
            _cell_button(col, cell, source, matched, f"{key}-{r}-{c}")
    return True
