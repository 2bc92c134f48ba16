"""Small pure helpers of ui.widgets: escaping, annotation mapping, table grids."""

from __future__ import annotations

from rag_app.ui.markdown import escape_md
from rag_app.ui.widgets import short_label, table_frame
from rag_core.citations import highlight_target, viewer_annotations
from rag_core.models import HighlightBox, Item, TableCell


def test_escape_md_neutralises_markdown_html_latex_and_lists() -> None:
    text = "# Title\n- item\n1. first\n*bold* _it_ `code` [link](x) <b>html</b> $x^2$ :red[c]"
    escaped = escape_md(text)
    assert escaped.startswith("\\# Title\n\\- item\n1\\. first")
    for done in (r"\*bold\*", r"\_it\_", r"\`code\`", r"\[link\]", r"\<b\>", r"\$x^2\$", r"\:red\[c\]"):
        assert done in escaped
    assert escape_md("&amp; &lt;b&gt;") == r"\&amp; \&lt;b\&gt;"  # entities are shown as written


def test_annotations_map_pages_and_put_cited_boxes_first() -> None:
    strong = [HighlightBox(page=40, x0=10, y0=20, x1=110, y1=32)]
    light = [HighlightBox(page=40, x0=10, y0=40, x1=110, y1=52), HighlightBox(page=41, x0=10, y0=40, x1=110, y1=52)]
    target = highlight_target(doc_id="d", file_name="a.pdf", label="a", pages=[40], boxes=strong, parent_boxes=light)
    assert [a["id"] for a in viewer_annotations(target, {40: 1})] == ["cite-0"]  # no legend: one style
    target = target.model_copy(update={"legend": "table"})  # a figure's cell within its table
    anns = viewer_annotations(target, {40: 1})
    assert [a["id"] for a in anns] == ["cite-0", "ctx-0"]  # page 41 is not in the excerpt
    assert anns[0] | {"color": None} == {
        "id": "cite-0",
        "page": 1,
        "x": 10,
        "y": 20,
        "width": 100,
        "height": 12,
        "color": None,
        "border": "solid",
    }


def test_table_frame_uses_a_usable_first_row_as_header() -> None:
    cells = [
        TableCell(row=r, col=c, text=t) for r, row in enumerate([["a", "b"], ["1", "2"]]) for c, t in enumerate(row)
    ]
    item = Item(ref="#/tables/0", kind="table", page=1, boxes=[], cells=cells, n_rows=2, n_cols=2)
    frame = table_frame(item)
    assert list(frame.columns) == ["a", "b"] and frame.values.tolist() == [["1", "2"]]
    ragged = item.model_copy(update={"cells": cells[:1] + cells[2:], "n_rows": 0, "n_cols": 0})
    assert list(table_frame(ragged).columns) == ["1", "2"]  # empty header cell: numbered columns


def test_short_label_keeps_the_page_number_whole() -> None:
    label = "Solvency II technical provisions guide · Section 4 › Calculation of the risk margin · p. 213"
    short = short_label(label, 60)
    assert len(short) <= 60 and short.endswith(" · p. 213") and "…" in short
    assert short.startswith("Solvency II technical")
    assert short_label("Guide · p. 4–7", 60) == "Guide · p. 4–7"  # short enough: as it is
    assert short_label("x" * 80 + " · p. 12–14", 40).endswith("… · p. 12–14")
    assert short_label("no page part " * 10, 30).endswith("…") and len(short_label("no page part " * 10, 30)) <= 30


def test_a_card_names_the_passage_page_and_keeps_the_whole_label_for_its_tooltip() -> None:
    from rag_app.ui.widgets import card_label
    from rag_core.models import HighlightBox
    from tests.ui.apptest_support import SOURCE

    long = "Solvency II guidelines on the valuation of technical provisions · Section 4 › Risk margin · p. 22–23"
    slide = SOURCE.model_copy(
        update={"label": long, "pages": [22, 23], "boxes": [HighlightBox(page=23, x0=72, y0=90, x1=500, y1=104)]}
    )
    text, whole = card_label(slide)  # no quote: the cited passage's page, which the viewer opens
    assert whole == long.replace("p. 22–23", "p. 23") and text.endswith("… · p. 23") and len(text) <= 72
    assert card_label(SOURCE) == (SOURCE.label, "")  # short: as it is, no tooltip
