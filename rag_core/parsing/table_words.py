"""The words of a table, readied for its grid (`table_structure.build_table` places them).

A word here is a text-layer word with its box (points, top-left origin). Before the words go to the
grid's slots, a bullet glyph is moved onto the text it marks (even across a column edge), the dot
leaders of a table of contents are dropped, and a one-column table of contents gets a column for its
page numbers. `text_lines` groups words into visual lines, for this module and the grid alike.

Pure functions over plain tuples (no PyMuPDF).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

BBox = tuple[float, float, float, float]
_PAGE_NUMBER = re.compile(r"^\.?(\d{1,4}|[ivxlc]{1,7})$", re.I)
_LEADER = re.compile(r"^\.+$")
_LEADER_RUN = 3  # dot-only words in a row, and in one column, that make a leader in a table wider than two columns
_BULLETS = "•◦▪●○■□➢➤►▶✓✔·-–"


@dataclass(frozen=True)
class Word:
    text: str
    bbox: BBox


def prepare_words(
    words: Sequence[Word], col_edges: Sequence[float], row_edges: Sequence[float]
) -> tuple[list[Word], list[float]]:
    """The table's non-blank words with bullets on their text and without dot leaders, and its column
    edges (a page-number column added to a one-column table of contents)."""
    ready = _bullets_on_their_text([w for w in words if w.text.strip()])
    columns = _index_columns(ready, col_edges, row_edges)
    return _without_leaders(ready, columns), columns


def _bullets_on_their_text(words: list[Word]) -> list[Word]:
    """A bullet glyph goes with the text just right of it, even across a column edge; a bullet glued
    to the end of a word ("U코드◦" where the text stream has no space) is split off first."""
    out: list[Word] = []
    for word in _glued_bullets(words):
        if len(word.text) == 1 and word.text in _BULLETS:
            x0, y0, x1, y1 = word.bbox
            right = [
                w
                for w in words
                if w is not word
                and 0 <= w.bbox[0] - x1 <= 2 * (y1 - y0)
                and min(y1, w.bbox[3]) - max(y0, w.bbox[1]) > 0.5 * (y1 - y0)
            ]
            if right:
                nxt = min(right, key=lambda w: w.bbox[0])
                word = Word(word.text, (nxt.bbox[0] - 0.5, y0, nxt.bbox[0], y1))
        out.append(word)
    return out


def _glued_bullets(words: list[Word]) -> list[Word]:
    out: list[Word] = []
    for word in words:
        text = word.text
        if len(text) >= 2 and text[-1] in _BULLETS and text[-1] not in "-–·" and not text[-2].isspace():
            x0, y0, x1, y1 = word.bbox
            cut = x1 - (x1 - x0) / len(text)  # the glyph's share of the word's width
            out.extend([Word(text[:-1], (x0, y0, cut, y1)), Word(text[-1], (cut, y0, x1, y1))])
        else:
            out.append(word)
    return out


def _without_leaders(words: Sequence[Word], col_edges: Sequence[float]) -> list[Word]:
    """The table's words without the dot leaders of a table of contents, nor the leader's first dot
    glued to the title before it ("Authors. . . . . xi" is "Authors").

    In a two-column table of contents (title | page) every dot-only word is a leader. In a wider table
    a leader is a run of at least `_LEADER_RUN` dot-only words in a row of which as many lie in one
    column ("1.1 | Les triangles de liquidation . . . . . | . . 1"): a lone "." that a SAS listing
    prints for a missing value sits alone in its column and stays."""
    out: list[Word] = []
    for line in text_lines(words):
        leaders = _leader_words(line, col_edges)
        for word, nxt in zip(line, [*line[1:], None]):
            if id(word) in leaders:
                continue
            if nxt is not None and id(nxt) in leaders and word.text.endswith(".") and len(word.text) > 1:
                word = Word(word.text[:-1], word.bbox)
            out.append(word)
    return out


def _leader_words(line: Sequence[Word], col_edges: Sequence[float]) -> set[int]:
    """ids of the words of one text line that are dot leaders (see `_without_leaders`)."""
    if len(col_edges) == 3:
        return {id(w) for w in line if _LEADER.match(w.text)}
    out: set[int] = set()
    run: list[Word] = []
    for word in [*line, None]:
        if word is not None and _LEADER.match(word.text):
            run.append(word)
            continue
        if len(run) >= _LEADER_RUN:
            columns = [sum(1 for edge in col_edges[1:-1] if edge <= (w.bbox[0] + w.bbox[2]) / 2) for w in run]
            if max(columns.count(c) for c in set(columns)) >= _LEADER_RUN:
                out.update(id(w) for w in run)
        run = []
    return out


def _index_columns(words: Sequence[Word], col_edges: Sequence[float], row_edges: Sequence[float]) -> list[float]:
    """A one-column table of contents ("Notices . . . . vii") gets a column for its page numbers."""
    if len(col_edges) != 2 or len(row_edges) < 4:
        return list(col_edges)
    lasts = [line[-1] for line in text_lines(words) if len(line) >= 2]
    numbers = [w for w in lasts if _PAGE_NUMBER.match(w.text)]
    if len(numbers) < 0.6 * (len(row_edges) - 1):
        return list(col_edges)
    split = min(w.bbox[0] for w in numbers) - 1.0
    if split <= col_edges[0]:
        return list(col_edges)
    return [col_edges[0], split, col_edges[1]]


def text_lines(words: Sequence[Word]) -> list[list[Word]]:
    """Words grouped into visual lines (vertical overlap), top to bottom, each left to right."""
    lines: list[list[Word]] = []
    for word in sorted(words, key=lambda w: ((w.bbox[1] + w.bbox[3]) / 2, w.bbox[0])):
        if lines:
            top = min(w.bbox[1] for w in lines[-1])
            bottom = max(w.bbox[3] for w in lines[-1])
            overlap = min(bottom, word.bbox[3]) - max(top, word.bbox[1])
            if overlap >= 0.5 * min(bottom - top, word.bbox[3] - word.bbox[1]):
                lines[-1].append(word)
                continue
        lines.append([word])
    return [sorted(line, key=lambda w: w.bbox[0]) for line in lines]
