"""Table rows as an answer: when the question names a row label of a context table, show the row.

A row is named when its label (its first cell) is a figure the question writes (an accident
year: "1991") or words the question holds ("IBNR", "Total"); a column is named the same way by
its header. The answer paragraph then shows the matching rows (at most `MAX_ROWS`), restricted
to the named columns when the question names some, cites the table itself and quotes the row
as the table's text holds it; each cell keeps its box so that a click opens that cell. The
paragraph's text reads the row ("1991 — Latest: 5,234; IBNR: 851") so that its figures are
traced to their cells like any other. Nothing is generated and nothing is searched.

A row that an extractive answer quotes as one of its sentences (a line of the parent's Markdown, chosen
for its words, not for its label) is shown the same way (`quoted_row_paragraph`): with its table's
header row, so that each value reads under its column; a bare "| a | b |" line says neither.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_core.answering.evidence import stem_set
from rag_core.citations import item_source_id
from rag_core.models import Item, Paragraph, Parent, RetrievedParent, TableCell, TableExcerpt
from rag_core.text import collapse_ws, fold

MAX_ROWS = 3
MAX_TABLES = 2
_FIGURE = re.compile(r"\d[\d.,]*")
_KEEP = re.compile(r"[^\W_]+")  # the letters and digits of a cell, compared without spaces, dashes or pipes
_LETTER_ANY = re.compile(r"[^\W\d_]")
_LETTER = re.compile(r"(?<![^\W\d_])[^\W\d_](?![^\W\d_]|['’])")  # a letter alone, not an elision (l', d')


def _figures(text: str) -> set[str]:
    return {m.group().strip(".,") for m in _FIGURE.finditer(text) if len(m.group().strip(".,")) >= 2}


def _symbols(text: str) -> set[str]:
    """The one-letter symbols a text writes ("S.E" of "Mack.S.E", "z"), which content stems leave out."""
    return {w for w in _LETTER.findall(fold(text)) if w not in ("a", "à")}


def _names(label: str, figures: set[str], stems: frozenset[str], symbols: set[str]) -> bool:
    """Does the question name this label? Its figures (a year) or all its words, one-letter symbols
    included: a header "Mack.S.E" is not named by a question that says "Mack" for the method."""
    label = collapse_ws(label)
    if not label:
        return False
    own = _figures(label)
    if own and re.fullmatch(r"[\d\s.,/-]+", label):
        return own <= figures
    words = stem_set(label)
    return bool(words) and words <= stems and not own - figures and _symbols(label) <= symbols


def _grid(item: Item) -> dict[tuple[int, int], TableCell]:
    return {(c.row, c.col): c for c in item.cells}


def _quote(item: Item, row: list[TableCell]) -> str:
    """The row as the table's text holds it (a Markdown line), else its label cell."""
    texts = [collapse_ws(c.text) for c in row if c.text.strip()]
    for line in item.text.splitlines():
        flat = collapse_ws(line)
        if texts and all(t in flat for t in texts):
            return line.strip()
    return texts[0] if texts else ""


def excerpt(item: Item, source_id: str, question: str) -> TableExcerpt | None:
    """The rows (and columns) of `item` that the question names; None when it names no row."""
    if item.kind != "table" or not item.cells or item.n_rows < 2:
        return None
    grid = _grid(item)
    figures, stems, symbols = _figures(question), stem_set(question), _symbols(question)
    rows = [
        r for r in range(1, item.n_rows) if _names(grid[(r, 0)].text if (r, 0) in grid else "", figures, stems, symbols)
    ]
    if not rows:
        return None
    cols = [c for c in range(1, item.n_cols) if (0, c) in grid and _names(grid[(0, c)].text, figures, stems, symbols)]
    shown = [0, *cols] if cols else list(range(item.n_cols))
    header = [grid[(0, c)] for c in shown if (0, c) in grid]
    body = [[grid[(r, c)] for c in shown if (r, c) in grid] for r in rows[:MAX_ROWS]]
    matched = [(r, c) for r in rows[:MAX_ROWS] for c in (cols or [0])]
    return TableExcerpt(source_id=source_id, caption=item.caption, header=header, rows=body, matched=matched)


def _reading(table: TableExcerpt) -> str:
    """The rows as a sentence: "1991 — Latest: 5,234; IBNR: 851"."""
    heads = {c.col: collapse_ws(c.text) for c in table.header}
    lines = []
    for row in table.rows:
        label, rest = collapse_ws(row[0].text), row[1:]
        cells = "; ".join(
            f"{heads.get(c.col, '') + ': ' if heads.get(c.col) else ''}{collapse_ws(c.text)}"
            for c in rest
            if c.text.strip()
        )
        lines.append(f"{label} — {cells}" if cells else label)
    return " · ".join(lines)


