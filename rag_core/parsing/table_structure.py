"""Table structure from whole words: a grid of rows and columns filled with the page's words.

The layout model gives a table's grid (row and column edges), but its own cell texts are cut
character by character: a header word straddling a column edge is split ("P | remium"), a
descender drops letters into the next row ("Lanuae" / "gg"). Here every word goes, whole, to
the grid slot that holds its centre, so no cell text is ever cut inside a word, and an empty
slot of a loss triangle stays empty where it is.

Then:
- rows: when the table rules off groups of lines (at least two full-width rules inside it),
  the lines between two rules (full-width, or partial ones under a group header) are one
  row and each column's text there is one cell ("OTSL HTML", "0.965 0.969"); otherwise the
  grid's rows are kept;
- header rows: the leading rows that are not mostly numbers (at most MAX_HEADER_ROWS), more than
  one only above a row of figures or under a first row with empty cells (a table of words
  throughout has one header row); a header label over empty slots of its row, with labels below
  them, spans those columns (within a partial rule under it when there is one); a header slot whose column is not
  ruled off between two header rows spans both rows;
- row headers: the first column when its body cells are labels or years.

The words are readied first (`table_words`: bullets on their text, no dot leaders, a column for
a table of contents' page numbers). Pure functions over plain tuples (no PyMuPDF): the parser
passes words, edges and rules.
It does not detect tables nor read pictures (`table_images`).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.parsing.table_words import BBox, Word, prepare_words, text_lines
from rag_core.parsing.unicode_text import clean_text

MAX_HEADER_ROWS = 3
MAX_BAND_LINES = 3  # more lines between two rules are separate rows (a section of a table)
RULE_TOLERANCE_PT = 2.0
_NUMBER = re.compile(r"^[-−–+(]?[\d\s.,' ]*\d[\d\s.,' ]*%?\)?$|^[-−–]$")


@dataclass(frozen=True)
class Rule:
    """A horizontal rule: its height and horizontal extent (points, top-left origin)."""

    y: float
    x0: float
    x1: float


@dataclass(frozen=True)
class Cell:
    row: int
    col: int
    text: str
    bbox: BBox
    row_span: int = 1
    col_span: int = 1
    column_header: bool = False
    row_header: bool = False


@dataclass(frozen=True)
class Table:
    n_rows: int
    n_cols: int
    cells: list[Cell]


def looks_numeric(text: str) -> bool:
    """A number in French or English format ('12 345,6', '1,234.5', '-75', '10.0%', '(3)')."""
    return bool(_NUMBER.match(text.strip())) if text.strip() else False


def build_table(
    words: Sequence[Word],
    col_edges: Sequence[float],
    row_edges: Sequence[float],
    rules: Sequence[Rule] = (),
    bbox: BBox | None = None,
) -> Table:
    """Cells of one table from its words, the grid's edges (n+1 values each) and its rules."""
    words, col_edges = prepare_words(words, col_edges, row_edges)
    n_cols = len(col_edges) - 1
    x0, x1 = col_edges[0], col_edges[-1]
    width = max(x1 - x0, 1.0)
    full = sorted(r.y for r in rules if r.x1 - r.x0 >= 0.9 * width)
    inner = [y for y in full if row_edges[0] + RULE_TOLERANCE_PT < y < row_edges[-1] - RULE_TOLERANCE_PT]
    if len(inner) >= 2 and words and _small_bands(words, row_edges, inner):
        cuts = [r.y for r in rules if r.x1 - r.x0 < 0.9 * width and r.x1 - r.x0 >= width / max(n_cols, 1)]
        row_edges = _banded_edges(words, row_edges, sorted(inner + cuts))
    n_rows = len(row_edges) - 1
    slots: dict[tuple[int, int], list[Word]] = {}
    for word in words:
        cx, cy = (word.bbox[0] + word.bbox[2]) / 2, (word.bbox[1] + word.bbox[3]) / 2
        slots.setdefault((_index(row_edges, cy), _index(col_edges, cx)), []).append(word)
    texts = {key: _join(ws) for key, ws in slots.items()}
    n_header = _header_rows(texts, n_rows, n_cols)
    if n_header:  # header labels are often wider than their column: place whole phrases
        header = [w for (r, _c), ws in slots.items() if r < n_header for w in ws]
        slots = {key: ws for key, ws in slots.items() if key[0] >= n_header}
        for phrase in _phrases(header):
            box = _union([w.bbox for w in phrase])
            if box is None:
                continue
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            slots.setdefault((_index(row_edges, cy), _index(col_edges, cx)), []).extend(phrase)
        texts = {key: _join(ws) for key, ws in slots.items()}
    partial = [r for r in rules if r.x1 - r.x0 < 0.9 * width]
    spans = _header_spans(texts, slots, col_edges, row_edges, n_header, partial)
    row_header = _row_header_column(texts, n_rows, n_header)
    cells: list[Cell] = []
    covered: set[tuple[int, int]] = set()
    for r in range(n_rows):
        for c in range(n_cols):
            if (r, c) in covered:
                continue
            rs, cs = spans.get((r, c), (1, 1))
            members = [(rr, cc) for rr in range(r, r + rs) for cc in range(c, c + cs)]
            covered.update(members)
            ws = [w for key in members for w in slots.get(key, [])]
            box = _union([w.bbox for w in ws]) or (col_edges[c], row_edges[r], col_edges[c + cs], row_edges[r + rs])
            cells.append(
                Cell(
                    r,
                    c,
                    _join(ws),
                    box,
                    rs,
                    cs,
                    column_header=r < n_header,
                    row_header=row_header and c == 0 and r >= n_header,
                )
            )
    return Table(n_rows, n_cols, cells)


