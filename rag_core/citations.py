"""The source registry, readable labels for citations, and what the viewer highlights.

The source registry (`build_sources`) turns the context parents of a search into the
citable `Source` objects, with labels written from the document's own metadata.
Boxes arrive already in top-left coordinates (`rag_core.geometry`). `quote_highlight` maps a
paragraph's quote to the line boxes it covers (boxes keep the span of their text).
`highlight_target` / `source_target` say what the viewer must show (a `ViewerTarget`), and
`viewer_annotations` is the one builder of its highlights, in the one set of colours the app
draws. This module does not check citations (see `rag_core.answering.verification`) and does
not render anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import Field

from rag_core.models import (
    Child,
    DocumentRecord,
    Frozen,
    HighlightBox,
    Item,
    Paragraph,
    Parent,
    RetrievedParent,
    SearchResult,
    Source,
)
from rag_core.text import find_quote

# --- Source registry -------------------------------------------------------------------
#
# Every citable thing the model may cite is registered here, from the document's own
# metadata: a context parent (a section), and each table, picture and formula inside it.
# Labels and names never come from the model.

_KIND_WORDS = {"table": "Table", "picture": "Figure", "formula": "Formula"}
NO_CAPTION = "no caption kept"

STRONG_COLOR = "#d62728"  # the cited passage (the quoted lines, else the best child or the item)
LIGHT_COLOR = "#7fb3d5"  # what holds a figure's cell (its table or passage), drawn only with a legend


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


SECTION_LABEL_CHARS = 110  # a card's section label longer than this is shortened in its middle


def section_label(path: Sequence[str], limit: int = SECTION_LABEL_CHARS) -> str:
    """The heading path the reader recognises ("Section 1 › … › Guideline 69 – Methods to …"):
    when too long, the middle headings go first, then the middle of the last heading's text, so
    that its start (its number) and its end stay readable. '' when there is no heading."""
    parts = [" ".join(p.split()) for p in path if p.strip()]
    if not parts:
        return ""
    full = " › ".join(parts)
    if len(full) <= limit:
        return full
    last = parts[-1]
    if len(parts) > 1 and len(parts[0]) + len(last) + 5 <= limit:
        return f"{parts[0]} › … › {last}"
    if len(last) <= limit:
        return last
    keep = limit - 1
    return f"{last[: keep - keep // 3].rstrip()}…{last[len(last) - keep // 3 :].lstrip()}"


def _in_parent(child: Child) -> list[HighlightBox]:
    """The child's boxes with their text spans moved from the child's text to the parent's."""
    return [
        b
        if b.start is None or b.end is None
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
        label=_join_label(title, section_label(parent.heading_path) or parent.section, page_range(parent.pages)),
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
        label=_join_label(title, what, section_label(parent.heading_path) or parent.section, page_range([item.page])),
        collection=document.collection,
        text=item.text or caption,
        caption=caption,
        parent_id=parent.id,
        boxes=list(item.boxes),
    )


def build_sources(result: SearchResult, context_k: int) -> list[Source]:
    """The citable sources of the first `context_k` parents: each parent, then its items, then the parents
    that hold the items of a list it announces at its end (`SearchResult.announced`)."""
    sources: list[Source] = []
    seen: set[str] = set()
    announced = {a.parent_id: a.items for a in result.announced}
    for hit in result.parents[: max(context_k, 0)]:
        listed = [_parent_source(item) for item in announced.get(hit.parent.id, [])]
        for source in [_parent_source(hit), *(_item_source(hit, item) for item in hit.parent.items), *listed]:
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


class ViewerTarget(Frozen):
    """What the viewer must show: a document's pages and three tiers of boxes (it lives in session state)."""

    doc_id: str
    file_name: str
    label: str
    pages: list[int] = Field(description="The pages shown: those of the highlighted boxes, else the source's")
    quoted: list[HighlightBox] = Field(default_factory=list, description="The quote's lines (strongest)")
    boxes: list[HighlightBox] = Field(
        default_factory=list, description="The cited passage (strong, or less strong when there are quoted lines)"
    )
    parent_boxes: list[HighlightBox] = Field(default_factory=list, description="The rest of the section (light)")
    text: str = Field("", description="Shown instead of the page when the document has none")
    source_id: str = ""
    legend: str = Field(
        "",
        description="'table' or 'passage' when a figure's cell is drawn within what holds it (a second style, "
        "named by a legend); '' draws the cited boxes alone, in one style",
    )


def source_label(source: Source) -> str:
    """A source's card text: a table, figure or formula leads with its caption."""
    if source.kind in ("table", "picture", "formula") and source.caption:
        return f"{source.caption} · {source.file_name} · p. {', '.join(str(p) for p in source.pages)}"
    return source.label