def table_paragraphs(hits: Sequence[RetrievedParent], question: str) -> list[Paragraph]:
    """One paragraph per context table whose rows the question names (at most `MAX_TABLES`); the tables
    whose caption (or, without one, section heading) shares the most words with the question first."""
    stems = stem_set(question)
    found: list[tuple[int, int, Paragraph]] = []
    for hit in hits:
        for item in hit.parent.items:
            sid = item_source_id(hit.parent, item)
            table = excerpt(item, sid, question)
            if table is None:
                continue
            quote = _quote(item, table.rows[0])
            title = item.caption or (hit.parent.heading_path[-1] if hit.parent.heading_path else "")
            found.append(
                (
                    -len(stem_set(title) & stems),
                    len(found),
                    Paragraph(text=_reading(table), source_ids=[sid], quote=quote, table=table),
                )
            )
    return [p for _, _, p in sorted(found, key=lambda f: f[:2])[:MAX_TABLES]]


def _key(text: str) -> str:
    return "".join(_KEEP.findall(fold(text)))


def _cell_keys(keys: Sequence[str]) -> list[str]:
    """The non-empty cells in order, a run of equal ones once (a spanning cell the Markdown repeats)."""
    out: list[str] = []
    for k in keys:
        if k and (not out or out[-1] != k):
            out.append(k)
    return out


def quoted_row(parent: Parent, line: str) -> tuple[Item, int] | None:
    """The table of `parent` and its body row (not its header) that a Markdown line of the parent's text
    writes; None when the line is no row of a table the parent holds with its cells."""
    text = line.strip()
    if not text.startswith("|"):
        return None
    written = _cell_keys([_key(x) for x in text.strip("|").split("|")])
    if not written:
        return None
    for item in parent.items:
        if item.kind != "table" or not item.cells or item.n_rows < 2:
            continue
        grid = _grid(item)
        for r in range(1, item.n_rows):
            if _cell_keys([_key(grid[(r, c)].text) if (r, c) in grid else "" for c in range(item.n_cols)]) == written:
                return item, r
    return None


_PERIOD = re.compile(r"\d{1,4}")  # a development period or a year heading a column ("12", "24", "2019")


def _header(item: Item, grid: dict[tuple[int, int], TableCell]) -> list[TableCell]:
    """The table's first row when it reads as its header: the page shows it as one (`Item.grid`), and it
    holds a word or counts up (development periods, years); a first row of other figures is data (a
    table printed without a header), whose figures as column names would mislead. Else none."""
    first = [grid[(0, c)] for c in range(item.n_cols) if (0, c) in grid]
    texts = [collapse_ws(c.text) for c in first if c.text.strip()]
    if not texts or item.grid()[0] != [grid[(0, c)].text if (0, c) in grid else "" for c in range(item.n_cols)]:
        return []
    if any(_LETTER_ANY.search(t) for t in texts):
        return first
    counts = [int(t) for t in texts if _PERIOD.fullmatch(t)]
    return first if len(counts) == len(texts) and counts == sorted(set(counts)) else []


def quoted_row_paragraph(parent: Parent, lines: Sequence[str]) -> Paragraph | None:
    """Quoted table rows (adjacent lines of the parent's text) as a table excerpt: the table's header row
    above them, their cells with their boxes, citing the table; None unless every line is a body row of
    one table of `parent`."""
    found = [f for f in (quoted_row(parent, line) for line in lines) if f is not None]
    if not lines or len(found) != len(lines) or len({id(item) for item, _ in found}) != 1:
        return None
    item, rows = found[0][0], [r for _, r in found]
    grid = _grid(item)
    table = TableExcerpt(
        source_id=item_source_id(parent, item),
        caption=item.caption,
        header=_header(item, grid),
        rows=[[grid[(r, c)] for c in range(item.n_cols) if (r, c) in grid] for r in rows],
        matched=[(r, 0) for r in rows],
    )
    quote = next((x.strip() for x in lines if x.strip()), "")
    return Paragraph(text=_reading(table), source_ids=[table.source_id], quote=quote, table=table)


def with_row(paragraph: Paragraph, other: Paragraph) -> Paragraph:
    """`paragraph`'s table excerpt with the rows of `other` (rows of the same table) added below its own,
    up to `MAX_ROWS`; unchanged when it already shows them or is full."""
    table, extra = paragraph.table, other.table
    if table is None or extra is None or table.source_id != extra.source_id:
        return paragraph
    new = [i for i, m in enumerate(extra.matched) if m not in table.matched][: max(0, MAX_ROWS - len(table.rows))]
    if not new:
        return paragraph
    merged = table.model_copy(
        update={
            "rows": [*table.rows, *(extra.rows[i] for i in new)],
            "matched": [*table.matched, *(extra.matched[i] for i in new)],
        }
    )
    return paragraph.model_copy(update={"table": merged, "text": _reading(merged)})