def _index(edges: Sequence[float], value: float) -> int:
    for i in range(1, len(edges) - 1):
        if value < edges[i]:
            return i - 1
    return len(edges) - 2


def _phrases(words: Sequence[Word]) -> list[list[Word]]:
    """Words of each line grouped into phrases: a gap wider than the line's usual space splits them."""
    phrases: list[list[Word]] = [[w] for w in words if _vertical(w)]  # rotated header text: word by word
    words = [w for w in words if not _vertical(w)]
    for line in text_lines(words):
        gaps = [b.bbox[0] - a.bbox[2] for a, b in zip(line, line[1:])]
        height = statistics.median(w.bbox[3] - w.bbox[1] for w in line)
        spaces = [g for g in gaps if g < 0.5 * height]
        limit = min(1.35 * statistics.median(spaces), 0.5 * height) if len(spaces) >= 3 else 0.25 * height
        current = [line[0]]
        for gap, word in zip(gaps, line[1:]):
            if gap > limit:
                phrases.append(current)
                current = []
            current.append(word)
        phrases.append(current)
    return phrases


def _vertical(word: Word) -> bool:
    width, height = word.bbox[2] - word.bbox[0], word.bbox[3] - word.bbox[1]
    return len(word.text) > 1 and height > 2 * width


def _join(words: Sequence[Word]) -> str:
    parts: list[str] = []
    for line in text_lines(words):
        for word in line:
            if (
                parts
                and parts[-1].endswith("-")
                and len(parts[-1]) > 2
                and parts[-1][-2].isalpha()
                and word.text[:1].islower()
                and word is line[0]
            ):
                parts[-1] = parts[-1][:-1] + word.text
            else:
                parts.append(word.text)
    return clean_text(" ".join(parts)).strip()


def _union(boxes: Sequence[BBox]) -> BBox | None:
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _small_bands(words: Sequence[Word], row_edges: Sequence[float], rules: Sequence[float]) -> bool:
    """Rules that group a few lines (at most MAX_BAND_LINES each, some with more than one)."""
    edges = [row_edges[0], *rules, row_edges[-1]]
    counts = [
        len(text_lines([w for w in words if lo <= (w.bbox[1] + w.bbox[3]) / 2 < hi]))
        for lo, hi in zip(edges, edges[1:])
    ]
    return max(counts) <= MAX_BAND_LINES and any(n > 1 for n in counts[1:])


def _banded_edges(words: Sequence[Word], row_edges: Sequence[float], rules: Sequence[float]) -> list[float]:
    """Row edges at the full-width rules: the lines between two rules form one row."""
    edges = [row_edges[0], *rules, row_edges[-1]]
    kept = [edges[0]]
    for lo, hi in zip(edges, edges[1:]):
        if any(lo <= (w.bbox[1] + w.bbox[3]) / 2 < hi for w in words):
            kept.append(hi)
        else:  # a band without text (two rules close together): merge it into the previous one
            kept[-1] = hi if len(kept) > 1 else kept[-1]
    return kept if len(kept) >= 2 else list(row_edges)


def _header_rows(texts: dict[tuple[int, int], str], n_rows: int, n_cols: int) -> int:
    """Leading rows whose non-empty cells are mostly not numbers (at least one, at most 3). Rows of
    words after the first are header rows only where the header reads apart from the body: a row of
    figures follows them, or the first row leaves cells empty (a label over a group of columns). In a
    table of words throughout ("Stage | Requirement | Deadline" over rows of words) they are its first
    rows of data, and a header of them would merge those rows into its column names."""
    count = 0
    for r in range(min(n_rows, MAX_HEADER_ROWS)):
        values = [v for v in _row_values(texts, r, n_cols) if v]
        if not values:
            if count:
                break
            continue
        if _mostly_figures(values):
            break
        count = r + 1
    if n_rows > 1 and count >= n_rows:
        count = 1
    if count > 1 and all(_row_values(texts, 0, n_cols)):
        after = [v for v in _row_values(texts, count, n_cols) if v] if count < n_rows else []
        if not (after and _mostly_figures(after)):
            count = 1
    return max(count, 1) if n_rows > 1 else 0


