"""Build a DoclingDocument from layout blocks with docling-core's builder API.

Structure: an optional title, headings nested into SECTION groups (so that a heading path
deeper than one level exists), paragraphs, list groups, tables with their cell grid,
pictures with captions and the text-layer text inside them (as their children), formulas,
and page headers/footers on the FURNITURE layer.

Provenance: every item has one `ProvenanceItem` per text line (top-left origin, points,
1-based page), whose `charspan` indexes that line's text inside `item.text`. Tables,
pictures and formulas without text get one provenance for their box with charspan (0, 0).

Picture crops: the PNG lies in `artifacts_dir`; `picture.image.uri` is the RELATIVE path
`<artifacts_dir name>/<file>.png` (e.g. `artifacts/page0003-picture02.png`), i.e. relative
to the document folder that holds `document.json`. Save the document with
`image_mode=ImageRefMode.REFERENCED` to keep that reference instead of embedding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from docling_core.types.doc import (
    BoundingBox,
    ContentLayer,
    CoordOrigin,
    DocItemLabel,
    DoclingDocument,
    FloatingMeta,
    GroupLabel,
    ImageRef,
    NodeItem,
    ProvenanceItem,
    Size,
    TableCell,
    TableData,
    TableItem,
)

from rag_core.parsing.headings import HeadingInfo, assign_levels
from rag_core.parsing.layout_text import BBox, Joined, Line, join_lines, split_bullet
from rag_core.parsing.table_structure import Cell as CellBox

PICTURE_DPI = 110  # enough to read a chart on screen, ~50-150 KB per figure
TABLE_SOURCE_META = "rag__table_source"  # extra field of a TableItem's `meta` (docling-core allows extras)
PICTURE_META = "rag__picture"  # a table read from a picture: that PictureItem's self_ref
CONTENTS_KIND = "contents"  # a Block kind: a contents page, a list of figures or tables (not data)
RAG_META_NAMES = frozenset({TABLE_SOURCE_META, PICTURE_META})  # bookkeeping, never serialised as text


@dataclass(frozen=True)
class PageSize:
    width: float
    height: float


@dataclass
class Block:
    """One layout box of one page, reduced to what the document needs."""

    kind: str  # title heading text list caption footnote header footer table contents picture formula
    page_no: int
    bbox: BBox
    lines: list[Line] = field(default_factory=list)
    cells: list[CellBox] = field(default_factory=list)
    n_rows: int = 0
    n_cols: int = 0
    image_file: str | None = None
    image_px: tuple[int, int] | None = None
    captions: list[Block] = field(default_factory=list)
    table_source: str = ""  # tables: "text layer" or "OCR of a picture" (TABLE_SOURCE_META)
    picture: Block | None = None  # a table read from a picture: that picture
    children: list[Block] = field(default_factory=list)  # pictures: text-layer text inside the figure

    def has_text(self) -> bool:
        return (
            any(line.text for line in self.lines)
            or any(cell.text for cell in self.cells)
            or any(child.has_text() for child in self.children)
        )

    def font_size(self) -> float:
        return max((line.size for line in self.lines), default=0.0)


_TEXT_LABELS = {
    "text": DocItemLabel.TEXT,
    "caption": DocItemLabel.CAPTION,
    "footnote": DocItemLabel.FOOTNOTE,
    "header": DocItemLabel.PAGE_HEADER,
    "footer": DocItemLabel.PAGE_FOOTER,
}


def build_document(
    name: str, blocks: Sequence[Block], pages: dict[int, PageSize], toc: Sequence[Sequence], artifacts_dir_name: str
) -> tuple[DoclingDocument, str]:
    """Return the document and its title taken from the content ('' when none)."""
    doc = DoclingDocument(name=name)
    for page_no in sorted(pages):
        doc.add_page(page_no=page_no, size=Size(width=pages[page_no].width, height=pages[page_no].height))
    first_title = next((b for b in blocks if b.kind == "title"), None)
    headings = [b for b in blocks if b.kind in ("heading", "title") and b is not first_title]
    infos = [HeadingInfo(join_lines(b.lines).text, b.page_no, b.font_size()) for b in headings]
    levels = {id(b): lvl for b, lvl in zip(headings, assign_levels(infos, toc))}

    stack: list[tuple[int, NodeItem]] = []
    list_group: NodeItem | None = None
    title = ""
    first_level1 = ""
    for block in blocks:
        parent = stack[-1][1] if stack else None
        if block.kind in ("header", "footer"):
            joined = join_lines(block.lines)
            _with_prov(
                doc.add_text(
                    label=_TEXT_LABELS[block.kind], text=joined.text, parent=None, content_layer=ContentLayer.FURNITURE
                ),
                block,
                joined,
            )
            continue  # a running header does not interrupt a list
        if block.kind != "list":
            list_group = None
        if block is first_title:
            joined = join_lines(block.lines)
            title = joined.text
            _with_prov(doc.add_title(text=joined.text, parent=None), block, joined)
        elif block.kind in ("heading", "title"):
            joined = join_lines(block.lines)
            level = levels[id(block)]
            while stack and stack[-1][0] >= level:
                stack.pop()
            group = doc.add_group(
                label=GroupLabel.SECTION, name=joined.text[:80], parent=stack[-1][1] if stack else None
            )
            _with_prov(doc.add_heading(text=joined.text, level=level, parent=group), block, joined)
            stack.append((level, group))
            if level == 1 and not first_level1 and block.page_no <= 2 and not generic_heading(joined.text):
                first_level1 = joined.text
        elif block.kind == "list":
            marker, lines = split_bullet(block.lines)
            joined = join_lines(lines)
            if not joined.text:
                continue
            if list_group is None:
                list_group = doc.add_list_group(parent=parent)
            _with_prov(doc.add_list_item(text=joined.text, marker=marker, parent=list_group), block, joined)
        elif block.kind in ("table", CONTENTS_KIND):
            _add_table(doc, block, parent, artifacts_dir_name)
        elif block.kind == "picture":
            item = doc.add_picture(image=_image(block, artifacts_dir_name), prov=_box_prov(block), parent=parent)
            _add_captions(doc, item, block)
            _add_children(doc, item, block)
        elif block.kind == "formula":
            joined = join_lines(block.lines)
            item = doc.add_formula(text=joined.text, parent=parent)
            if joined.spans:
                _with_prov(item, block, joined)
            else:
                item.prov.append(_box_prov(block))
        else:
            joined = join_lines(block.lines)
            _with_prov(
                doc.add_text(label=_TEXT_LABELS.get(block.kind, DocItemLabel.TEXT), text=joined.text, parent=parent),
                block,
                joined,
            )
    return doc, title or first_level1


_GENERIC_HEADINGS = {
    "abstract",
    "résumé",
    "resume",
    "summary",
    "contents",
    "table of contents",
    "table des matières",
    "sommaire",
    "introduction",
    "preface",
    "préface",
    "foreword",
    "avant-propos",
    "contributeurs",
    "contributors",
    "references",
    "références",
    "bibliographie",
    "bibliography",
    "remerciements",
    "acknowledgements",
    "acknowledgments",
}


def generic_heading(text: str) -> bool:
    """Headings that name a part of any document, never the document itself."""
    words = text.lower().strip(" .:").split()
    if words and words[0].rstrip(".").isdigit():
        words = words[1:]
    return " ".join(words) in _GENERIC_HEADINGS


def _add_table(doc: DoclingDocument, block: Block, parent: NodeItem | None, artifacts_dir_name: str) -> None:
    """A TableItem with its cells (spans, header flags) and where it was read (TABLE_SOURCE_META).

    A table read from a picture keeps that picture: the PictureItem (crop, box) comes first,
    the table right after it, as its sibling (the chunker does not look inside pictures, and the
    table's cells must be indexed), with the picture's reference in its meta (PICTURE_META);
    the captions belong to the table.
    """
    data = TableData(
        num_rows=block.n_rows,
        num_cols=block.n_cols,
        table_cells=[
            TableCell(
                text=c.text,
                bbox=_bbox(c.bbox),
                start_row_offset_idx=c.row,
                end_row_offset_idx=c.row + c.row_span,
                start_col_offset_idx=c.col,
                end_col_offset_idx=c.col + c.col_span,
                row_span=c.row_span,
                col_span=c.col_span,
                column_header=c.column_header,
                row_header=c.row_header,
            )
            for c in block.cells
        ],
    )
    meta = {TABLE_SOURCE_META: block.table_source or "text layer"}
    if block.picture is not None:
        picture = doc.add_picture(
            image=_image(block.picture, artifacts_dir_name), prov=_box_prov(block.picture), parent=parent
        )
        meta[PICTURE_META] = picture.self_ref
    # a contents page keeps its grid under Docling's own label for it, "document_index": its
    # entries stay searchable but it is never a data table (chunking.data_table)
    label = DocItemLabel.DOCUMENT_INDEX if block.kind == CONTENTS_KIND else DocItemLabel.TABLE
    item = doc.add_table(data=data, prov=_box_prov(block), parent=parent, label=label)
    item.meta = FloatingMeta(**meta)
    _add_captions(doc, item, block)


def data_table(item) -> bool:
    """A table of data: not a contents page nor a list of figures (Docling's "document_index")."""
    return isinstance(item, TableItem) and item.label != DocItemLabel.DOCUMENT_INDEX


def table_source(item) -> str:
    """Where a table's cells were read: "text layer", "OCR of a picture", or "" when not recorded."""
    return str(getattr(getattr(item, "meta", None), TABLE_SOURCE_META, "") or "")


def _image(block: Block, artifacts_dir_name: str) -> ImageRef | None:
    if not (block.image_file and block.image_px):
        return None
    return ImageRef(
        mimetype="image/png",
        dpi=PICTURE_DPI,
        size=Size(width=block.image_px[0], height=block.image_px[1]),
        uri=Path(f"{artifacts_dir_name}/{block.image_file}"),
    )


def _add_captions(doc: DoclingDocument, item, block: Block) -> None:
    for caption in block.captions:
        joined = join_lines(caption.lines)
        if not joined.text:
            continue
        text_item = doc.add_text(label=DocItemLabel.CAPTION, text=joined.text, parent=item)
        _with_prov(text_item, caption, joined)
        item.captions.append(text_item.get_ref())


def _add_children(doc: DoclingDocument, item, block: Block) -> None:
    """The text of the text layer inside a picture, as its children (Docling's own layout)."""
    for child in block.children:
        joined = join_lines(child.lines)
        if joined.text:
            _with_prov(doc.add_text(label=DocItemLabel.TEXT, text=joined.text, parent=item), child, joined)


def _with_prov(item, block: Block, joined: Joined) -> None:
    item.prov.extend(
        ProvenanceItem(page_no=block.page_no, bbox=_bbox(bbox), charspan=(start, end))
        for start, end, bbox in joined.spans
    )


def _box_prov(block: Block) -> ProvenanceItem:
    return ProvenanceItem(page_no=block.page_no, bbox=_bbox(block.bbox), charspan=(0, 0))


def _bbox(bbox: BBox) -> BoundingBox:
    return BoundingBox(l=bbox[0], t=bbox[1], r=bbox[2], b=bbox[3], coord_origin=CoordOrigin.TOPLEFT)
