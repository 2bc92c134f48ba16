"""Source registry, labels, viewer targets and their annotations (rag_core.citations)."""

from __future__ import annotations

from rag_core.citations import build_sources, page_range, source_target, viewer_annotations
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


def test_viewer_annotations_cited_boxes_first_then_the_section() -> None:
    source = build_sources(make_result(), 3)[0]
    target = source_target(source)
    annotations = viewer_annotations(target)
    strong = [a for a in annotations if a["border"] == "solid"]
    light = [a for a in annotations if a["border"] == "dashed"]
    assert annotations[: len(strong)] == strong and len(strong) == len(source.boxes) == 2
    assert all(a["id"].startswith("cite-") for a in strong) and all(a["id"].startswith("ctx-") for a in light)
    assert len(light) == len(source.parent_boxes)
    first = annotations[0]
    box = source.boxes[0]
    assert {k: first[k] for k in ("page", "x", "y", "width", "height")} == {
        "page": box.page,
        "x": box.x0,
        "y": box.y0,
        "width": box.x1 - box.x0,
        "height": box.y1 - box.y0,
    }
    assert {a["color"] for a in strong} != {a["color"] for a in light}
    assert target.pages == sorted({b.page for b in source.boxes}) and target.label == source.label


def test_page_range_and_coordinates() -> None:
    assert page_range([12, 11, 12]) == "p. 11–12" and page_range([5]) == "p. 5" and page_range([]) == ""
    b = to_top_left(3, 72, 700, 300, 680, "CoordOrigin.BOTTOMLEFT", 842)
    assert (b.page, b.x0, b.y0, b.x1, b.y1) == (3, 72, 142, 300, 162)
    assert retrieved(1, ["a b c."], ["H"], [1], rank=1).parent.id.endswith(":p0001")