def highlight_target(
    *,
    doc_id: str,
    file_name: str,
    label: str,
    pages: Sequence[int],
    boxes: Iterable[HighlightBox],
    parent_boxes: Iterable[HighlightBox] = (),
    text: str = "",
    source_id: str = "",
    quoted: Iterable[HighlightBox] = (),
    legend: str = "",
) -> ViewerTarget:
    """The viewer on `boxes` within `parent_boxes` (with the `quoted` lines first when there are); the
    second tier is drawn only with a `legend` (see `viewer_annotations`)."""
    quoted, boxes, parent_boxes = list(quoted), list(boxes), list(parent_boxes)
    shown = sorted({b.page for b in [*quoted, *boxes]}) or sorted({int(p) for p in pages})
    return ViewerTarget(
        doc_id=doc_id,
        file_name=file_name,
        label=label,
        pages=shown,
        quoted=quoted,
        boxes=boxes,
        parent_boxes=parent_boxes,
        text=text,
        source_id=source_id,
        legend=legend,
    )


def paragraph_focus(paragraph: Paragraph, source: Source) -> list[HighlightBox]:
    """The cells of `source` the paragraph's figures were traced to (a figure answered from its cell):
    what its citation highlights first, rather than the whole table."""
    if source.kind != "table":
        return []
    out: list[HighlightBox] = []
    for n in paragraph.numbers:
        loc = n.location
        if n.status == "quoted" and loc is not None and loc.kind == "cell" and loc.source_id == source.id:
            out += [b for b in loc.boxes if b not in out]
    return out


def cited_pages(source: Source, quote: str = "") -> list[int]:
    """The pages a citation shows and names: those of the quote's lines when the quote is found, else
    those of the cited passage (the best child, the item), else the source's. A slide whose title is
    on one page and text on the next, or a quote that starts a page after its section, is named by
    the quote's own page."""
    tiers = quote_highlight(source, quote) if quote else None
    boxes = tiers[0] if tiers else source.boxes
    return sorted({b.page for b in boxes}) or sorted(set(source.pages))


def label_on_pages(label: str, pages: Sequence[int]) -> str:
    """`label` whose closing page part ('p. 4', 'p. 4–7', 'p. 4, 5') names `pages` instead."""
    head, sep, tail = label.rpartition(" · ")
    if not sep or not tail.startswith("p. ") or not page_range(pages):
        return label
    return f"{head} · {page_range(pages)}"


def source_target(source: Source, quote: str = "", focus: Sequence[HighlightBox] = ()) -> ViewerTarget:
    """The viewer target of a source: with the paragraph's `quote`, its lines alone (the rest of the
    passage is not tinted: one style, nothing to explain); `focus` (the cells a figure comes from,
    `paragraph_focus`) is drawn within its table, under a legend; else the cited passage."""
    tiers = quote_highlight(source, quote) if quote and not focus else None
    if tiers:
        quoted, boxes, legend = tiers[0], [], ""
    else:
        quoted, boxes, legend = list(focus), source.boxes, "table" if focus else ""
    target = highlight_target(
        doc_id=source.doc_id,
        file_name=source.file_name,
        label=source_label(source),
        pages=source.pages,
        boxes=boxes,
        parent_boxes=[] if tiers else source.parent_boxes,
        text=source.text,
        source_id=source.id,
        quoted=quoted,
        legend=legend,
    )
    return target.model_copy(update={"label": label_on_pages(target.label, target.pages)})


def viewer_annotations(target: ViewerTarget, page_map: Mapping[int, int] | None = None) -> list[dict[str, Any]]:
    """streamlit-pdf-viewer annotations: the cited ("cite-") boxes (the quoted lines when there are,
    else the passage), in one style; with a `legend` only, what holds them ("ctx-", light, dashed:
    the table or passage of a figure's cell). `page_map`: original page -> page of the excerpt shown
    (a box on a page not shown is left out); None: the original pages. `scroll_position` says which
    one the viewer lands on."""
    strong = target.quoted or target.boxes
    second = (target.boxes if target.quoted else target.parent_boxes) if target.legend else []
    anns: list[dict[str, Any]] = []
    for prefix, boxes, color in (("cite", strong, STRONG_COLOR), ("ctx", second, LIGHT_COLOR)):
        border = "dashed" if prefix == "ctx" else "solid"
        for i, b in enumerate(boxes):
            page = b.page if page_map is None else page_map.get(b.page)
            if page is None:
                continue
            anns.append(
                {
                    "id": f"{prefix}-{i}",
                    "page": page,
                    "x": b.x0,
                    "y": b.y0,
                    "width": max(b.x1 - b.x0, 1.0),
                    "height": max(b.y1 - b.y0, 1.0),
                    "color": color,
                    "border": border,
                }
            )
    return anns


def scroll_position(annotations: Sequence[Mapping[str, Any]]) -> int | None:
    """The 1-based position, as streamlit-pdf-viewer counts for `scroll_to_annotation`, of the first
    cited box (the first "cite-" one, top first on its page). The viewer numbers the annotations page
    by page (all of page 1's in list order, then page 2's...), not in the list's order: position 1
    is the first box of the first page shown, which lies a page above the quote when the passage
    starts on the page before it. None when no box is cited."""
    cited = [a for a in annotations if str(a["id"]).startswith("cite-")]
    if not cited:
        return None
    first = min(cited, key=lambda a: (a["page"], a["y"], a["x"]))
    order = sorted(range(len(annotations)), key=lambda i: annotations[i]["page"])  # stable: list order per page
    return next(n for n, i in enumerate(order, start=1) if annotations[i] is first)
