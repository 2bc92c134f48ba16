"""A figure asked for, answered from its table cell: the row and the column the question names.

When the question names both a row of a context table (its label: an accident year, a line item
such as "Premium" or "selected z", a period) and a column (its header: a development year, a
metric, a period), the cell where they cross is the answer, provided it holds a figure. The
paragraph reads "value — row header row label, column header (table title, unit)", cites the
table and quotes the row as the table's text holds it; its figures are traced to their cells
like any other, and its citation highlights those cells (`citations.paragraph_focus`).

A label is named when its figures are among the question's (written as digits or as ordinals,
"third" = 3) or it is the same period in another spelling (`understanding.periods`: FY2023 =
fiscal 2023, Q4 = fourth quarter), and when at least half its words (Snowball stems; the
thesaurus terms the search added count as the question's) are the question's. A header spread
over several rows (a group above its columns) is read whole. The unit and scale come from the
table's caption, its headers or the section's text ("in millions", "en milliers d'euros").
Nothing is generated: every word comes from the table.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.answering.numbers import extract_numbers
from rag_core.citations import item_source_id, parent_source_id
from rag_core.models import Item, Paragraph, RetrievedParent, TableCell
from rag_core.stemming import both_stems
from rag_core.text import ASKING_VERBS, STOP_WORDS, collapse_ws, fold
from rag_core.understanding.periods import find_periods, period_key, same_period, year_spans

_WORD = re.compile(r"[^\W\d_]+")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)?")
_ORDINALS = {
    w: i + 1
    for i, words in enumerate(
        [
            ("first", "premier", "première"),
            ("second", "deuxième", "seconde"),
            ("third", "troisième"),
            ("fourth", "quatrième"),
            ("fifth", "cinquième"),
            ("sixth", "sixième"),
            ("seventh", "septième"),
            ("eighth", "huitième"),
            ("ninth", "neuvième"),
            ("tenth", "dixième"),
        ]
    )
    for w in words
}
_SCALE = re.compile(
    r"\b(?:(?:in|en)\s+(?:(?:thousands|millions|billions|milliers|millions|milliards)\b(?:\s+(?:of|d['’]|de)\s*\w+)?"
    r"|(?:EUR|USD|GBP|CHF|euros?|dollars?|[€$£])\s*(?:'000|000|k|m|mn|bn)?)"
    r"|(?:EUR|USD|GBP|€|\$|£)\s*(?:'000|000|thousands|millions|k|m|mn|bn)\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Question:
    figures: frozenset[str]
    periods: tuple[str, ...]
    stems: frozenset[str]
    words: frozenset[str]  # content stems of the question's title words, to rank tables
    spans: frozenset[frozenset[str]] = frozenset()  # the bounds of each span of years the question asks about


def _figure(raw: str) -> str:
    """A figure as compared: "2.50" = "2.5", "2000" stays "2000"."""
    text = raw.replace(",", ".")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _figures(text: str) -> set[str]:
    out = {_figure(m.group()) for m in _DIGITS.finditer(text)}
    return out | {str(n) for w, n in _ORDINALS.items() if re.search(rf"\b{w}\b", text, re.IGNORECASE)}


def _word_stems(text: str, skip: frozenset[str] = frozenset()) -> list[frozenset[str]]:
    """One stem set per content word (none of `skip`); a one-letter symbol ("z", "U") stands for itself."""
    out = []
    for word in dict.fromkeys(_WORD.findall(fold(text))):
        if len(word) == 1 and word not in ("a", "à"):
            out.append(frozenset({word}))  # a symbol, even where a stop word list holds the letter
        elif word not in STOP_WORDS and word not in skip and len(word) > 1:
            out.append(both_stems(word))
    return out


def _question(question: str, extra_terms: Sequence[str]) -> _Question:
    """What the question names; the years that bound a span it asks about ("between 2005 and 2014") name no
    row or column: the row of 2005 alone does not answer for the whole span."""
    stems = frozenset().union(*_word_stems(question, ASKING_VERBS), *(s for t in extra_terms for s in _word_stems(t)))
    spans = [(a, b) for a, b in year_spans(question) if b > a + 1]  # 2002 to 2003: one fiscal year, no span
    bounds = {str(y) for span in spans for y in span}
    periods = tuple(p.key for p in find_periods(question) if p.key not in bounds)
    named_spans = frozenset(frozenset({str(a), str(b)}) for a, b in spans)
    return _Question(frozenset(_figures(question)) - bounds, periods, stems, stems, named_spans)


def _hit(word: frozenset[str], q: _Question) -> bool:
    """A word of the label the question writes: same stem, or its abbreviation ("dev", "ult": three
    letters or more that begin a question word)."""
    if word & q.stems:
        return True
    return any(len(w) >= 3 and any(s.startswith(w) for s in q.stems) for w in word if w.isalpha())


@dataclass(frozen=True)
class _Named:
    score: float  # 0: not named
    figures: frozenset[str] = frozenset()  # the question's figures it used


def _named(label: str, q: _Question) -> _Named:
    """How well the question names this label: by figures or period, then by words."""
    label = collapse_ws(label)
    if not label:
        return _Named(0.0)
    words = _word_stems(label)
    hits = sum(1 for w in words if _hit(w, q))
    key = period_key(label)
    if key and any(same_period(key, k) for k in q.periods):
        return _Named(2.0 + hits, frozenset({key}))
    figures = frozenset(_figures(label))
    if figures and figures in q.spans:  # a label that is the span itself ("2003-2007")
        return _Named(2.0 + hits, figures)
    if figures:
        if not figures <= q.figures:
            return _Named(0.0)
        return _Named(2.0 + hits, figures) if hits * 2 >= len(words) else _Named(0.0)
    if not words or hits * 2 < len(words):
        return _Named(0.0)
    return _Named(hits + (0.5 if hits == len(words) else 0.0))


def _is_figure(text: str) -> bool:
    """A cell that is a figure (with at most a unit's letters: "12.5 %", "3 k€"), not words holding one."""
    return bool(extract_numbers(text)) and len(re.findall(r"[^\W\d_]", text)) <= 2


def _numbered_axis(texts: Sequence[str]) -> bool:
    """Cells that count 1, 2, 3 ... (or 12, 24, 36 ...): the numbers of a header axis, not values."""
    if len(texts) < 3 or not all(re.fullmatch(r"\d{1,3}", t) for t in texts):
        return False
    values = [int(t) for t in texts]
    steps = {b - a for a, b in zip(values, values[1:], strict=False)}
    return len(steps) == 1 and steps.pop() > 0


def _header_rows(item: Item, grid: dict[tuple[int, int], TableCell]) -> int:
    """Row 0, and the rows after it that hold no figure, or whose cells number an axis (a header written
    over several rows: a group above its columns, "dev" above 1, 2, 3 ...)."""
    n = 1
    while n < item.n_rows - 1:
        texts = [collapse_ws(grid[(n, c)].text) for c in range(1, item.n_cols) if (n, c) in grid]
        texts = [t for t in texts if t]
        label = collapse_ws(grid[(n, 0)].text) if (n, 0) in grid else ""
        if not texts or _is_figure(label) or (any(_is_figure(t) for t in texts) and not _numbered_axis(texts)):
            break
        n += 1
    return n


def _headers(item: Item, grid: dict[tuple[int, int], TableCell], rows: int) -> dict[int, str]:
    """Each column's header read down its header rows; a group written once above several columns spans them."""
    out: dict[int, str] = {}
    for c in range(item.n_cols):
        parts = []
        for r in range(rows):
            text = collapse_ws(grid[(r, c)].text) if (r, c) in grid else ""
            if not text and rows > 1 and r < rows - 1:
                left = next(
                    (
                        collapse_ws(grid[(r, k)].text)
                        for k in range(c - 1, 0, -1)
                        if (r, k) in grid and grid[(r, k)].text.strip()
                    ),
                    "",
                )
                text = left
            if text and text not in parts:
                parts.append(text)
        out[c] = " ".join(parts)
    return out


def table_unit(texts: Sequence[str]) -> str:
    """The unit and scale a table is written in, as the first of `texts` (its caption, its headers, its
    section's text) that says one writes it ("" when none does)."""
    for text in texts:
        m = _SCALE.search(text or "")
        if m:
            return m.group().strip()
    return ""


@dataclass(frozen=True)
class _Match:
    score: float
    item: Item
    hit: RetrievedParent
    row: int
    col: int
    headers: dict[int, str]


def _best_cell(item: Item, hit: RetrievedParent, q: _Question, order: int) -> _Match | None:
    if item.kind != "table" or not item.cells or item.n_rows < 2 or item.n_cols < 2:
        return None
    grid = {(c.row, c.col): c for c in item.cells}
    pairs = item.n_cols == 2 and (0, 1) in grid and _is_figure(grid[(0, 1)].text)  # label | value, no header
    rows = 0 if pairs else _header_rows(item, grid)
    headers = _headers(item, grid, rows) if rows else {0: "", 1: ""}
    row_scores = {r: _named(grid[(r, 0)].text, q) for r in range(rows, item.n_rows) if (r, 0) in grid}
    col_scores = {1: _Named(0.5)} if pairs else {c: _named(headers[c], q) for c in range(1, item.n_cols)}
    best: _Match | None = None
    for r, rs in row_scores.items():
        for c, cs in col_scores.items():
            cell = grid.get((r, c))
            if not rs.score or not cs.score or cell is None or not _is_figure(cell.text):
                continue
            if pairs and rs.score < 2:
                continue  # a label | value list (a table of contents too): named by two words or a figure
            if rs.figures & cs.figures:
                continue  # one figure of the question cannot name both the row and the column
            score = rs.score + cs.score
            if best is None or score > best.score:
                best = _Match(score, item, hit, r, c, headers)
    if best is None:
        return None
    title = item.caption or " ".join(hit.parent.heading_path[-1:])
    bonus = 0.5 * sum(1 for w in _word_stems(title) if w & q.words) - order * 1e-3
    return _Match(best.score + bonus, item, hit, best.row, best.col, headers)


def _quote(item: Item, row: Sequence[TableCell]) -> str:
    """The row as the table's text holds it (a Markdown line), else its label cell."""
    texts = [collapse_ws(c.text) for c in row if c.text.strip()]
    for line in item.text.splitlines():
        if texts and all(t in collapse_ws(line) for t in texts):
            return line.strip()
    return texts[0] if texts else ""


def cell_paragraphs(hits: Sequence[RetrievedParent], question: str, extra_terms: Sequence[str] = ()) -> list[Paragraph]:
    """The cell that answers a question naming a table's row and column (one paragraph), or nothing."""
    q = _question(question, extra_terms)
    if not q.figures and not q.periods and not q.stems:
        return []
    found = [
        m
        for order, (hit, item) in enumerate((h, i) for h in hits for i in h.parent.items)
        if (m := _best_cell(item, hit, q, order)) is not None
    ]
    if not found:
        return []
    m = max(found, key=lambda f: f.score)
    if not math.isfinite(m.score):
        return []
    grid = {(c.row, c.col): c for c in m.item.cells}
    label, cell = grid[(m.row, 0)], grid[(m.row, m.col)]
    row_cells = [grid[(m.row, c)] for c in range(m.item.n_cols) if (m.row, c) in grid]
    row_head, col_head = m.headers.get(0, ""), m.headers.get(m.col, "")
    title = m.item.caption or " › ".join(m.hit.parent.heading_path[-1:])
    unit = table_unit([m.item.caption, *m.headers.values(), m.hit.parent.text])
    where = ", ".join(x for x in (title, unit) if x)
    text = f"{collapse_ws(cell.text)} — {' '.join(x for x in (row_head, collapse_ws(label.text)) if x)}"
    text += f", {col_head}" if col_head else ""
    text += f" ({where})" if where else ""
    sid = item_source_id(m.hit.parent, m.item)
    # the section is cited too: the table's title and unit are written there (a caption, a heading)
    return [Paragraph(text=text, source_ids=[sid, parent_source_id(m.hit.parent)], quote=_quote(m.item, row_cells))]
