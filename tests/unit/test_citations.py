"""Source registry, labels, viewer targets and their annotations (rag_core.citations)."""

from __future__ import annotations

from rag_core.citations import (
    build_sources,
    cited_pages,
    label_on_pages,
    page_range,
    scroll_position,
    source_target,
    viewer_annotations,
)
from rag_core.geometry import to_top_left
from rag_core.models import SearchResult
from tests.answering_support import DOC_FR, make_result, retrieved


def test_registry_lists_each_context_parent_then_its_items() -> None:
    result = make_result(n=4)
    sources = build_sources(result, 3)
    prefix = DOC_FR[:16]
    assert [s.id for s in sources] == [
        f"{prefix}:p0003",
        f"{prefix}:p0005",
        f"{prefix}:p0005#/tables/0",
        f"{prefix}:p0005#/pictures/1",
        f"{prefix}:p0009",
    ]
    assert [s.kind for s in sources] == ["parent", "parent", "table", "picture", "parent"]
    assert all(s.doc_id == DOC_FR and s.file_name == "guide-provisionnement.pdf" for s in sources)
    assert len(build_sources(result, 1)) == 1 and build_sources(SearchResult(query="q", parents=[]), 3) == []


def test_labels_come_from_the_document() -> None:
    parent, _, table, picture, mortality = build_sources(make_result(), 3)
    assert parent.label == "Guide du provisionnement non-vie · Méthodes déterministes › Chain Ladder · p. 11–12"
    assert mortality.label == "Guide du provisionnement non-vie · Assurance vie › Tables de mortalité · p. 40"
    assert table.label == (
        "Guide du provisionnement non-vie · Table: Tableau 2 – Paiements cumulés par année de survenance"
        " · Provisions › IBNR · p. 13"
    )
    assert picture.label == "Guide du provisionnement non-vie · Figure: no caption kept · Provisions › IBNR · p. 14"
    assert table.text.startswith("| Année |") and table.caption.startswith("Tableau 2")
    assert table.parent_id == picture.parent_id == make_result().parents[1].parent.id


def test_parent_source_highlights_best_child_strongly_and_section_lightly() -> None:
    hit = make_result().parents[0]
    source = build_sources(SearchResult(query="q", parents=[hit]), 3)[0]
    assert source.boxes == hit.best_child.boxes
    assert source.parent_boxes == [b for c in hit.children for b in c.boxes]
    table = build_sources(make_result(), 3)[2]
    assert table.boxes == make_result().parents[1].parent.items[0].boxes and table.parent_boxes == []


def test_parent_ids_without_document_prefix_get_one() -> None:
    hit = make_result().parents[0]
    bare = hit.model_copy(update={"parent": hit.parent.model_copy(update={"id": "p0003"})})
    assert build_sources(SearchResult(query="q", parents=[bare]), 3)[0].id == f"{DOC_FR[:16]}:p0003"


def test_viewer_annotations_draw_the_cited_boxes_alone_in_one_style() -> None:
    source = build_sources(make_result(), 3)[0]
    target = source_target(source)
    annotations = viewer_annotations(target)
    # the passage cited, nothing of the rest of the section: one style, nothing to explain
    assert len(annotations) == len(source.boxes) == 2 and source.parent_boxes
    assert all(a["id"].startswith("cite-") for a in annotations)
    assert len({(a["color"], a["border"]) for a in annotations}) == 1 and not target.legend
    first = annotations[0]
    box = source.boxes[0]
    assert {k: first[k] for k in ("page", "x", "y", "width", "height")} == {
        "page": box.page,
        "x": box.x0,
        "y": box.y0,
        "width": box.x1 - box.x0,
        "height": box.y1 - box.y0,
    }
    assert target.pages == sorted({b.page for b in source.boxes}) == [12]
    # the section runs over p. 11-12, the passage shown is on p. 12: the viewer's label names p. 12
    assert source.label.endswith(" · p. 11–12") and target.label == source.label.replace("p. 11–12", "p. 12")


def test_a_figure_cell_is_drawn_within_its_table_under_a_legend() -> None:
    table = build_sources(make_result(), 3)[2]
    cell = table.boxes[0].model_copy(update={"x1": table.boxes[0].x0 + 5})
    target = source_target(table, focus=[cell])
    annotations = viewer_annotations(target)
    assert target.legend == "table"
    assert [a["id"] for a in annotations][:1] == ["cite-0"] and annotations[0]["x"] == cell.x0
    styles = {a["id"].split("-")[0]: (a["color"], a["border"]) for a in annotations}
    assert set(styles) == {"cite", "ctx"} and styles["cite"] != styles["ctx"]


def _ann(name: str, page: int, y: float) -> dict:
    return {"id": name, "page": page, "x": 10.0, "y": y}


def test_scroll_position_counts_as_the_viewer_does_page_by_page() -> None:
    # the viewer numbers annotations page by page: a box of page 22 listed after the quote's comes first
    anns = [_ann("cite-0", 23, 500), _ann("cite-1", 23, 520), _ann("ctx-0", 22, 700), _ann("ctx-1", 23, 100)]
    assert scroll_position(anns) == 2  # [ctx-0 (p. 22), cite-0, cite-1, ctx-1]
    # the first cited box is the top one of the first cited page, whatever the list's order
    assert scroll_position([_ann("cite-0", 2, 300), _ann("cite-1", 1, 600)]) == 1
    assert scroll_position([_ann("ctx-0", 1, 5)]) is None and scroll_position([]) is None


def test_the_label_names_the_quote_own_page() -> None:
    assert label_on_pages("Guide · Chain Ladder · p. 22–23", [23]) == "Guide · Chain Ladder · p. 23"
    assert label_on_pages("Guide · p. 4", [4, 5]) == "Guide · p. 4–5"
    assert label_on_pages("A label without page", [3]) == "A label without page"
    assert label_on_pages("Guide · p. 4", []) == "Guide · p. 4"
    source = build_sources(make_result(), 3)[0]
    # no quote found: the cited passage's pages, which the viewer shows
    assert cited_pages(source, "a sentence found nowhere") == sorted({b.page for b in source.boxes})


def test_page_range_and_coordinates() -> None:
    assert page_range([12, 11, 12]) == "p. 11–12" and page_range([5]) == "p. 5" and page_range([]) == ""
    b = to_top_left(3, 72, 700, 300, 680, "CoordOrigin.BOTTOMLEFT", 842)
    assert (b.page, b.x0, b.y0, b.x1, b.y1) == (3, 72, 142, 300, 162)
    assert retrieved(1, ["a b c."], ["H"], [1], rank=1).parent.id.endswith(":p0001")
