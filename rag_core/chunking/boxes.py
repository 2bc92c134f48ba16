"""Highlight boxes of a child: which line, cell-row or item boxes its text covers (docs/method.md,
"Parents and children").

A child's boxes are the line-level provenance boxes (selected by charspan) of the part of each
text item it holds, the union of the cell boxes of the grid rows it holds when a table is split
across children, and the whole item's boxes otherwise. Boxes are converted to a top-left origin
by `geometry.to_top_left` and kept inside their page. A line box also keeps the `[start, end)`
span of its text inside the child's text, so that a quote can be mapped to the lines it covers
(`citations.quote_highlight`); table, picture and fallback boxes have no span. Used by
`chunking` only.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left
from collections.abc import Sequence
from typing import Protocol

from docling_core.types.doc import DocItem, DoclingDocument, PictureItem, TableItem, TextItem

from rag_core.geometry import clamp, to_top_left
from rag_core.models import HighlightBox

_ANCHOR = 24  # letters and digits used to find an item's text inside a child


class Piece(Protocol):
    """What box assignment needs of a child before ids are known (`chunking._Piece`)."""

    text: str
    items: list[DocItem]
    boxes: list[HighlightBox]


def _squeeze(text: str) -> tuple[str, list[int]]:
    """Letters and digits only (the serializer may add Markdown marks, escapes, list markers),
    and for each kept character its index in `text`."""
    index = [i for i, ch in enumerate(text) if ch.isalnum()]
    return "".join(text[i] for i in index), index


def assign_boxes(doc: DoclingDocument, pieces: Sequence[Piece]) -> None:
    cursors: dict[str, int] = {}  # text item -> squeezed chars already placed in earlier children
    table_rows = _table_row_ranges(doc, pieces)
    for n, piece in enumerate(pieces):
        squeezed, child_index = _squeeze(piece.text)
        pos = 0
        boxes: list[HighlightBox] = []
        fallback: list[HighlightBox] = []
        for item in piece.items:
            if isinstance(item, TableItem):
                rows = table_rows.get((n, item.self_ref))
                boxes += _row_boxes(doc, item, rows) if rows else prov_boxes(doc, item.prov)
            elif isinstance(item, PictureItem):
                fallback += prov_boxes(doc, item.prov)
            elif isinstance(item, TextItem):
                found, pos = _text_boxes(doc, item, (squeezed, child_index), pos, cursors)
                if found is None:
                    fallback += prov_boxes(doc, item.prov)
                else:
                    boxes += found
            else:
                fallback += prov_boxes(doc, getattr(item, "prov", []))
        piece.boxes = _unique_boxes(boxes or fallback)


def _text_boxes(
    doc: DoclingDocument, item: TextItem, squeezed_child: tuple[str, list[int]], pos: int, cursors: dict[str, int]
) -> tuple[list[HighlightBox] | None, int]:
    """Boxes of the part of `item` this child holds (line provs selected by charspan), each with
    the span of its line's text in the child's raw text.

    `squeezed_child` is `_squeeze(child text)`. Returns (None, pos) when the item's text cannot
    be located in the child; ([], pos) when the item contributes no text here (a table caption
    listed with a later table piece).
    """
    child, child_index = squeezed_child
    squeezed, index = _squeeze(item.text)
    if not squeezed or not item.prov:
        return [], pos
    cursor = cursors.get(item.self_ref, 0)
    if cursor >= len(squeezed):
        return [], pos  # already fully placed: metadata repeated by the chunker
    anchor = squeezed[cursor : cursor + _ANCHOR]
    at = child.find(anchor, pos)
    if at < 0:
        return None, pos
    length = len(os.path.commonprefix([child[at:], squeezed[cursor:]]))
    if cursor + length < len(squeezed) and at + length < len(child):
        # the serializer changed the text (formatting marks...): cannot place it precisely
        cursors[item.self_ref] = len(squeezed)
        return None, at + length
    cursors[item.self_ref] = cursor + length

    def child_span(k0: int, k1: int) -> tuple[int, int]:
        """Squeezed item chars [k0, k1) (within this child's part) -> raw child span."""
        return child_index[at + k0 - cursor], child_index[at + k1 - 1 - cursor] + 1

    if len(item.prov) == 1:
        return _with_span(prov_boxes(doc, item.prov), child_span(cursor, cursor + length)), at + length
    lo, hi = index[cursor], index[cursor + length - 1] + 1
    lines = [p for p in item.prov if p.charspan[0] < hi and p.charspan[1] > lo]
    if not lines:
        return prov_boxes(doc, item.prov), at + length
    boxes: list[HighlightBox] = []
    for line in lines:
        # squeezed item chars of this line that lie in this child's part of the item
        k0 = max(bisect_left(index, line.charspan[0]), cursor)
        k1 = min(bisect_left(index, line.charspan[1]), cursor + length)
        span = child_span(k0, k1) if k0 < k1 else None
        boxes += _with_span(prov_boxes(doc, [line]), span)
    return boxes, at + length


def _with_span(boxes: list[HighlightBox], span: tuple[int, int] | None) -> list[HighlightBox]:
    if span is None:
        return boxes
    return [b.model_copy(update={"start": span[0], "end": span[1]}) for b in boxes]


def prov_boxes(doc: DoclingDocument, provs: Sequence) -> list[HighlightBox]:
    out: list[HighlightBox] = []
    for prov in provs:
        page = doc.pages.get(prov.page_no)
        if page is None or page.size is None:
            continue
        b = prov.bbox
        box = to_top_left(prov.page_no, b.l, b.t, b.r, b.b, b.coord_origin.value, page.size.height)
        out.append(clamp(box, page.size.width, page.size.height))
    return out


def _table_row_ranges(doc: DoclingDocument, pieces: Sequence[Piece]) -> dict[tuple[int, str], tuple[int, int]]:
    """For a table split across children: which grid rows each child holds.

    Only when the body rows of all pieces add up to the table's rows; otherwise (columns
    split, unusual serialisation) the pieces keep the whole table's box.
    """
    by_table: dict[str, list[tuple[int, int]]] = {}
    for n, piece in enumerate(pieces):
        tables = [it for it in piece.items if isinstance(it, TableItem)]
        if len(tables) != 1:
            for t in tables:
                by_table.setdefault(t.self_ref, []).append((n, -1))
            continue
        lines = [ln for ln in piece.text.splitlines() if ln.startswith("|")]
        body = [ln for ln in lines if not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", ln.strip())]
        by_table.setdefault(tables[0].self_ref, []).append((n, len(body)))
    out: dict[tuple[int, str], tuple[int, int]] = {}
    for ref, parts in by_table.items():
        if len(parts) < 2 or any(count < 0 for _, count in parts):
            continue
        table = doc.tables[int(ref.rsplit("/", 1)[1])]
        # the first piece holds the header row (it is counted as a body row above)
        total = sum(count for _, count in parts)
        if total != table.data.num_rows or table.data.num_rows == 0:
            continue
        row = 0
        for n, count in parts:
            out[(n, ref)] = (row, row + count)
            row += count
    return out


def _row_boxes(doc: DoclingDocument, table: TableItem, rows: tuple[int, int]) -> list[HighlightBox]:
    cells = [c for c in table.data.table_cells if c.bbox is not None and rows[0] <= c.start_row_offset_idx < rows[1]]
    if not cells or not table.prov:
        return prov_boxes(doc, table.prov)
    page_no = table.prov[0].page_no
    page = doc.pages.get(page_no)
    if page is None or page.size is None:
        return []
    boxes = [
        to_top_left(page_no, c.bbox.l, c.bbox.t, c.bbox.r, c.bbox.b, c.bbox.coord_origin.value, page.size.height)
        for c in cells
        if c.bbox is not None
    ]
    union = HighlightBox(
        page=page_no,
        x0=min(b.x0 for b in boxes),
        y0=min(b.y0 for b in boxes),
        x1=max(b.x1 for b in boxes),
        y1=max(b.y1 for b in boxes),
    )
    return [clamp(union, page.size.width, page.size.height)]


def _unique_boxes(boxes: list[HighlightBox]) -> list[HighlightBox]:
    """One box per rectangle; a rectangle listed twice keeps the union of its known text spans."""
    seen: dict[tuple, HighlightBox] = {}
    for b in boxes:
        key = (b.page, round(b.x0, 2), round(b.y0, 2), round(b.x1, 2), round(b.y1, 2))
        kept = seen.setdefault(key, b)
        if kept is not b and b.start is not None and b.end is not None:
            start = b.start if kept.start is None else min(kept.start, b.start)
            end = b.end if kept.end is None else max(kept.end, b.end)
            seen[key] = kept.model_copy(update={"start": start, "end": end})
    return list(seen.values())
