"""Headings the layout model ran across a page's columns.

On a two-column page the layout model may box the headings that open both columns at the same
height as one heading, even as one text line ("1 Introduction et perspective histo- 2 Crédibilité
de stabilité", the ACT-2008 aide-mémoire): neither section's name is then a heading. A gutter is
a vertical band that the page's paragraphs lie on either side of and none crosses; a heading's
text line whose spans leave a gap over a gutter is cut there, and the heading becomes one block
per column, left first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rag_core.parsing.document_builder import Block
from rag_core.parsing.layout_text import BBox, Line, union_bbox

EDGE_PT = 2.0  # a paragraph this close to a gutter's edge still lies on its side
MIN_GUTTER_PT = 4.0


def gutters(paragraphs: Sequence[BBox]) -> list[tuple[float, float]]:
    """(left, right) edges of the bands between the page's columns of paragraphs."""
    found: list[tuple[float, float]] = []
    for right in sorted({box[0] for box in paragraphs}):
        before = [box[2] for box in paragraphs if box[2] <= right + EDGE_PT]
        if not before:
            continue
        left = max(before)
        crossing = any(box[0] < left - EDGE_PT and box[2] > right + EDGE_PT for box in paragraphs)
        if right - left >= MIN_GUTTER_PT and not crossing and (left, right) not in found:
            found.append((left, right))
    return found


def split_heading(
    block: Block,
    line_spans: Sequence[tuple[BBox, Sequence[dict]]],
    bands: Sequence[tuple[float, float]],
    make_line: Callable[[Sequence[dict], BBox], Line],
) -> list[Block]:
    """The heading block, or one block per column when its lines cross a gutter (see the
    module's docstring). `line_spans`: (box, spans) of each of its text lines."""
    if not bands or block.kind not in ("heading", "title"):
        return [block]
    sides: dict[int, list[Line]] = {}
    cut = False
    for bbox, spans in line_spans:
        pieces = _cut(spans, bands)
        cut = cut or len(pieces) > 1
        for side, piece in pieces:
            box = (min(s["bbox"][0] for s in piece), bbox[1], max(s["bbox"][2] for s in piece), bbox[3])
            line = make_line(piece, box)
            if line.text:
                sides.setdefault(side, []).append(line)
    if not cut or len(sides) < 2:
        return [block]
    return [
        Block(block.kind, block.page_no, union_bbox(line.bbox for line in lines) or block.bbox, lines=lines)
        for _, lines in sorted(sides.items())
    ]


def _cut(spans: Sequence[dict], bands: Sequence[tuple[float, float]]) -> list[tuple[int, list[dict]]]:
    """The line's spans in runs, cut where the gap between two spans holds a gutter; each run
    with the number of gutters left of it (its column)."""
    ordered = sorted((s for s in spans if s.get("text")), key=lambda s: s["bbox"][0])
    runs: list[list[dict]] = []
    for span in ordered:
        gap = (runs[-1][-1]["bbox"][2], span["bbox"][0]) if runs else None
        if gap is None or not any(gap[0] <= left + EDGE_PT and gap[1] >= right - EDGE_PT for left, right in bands):
            if runs:
                runs[-1].append(span)
                continue
        runs.append([span])
    return [(sum(run[0]["bbox"][0] >= right - EDGE_PT for _, right in bands), run) for run in runs]
