"""Pure parts of parsing: text clean-up, caption labels, table structure from words, OCR boxes."""

from __future__ import annotations

from rag_core.parsing.captions import is_caption_text
from rag_core.parsing.table_images import split_numbers, table_from_words, without_column_types
from rag_core.parsing.table_structure import Rule, build_table, looks_numeric
from rag_core.parsing.table_words import Word
from rag_core.parsing.unicode_text import clean_text
from rag_core.text import fold


def test_spacing_accents_are_put_back_and_bullets_named() -> None:
    assert clean_text("Ann´ees") == "Années"
    assert (
        clean_text("R´eglement des sinistres, d´ej`a, co\u02c6ut, fran\u00b8cais")
        == "Réglement des sinistres, déjà, coût, français"
    )
    assert clean_text("W¨uthrich") == "Wüthrich"
    assert clean_text("yˆ = 3") == "ŷ = 3"  # an accent after its letter
    assert clean_text("ˆα + x^a") == "ˆα + x^a"  # no precomposed letter, and exponents: left alone
    assert clean_text("e\u0301t\u00e9") == "été"  # NFC
    assert clean_text("\ufffd ALLOWED \uf0b7 DENIED") == "• ALLOWED • DENIED"
    assert clean_text("diﬀ´erent") == "diﬀérent"  # the ligature stays as displayed...
    assert fold(clean_text("diﬀ´erent")) == "different"  # ...and search folds it


def test_caption_labels_and_sentences() -> None:
    for caption in (
        "Table 0, Part A. Cumulative Paid Loss Amounts",
        "Tableau 3 : Cadences",
        "Figure 2.2 – Facteurs",
        "Figure 7",
        "Exhibit 4 Reserves",
        "Table: Règlement des sinistres",
        "Table 2-1 FUNCTION_USAGE view",
    ):
        assert is_caption_text(caption), caption
    for sentence in ("Table 3-2 lists the special registers", "Figure 4 shows the fit", "Tables are useful"):
        assert not is_caption_text(sentence), sentence


def _w(text: str, x0: float, y0: float, x1: float, y1: float) -> Word:
    return Word(text, (x0, y0, x1, y1))


def test_words_are_never_cut_and_empty_slots_stay_empty() -> None:
    # "Premium" straddles the grid's column edge at 113: it goes whole to the column of its centre
    words = [
        _w("Acc.Year", 73, 90, 105, 100),
        _w("Premium", 108, 90, 139, 100),
        _w("1", 191, 90, 195, 100),
        _w("1992", 80, 110, 100, 120),
        _w("41020", 120, 110, 140, 120),
        _w("234", 180, 110, 195, 120),
        _w("1993", 80, 130, 100, 140),
        _w("57547", 120, 130, 140, 140),
    ]
    table = build_table(words, [73, 113, 162, 209], [88, 105, 125, 145])
    grid = {(c.row, c.col): c.text for c in table.cells}
    assert [grid[(0, c)] for c in range(3)] == ["Acc.Year", "Premium", "1"]
    assert grid[(2, 2)] == ""  # the triangle's empty slot is kept, not filled by a shift
    assert [c.column_header for c in table.cells if c.row == 0] == [True] * 3
    assert all(c.row_header for c in table.cells if c.col == 0 and c.row > 0)


def test_leaders_of_a_wide_contents_table_go_and_missing_value_dots_stay() -> None:
    # "1.1 | Les triangles . . . . . | . . 1": the leader runs into the page column
    dots = [_w(".", x, 10, x + 2, 20) for x in range(120, 200, 9)]
    toc = [
        _w("1", 5, 10, 10, 20),
        _w("1.1", 30, 10, 45, 20),
        _w("Triangles", 60, 10, 110, 20),
        *dots,
        _w(".", 205, 10, 207, 20),
        _w(".", 214, 10, 216, 20),
        _w("3", 222, 10, 228, 20),
    ]
    grid = {(c.row, c.col): c.text for c in build_table(toc, [0, 25, 55, 203, 240], [5, 25]).cells}
    assert [grid[(0, c)] for c in range(4)] == ["1", "1.1", "Triangles", "3"]
    # a SAS triangle prints "." for a missing value: one per column, never a leader
    sas = [_w("2014", 5, 10, 25, 20), _w("36480", 40, 10, 65, 20)] + [
        _w(".", x, 10, x + 2, 20) for x in (90, 130, 170, 210)
    ]
    grid = {(c.row, c.col): c.text for c in build_table(sas, [0, 30, 75, 115, 155, 195, 235], [5, 25]).cells}
    assert [grid[(0, c)] for c in range(6)] == ["2014", "36480", ".", ".", ".", "."]


