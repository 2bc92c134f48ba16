"""The source registry and readable labels for citations.

The source registry (`build_sources`) turns the context parents of a search into the
citable `Source` objects, with labels written from the document's own metadata.
Boxes arrive already in top-left coordinates (`rag_core.geometry`). `quote_highlight` maps a paragraph's quote to the line boxes it covers (boxes keep the span of
their text). This module does not check citations (see `rag_core.answering.verification`) and does not
render anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rag_core.models import Child, DocumentRecord, HighlightBox, Item, Parent, RetrievedParent, SearchResult, Source
from rag_core.text import find_quote


# --- Source registry -------------------------------------------------------------------
#
# Every citable thing the model may cite is registered here, from the document's own
# metadata: a context parent (a section), and each table, picture and formula inside it.
# Labels and names never come from the model.

_KIND_WORDS = {"table": "Table", "picture": "Figure", "formula": "Formula"}
NO_CAPTION = "no caption kept"

STRONG_COLOR = "#e4572e"  # the cited passage (best child or item)
LIGHT_COLOR = "#f2b134"  # the rest of the cited section
PASSAGE_COLOR = "#f08a4b"  # the rest of the child that holds a quote (between the two)


def page_range(pages: Sequence[int]) -> str:
    """'p. 4' or 'p. 4–7' (an en dash, as in print); '' when no page is known."""
    known = sorted({p for p in pages if p})
    if not known:
        return ""
    if known[0] == known[-1]:
        return f"p. {known[0]}"
    return f"p. {known[0]}–{known[-1]}"


def parent_source_id(parent: Parent) -> str:
    """Parent ids already embed the document id ('<doc_id[:16]>:p0003'); others get it prefixed."""
    prefix = parent.doc_id[:16]
    return parent.id if parent.id.startswith(prefix) else f"{prefix}:{parent.id}"


def item_source_id(parent: Parent, item: Item) -> str:
    """'<parent source id>#/tables/0': the item's Docling reference after the parent's id."""
    return f"{parent_source_id(parent)}#{item.ref.lstrip('#')}"


def _document_title(document: DocumentRecord) -> str:
    return (document.title or "").strip() or document.file_name


def _join_label(*parts: str) -> str:
    return " · ".join(p for p in parts if p)


def _in_parent(child: Child) -> list[HighlightBox]:
    """The child's boxes with their text spans moved from the child's text to the parent's."""
    return [
        b if b.start is None or b.end is None
        else b.model_copy(update={"start": b.start + child.start, "end": b.end + child.start})
        for b in child.boxes
    ]


def _parent_source(hit: RetrievedParent) -> Source:
    parent, document = hit.parent, hit.document
    title = _document_title(document)
    parent_boxes = [box for child in hit.children for box in _in_parent(child)]
    return Source(
        id=parent_source_id(parent),
        kind="parent",
        doc_id=parent.doc_id,
        file_name=document.file_name,
        title=title,
        language=document.language,
        section=parent.section,
        pages=sorted(set(parent.pages)),
        label=_join_label(title, parent.section, page_range(parent.pages)),
        collection=document.collection,
        text=parent.text,
        parent_id=parent.id,
        boxes=_in_parent(hit.best_child),
        parent_boxes=parent_boxes,
        child_spans=[(c.start, c.end) for c in hit.children],
    )


def _item_source(hit: RetrievedParent, item: Item) -> Source:
    parent, document = hit.parent, hit.document
    title = _document_title(document)
    caption = item.caption.strip()
    what = f"{_KIND_WORDS[item.kind]}: {caption or NO_CAPTION}"
    return Source(
        id=item_source_id(parent, item),
        kind=item.kind,
        doc_id=parent.doc_id,
        file_name=document.file_name,
        title=title,
        language=document.language,
        section=parent.section,
        pages=[item.page],
        label=_join_label(title, what, parent.section, page_range([item.page])),
        collection=document.collection,
        text=item.text or caption,
        caption=caption,
        parent_id=parent.id,
        boxes=list(item.boxes),
    )


def build_sources(result: SearchResult, context_k: int) -> list[Source]:
    """The citable sources of the first `context_k` parents: each parent, then its items."""
    sources: list[Source] = []
    seen: set[str] = set()
    for hit in result.parents[: max(context_k, 0)]:
        for source in [_parent_source(hit), *(_item_source(hit, item) for item in hit.parent.items)]:
            if source.id not in seen:
                seen.add(source.id)
                sources.append(source)
    return sources


def quote_highlight(
    source: Source, quote: str
) -> tuple[list[HighlightBox], list[HighlightBox], list[HighlightBox]] | None:
    """(quoted lines, rest of the child that holds the quote, rest of the section) of a parent source.

    The quote is located in the parent's text (letters and digits compared, as the verification
    does) and mapped to the line boxes whose text span it covers. None when the quote is not
    found, the source is a table/figure/formula, or its boxes carry no text span (a library
    chunked before spans were kept): then the whole best child stays the cited passage.
    """
    if source.kind != "parent" or not quote.strip():
        return None
    near = next((b.start for b in source.boxes if b.start is not None), 0)
    span = find_quote(source.text, quote, near)
    if span is None:
        return None
    q0, q1 = span
    pool = list(dict.fromkeys([*source.parent_boxes, *source.boxes]))
    spanned = [b for b in pool if b.start is not None and b.end is not None]
    quoted = [b for b in spanned if b.start < q1 and b.end > q0]  # type: ignore[operator]
    if not quoted:
        return None
    holders = [(a, z) for a, z in source.child_spans if a < q1 and z > q0]
    if holders:
        child = [b for b in spanned if b not in quoted and any(a <= b.start < z for a, z in holders)]  # type: ignore[operator]
    else:
        child = [b for b in source.boxes if b not in quoted]
    rest = [b for b in pool if b not in quoted and b not in child]
    return quoted, child, rest


def viewer_annotations(
    source: Source,
    strong_color: str = STRONG_COLOR,
    light_color: str = LIGHT_COLOR,
    include_parent: bool = True,
    quote: str = "",
    passage_color: str = PASSAGE_COLOR,
) -> list[dict[str, Any]]:
    """Annotations for streamlit-pdf-viewer: the cited passage first (strong), then its section (light).

    With a `quote` found in the source (`quote_highlight`), the quoted lines are the strong
    boxes, the rest of the child that holds them comes next ("passage"), then the section.
    Boxes are already top-left PDF points (`HighlightBox`), which is what the viewer draws.
    The strong boxes come first so that `scroll_to_annotation=1` lands on the cited passage.
    """
    annotations: list[dict[str, Any]] = []
    tiers = quote_highlight(source, quote) if quote else None
    if tiers is None:
        strong = list(dict.fromkeys(source.boxes))
        passage: list[HighlightBox] = []
        light = [b for b in dict.fromkeys(source.parent_boxes) if b not in set(strong)]
    else:
        strong, passage, light = tiers
    if not include_parent:
        light = []
    for role, boxes, color, border in (("strong", strong, strong_color, "solid"),
                                       ("passage", passage, passage_color, "solid"),
                                       ("light", light, light_color, "dashed")):
        for i, box in enumerate(boxes):
            annotations.append(
                {
                    "page": box.page,
                    "x": box.x0,
                    "y": box.y0,
                    "width": max(box.x1 - box.x0, 0.0),
                    "height": max(box.y1 - box.y0, 0.0),
                    "color": color,
                    "border": border,
                    "id": f"{source.id}|{role}|{i}",
                }
            )
    return annotations
