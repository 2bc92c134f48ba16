"""A table of contents or a list of figures taken by the layout for a table is not a table
(`pdf_tables.contents_list`); a loss triangle or a table of counts stays one."""

from __future__ import annotations

from rag_core.parsing.document_builder import Block
from rag_core.parsing.pdf_tables import contents_list
from rag_core.parsing.table_structure import Cell


def _table(rows: list[list[str]]) -> Block:
    cells = [Cell(r, c, text, (0, 0, 1, 1)) for r, row in enumerate(rows) for c, text in enumerate(row)]
    return Block("table", 2, (0, 0, 100, 100), cells=cells, n_rows=len(rows), n_cols=len(rows[0]))


def test_a_numbered_contents_page_is_not_a_table() -> None:
    rows = [
        ["1", "Chargement et Analyse des triangles", "1"],
        ["1.1", "Les triangles de liquidation", "1"],
        ["1.2", "Chargement des triangles données", "3"],
        ["2", "Méthode de Chain Ladder", "7"],
    ]
    assert contents_list(_table(rows))


def test_a_list_of_figures_with_dot_leaders_is_not_a_table() -> None:
    rows = [[f"Figure {n}: Triangle of paid claims, line {n} . . . . . . {2 * n}"] for n in range(1, 5)]
    assert contents_list(_table(rows))


def test_a_triangle_and_a_table_of_counts_stay_tables() -> None:
    triangle = [["", "1", "2"], ["2005", "31 116", "33 092"], ["2006", "31 198", "33 120"], ["2007", "32 010", ""]]
    counts = [["Line", "Claims"], ["Motor", "12"], ["Property", "15"], ["Liability", "31"]]
    assert not contents_list(_table(triangle)) and not contents_list(_table(counts))