def _row_values(texts: dict[tuple[int, int], str], r: int, n_cols: int) -> list[str]:
    return [texts.get((r, c), "") for c in range(n_cols)]


def _mostly_figures(values: list[str]) -> bool:
    """More than half of the values are numbers, and they are not a header of development periods."""
    return sum(looks_numeric(v) for v in values) * 2 > len(values) and not _column_numbers(values)


def _column_numbers(values: list[str]) -> bool:
    """A header of development periods ('Dev.Yr. 1', '2', '3', ...): small consecutive integers."""
    ints = [int(v) for v in values if v.isdigit() and len(v) <= 3]
    return len(ints) >= 3 and all(b == a + 1 for a, b in zip(ints, ints[1:]))


def _header_spans(
    texts: dict[tuple[int, int], str],
    slots: dict[tuple[int, int], list[Word]],
    col_edges: Sequence[float],
    row_edges: Sequence[float],
    n_header: int,
    partial: Sequence[Rule],
) -> dict[tuple[int, int], tuple[int, int]]:
    """(row_span, col_span) of spanning header cells, keyed by their top-left slot."""
    n_cols = len(col_edges) - 1
    spans: dict[tuple[int, int], tuple[int, int]] = {}
    taken: set[tuple[int, int]] = set()
    for r in range(max(0, n_header - 1)):
        below = r + 1
        rule = next((ru for ru in partial if row_edges[r] < ru.y < row_edges[below + 1] + RULE_TOLERANCE_PT), None)
        owners: dict[int, int] = {}
        for c in range(n_cols):
            if texts.get((r, c)) or not texts.get((below, c)):
                continue
            owner = _nearest_label(texts, slots, r, c, col_edges, rule)
            if owner is not None:
                owners[c] = owner
        for c in range(n_cols):
            if not texts.get((r, c)):
                continue
            members = [c] + [k for k, o in owners.items() if o == c]
            lo, hi = min(members), max(members)
            if hi > lo and all(k == c or k in owners and owners[k] == c for k in range(lo, hi + 1)):
                spans[(r, lo)] = (1, hi - lo + 1)
                taken.update((r, k) for k in range(lo, hi + 1))
        if rule is not None:  # columns not ruled off under the first header row: one cell over both rows
            for c in range(n_cols):
                mid = (col_edges[c] + col_edges[c + 1]) / 2
                if (r, c) not in taken and not rule.x0 - RULE_TOLERANCE_PT <= mid <= rule.x1 + RULE_TOLERANCE_PT:
                    spans[(r, c)] = (2, 1)
    return spans


def _nearest_label(
    texts: dict[tuple[int, int], str],
    slots: dict[tuple[int, int], list[Word]],
    r: int,
    c: int,
    col_edges: Sequence[float],
    rule: Rule | None,
) -> int | None:
    """The label of row r that an empty slot (r, c) belongs to.

    Under a partial rule (a group header ruled off over its columns), the nearest label by its
    words' extent; otherwise the label to its left (spreadsheet-style group labels).
    """
    mid = (col_edges[c] + col_edges[c + 1]) / 2
    if rule is None:  # no rule to show the extent: a label runs to the right, up to the next one
        k = c - 1
        while k >= 0 and not texts.get((r, k)):
            k -= 1
        return k if k >= 0 else None
    if not rule.x0 - RULE_TOLERANCE_PT <= mid <= rule.x1 + RULE_TOLERANCE_PT:
        return None
    best, best_gap = None, float("inf")
    for k in (c - 1, c + 1):
        step = k - c
        while 0 <= k < len(col_edges) - 1 and not texts.get((r, k)):
            k += step
        if not 0 <= k < len(col_edges) - 1:
            continue
        box = _union([w.bbox for w in slots.get((r, k), [])])
        if box is None:
            continue
        if rule is not None:
            kmid = (col_edges[k] + col_edges[k + 1]) / 2
            if not rule.x0 - RULE_TOLERANCE_PT <= kmid <= rule.x1 + RULE_TOLERANCE_PT:
                continue
        gap = max(box[0] - mid, mid - box[2], 0.0)
        if gap < best_gap:
            best, best_gap = k, gap
    return best


def _row_header_column(texts: dict[tuple[int, int], str], n_rows: int, n_header: int) -> bool:
    """The first column labels the rows: every body cell filled, labels or years, all different."""
    values = [texts.get((r, 0), "") for r in range(n_header, n_rows)]
    if len(values) < 2 or not all(values) or len(set(values)) < len(values):
        return False
    return all(not looks_numeric(v) or (v.isdigit() and len(v) == 4) for v in values)