def test_group_header_spans_its_columns_under_a_partial_rule() -> None:
    words = [
        _w("Lang", 10, 10, 30, 18),
        _w("TEDs", 60, 2, 80, 10),
        _w("simple", 40, 14, 55, 22),
        _w("all", 85, 14, 95, 22),
        _w("OTSL", 10, 30, 30, 38),
        _w("0.9", 40, 30, 55, 38),
        _w("0.8", 85, 30, 95, 38),
        _w("HTML", 10, 40, 30, 48),
        _w("0.7", 40, 40, 55, 48),
        _w("0.6", 85, 40, 95, 48),
    ]
    rules = [Rule(0, 0, 100), Rule(12, 38, 100), Rule(26, 0, 100), Rule(50, 0, 100)]
    table = build_table(words, [0, 35, 60, 100], [0, 12, 26, 39, 50], rules)
    spans = {c.text: (c.row_span, c.col_span) for c in table.cells if c.row_span > 1 or c.col_span > 1}
    assert spans == {"Lang": (2, 1), "TEDs": (1, 2)}
    assert [c.text for c in table.cells if c.row == 1] == ["simple", "all"]  # "Lang" covers (1, 0)


def test_a_table_of_words_has_one_header_row() -> None:
    # words in every row: the rows after the first are data, never merged into the column names
    rows = [
        ("Stage", "Requirement", "Deadline"),
        ("Coursework", "Graded modules", "Month twelve"),
        ("Qualifying", "Oral defence", "Month twenty"),
        ("Dissertation", "Written work", "Month sixty"),
    ]
    words = [
        _w(word, 10 + 100 * c + 30 * i, 10 + 20 * r, 35 + 100 * c + 30 * i, 18 + 20 * r)
        for r, row in enumerate(rows)
        for c, cell in enumerate(row)
        for i, word in enumerate(cell.split())
    ]
    table = build_table(words, [0, 100, 200, 300], [5, 25, 45, 65, 85])
    assert {c.row for c in table.cells if c.column_header} == {0}
    assert [c.text for c in table.cells if c.row == 2] == ["Qualifying", "Oral defence", "Month twenty"]
    # above a row of figures, rows of words are a header of two rows
    head = [w for w in words if w.bbox[1] < 40]  # the first two rows
    figures = [_w(v, 10 + 100 * c, 50, 35 + 100 * c, 58) for c, v in enumerate(("2021", "12", "24"))]
    table = build_table([*head, *figures], [0, 100, 200, 300], [5, 25, 45, 65])
    assert {c.row for c in table.cells if c.column_header} == {0, 1}


def test_ocr_boxes_become_a_grid_of_numbers() -> None:
    assert [w.text for w in split_numbers(_w("105.78% 100.45%", 0, 0, 100, 10))] == ["105.78%", "100.45%"]
    assert [w.text for w in split_numbers(_w("6 359 225,8", 0, 0, 100, 10))] == ["6 359 225,8"]
    assert looks_numeric("1 234,5") and looks_numeric("-75") and looks_numeric("(3)") and not looks_numeric("f_nb")
    rows = [["", "1", "2"], ["2005", "31 116", "33 092"], ["2006", "31 198", "NA"]]
    words = [
        _w(text, 10 + 40 * c, 10 + 15 * r, 40 + 40 * c, 20 + 15 * r)
        for r, row in enumerate(rows)
        for c, text in enumerate(row)
        if text
    ]
    table = table_from_words(words, (0, 0, 130, 60))
    assert table is not None and (table.n_rows, table.n_cols) == (3, 3)
    assert [[c.text for c in table.cells if c.row == r] for r in range(3)] == rows
    chart_ticks = [
        _w("0", 5, 10, 10, 18),
        _w("50", 5, 40, 15, 48),
        _w("100", 5, 70, 20, 78),
        _w("2010", 30, 90, 50, 98),
        _w("2015", 80, 90, 100, 98),
        _w("2020", 130, 90, 150, 98),
    ]
    assert table_from_words(chart_ticks, (0, 0, 160, 100)) is None  # axis labels are not a table


def test_the_column_types_an_r_console_prints_under_a_header_are_not_a_row() -> None:
    """ "<chr>" under each development year (OCR: "<|<chr>>") hid the header: the export made up column numbers."""
    header = [Word(str(year), (100.0 + 60 * year, 10.0, 120.0 + 60 * year, 20.0)) for year in range(1, 4)]
    types = [Word("<|<chr>>", (95.0 + 60 * year, 25.0, 125.0 + 60 * year, 35.0)) for year in range(1, 4)]
    data = [Word("2005", (20.0, 40.0, 50.0, 50.0))] + [
        Word("9 507 579", (95.0 + 60 * year, 40.0, 125.0 + 60 * year, 50.0)) for year in range(1, 4)
    ]
    kept = without_column_types(header + types + data)
    assert kept == header + data
    table = table_from_words(kept, (0.0, 0.0, 300.0, 60.0))
    assert table is not None and table.n_rows == 2
    lone = [Word("<int>", (100.0, 25.0, 120.0, 35.0))]
    assert without_column_types(header + lone) == header + lone  # one such word alone is kept
