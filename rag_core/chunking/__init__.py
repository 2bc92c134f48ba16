"""Children, parents, offsets and per-child highlight boxes from a DoclingDocument
(docs/method.md, "Parents and children").

Children come from docling-core's `HybridChunker` (XLM-R tokens, tables as Markdown); each
child is contextualised (heading path and captions in front) for indexing and keeps its raw
text for display. Parents group consecutive children of one section; the children's
`[start, end)` offsets partition the parent text exactly. Tables, pictures and formulas
become `Item`s of the parent that holds them; the text inside a picture is indexed with
the picture. A document whose only text is in page headers and footers is indexed from them
(it has text: it must not be refused as empty). Boxes are converted to a top-left origin by
`geometry.to_top_left` only (`boxes.py`); `splitter.py` reuses the text splitter and
`tokenizer.py` loads the offline XLM-R tokenizer; `docling_chunker.py` imports docling-core's
chunker without transformers. This package neither parses, embeds nor stores.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from docling_core.transforms.serializer.markdown import MarkdownDocSerializer, MarkdownParams, MarkdownTableSerializer
from docling_core.types.doc import (
    ContentLayer,
    DocItem,
    DocItemLabel,
    DoclingDocument,
    FormulaItem,
    PictureItem,
    RefItem,
    SectionHeaderItem,
    TableItem,
    TextItem,
    TitleItem,
)

from rag_core.chunking.boxes import assign_boxes as _assign_boxes
from rag_core.chunking.boxes import prov_boxes as _prov_boxes
from rag_core.chunking.docling_chunker import DocChunk, DocMeta, HybridChunker, XlmrTokenizer
from rag_core.chunking.splitter import MarkdownTablesProvider, SplitterReusingChunker
from rag_core.chunking.tokenizer import (
    chunking_versions,
    count_tokens,
    load_fast_tokenizer,
    load_tokenizer,
    tokenizer_path,
)
from rag_core.config import Settings
from rag_core.geometry import clamp as _clamp
from rag_core.geometry import to_top_left
from rag_core.models import Child, Chunked, HighlightBox, Item, Parent, TableCell
from rag_core.parsing.document_builder import RAG_META_NAMES, data_table, table_source

__all__ = ["build_chunks", "chunking_versions", "count_tokens", "load_tokenizer"]

SEPARATOR = "\n\n"  # between two children of a parent; belongs to the preceding child's span


@lru_cache(maxsize=4)
def _chunker(path: Path, max_tokens: int, furniture: bool = False) -> HybridChunker:
    tokenizer = XlmrTokenizer(tokenizer=load_fast_tokenizer(path), max_tokens=max_tokens)
    return SplitterReusingChunker(tokenizer=tokenizer, serializer_provider=MarkdownTablesProvider(furniture=furniture))


@dataclass
class _Piece:
    """One child before ids are known."""

    text: str
    context: str
    tokens: int
    headings: list[str]
    items: list[DocItem]
    boxes: list[HighlightBox] = field(default_factory=list)


def build_chunks(
    doc: DoclingDocument, doc_id: str, settings: Settings, progress: Callable[[int, int], None] | None = None
) -> Chunked:
    """Children (≤ max_tokens, contextualised), section parents and their items for one document."""
    max_tokens = settings.chunking.max_tokens
    chunker = _chunker(tokenizer_path(settings), max_tokens)
    tables = _table_markdowns(doc)
    pieces = _pieces(doc, chunker, settings, tables)
    if not pieces:  # all its text is in page headers and footers: index that rather than nothing
        chunker = _chunker(tokenizer_path(settings), max_tokens, furniture=True)
        pieces = _pieces(doc, chunker, settings, tables)
    _assign_boxes(doc, pieces)
    groups = _group(pieces)
    items = _items(doc, pieces, groups, tables)

    prefix = doc_id[:16]
    parents: list[Parent] = []
    children: list[Child] = []
    total = len(pieces)
    for p_index, members in enumerate(groups):
        parent_id = f"{prefix}:p{p_index:04d}"
        text = SEPARATOR.join(pieces[i].text for i in members)
        child_ids: list[str] = []
        offset = 0
        for k, i in enumerate(members):
            piece = pieces[i]
            end = offset + len(piece.text) + (len(SEPARATOR) if k < len(members) - 1 else 0)
            child_id = f"{prefix}:c{i:05d}"
            child_ids.append(child_id)
            children.append(
                Child(
                    id=child_id,
                    parent_id=parent_id,
                    doc_id=doc_id,
                    index=i,
                    text=piece.text,
                    context_text=piece.context,
                    start=offset,
                    end=end,
                    tokens=piece.tokens,
                    pages=sorted({b.page for b in piece.boxes}),
                    boxes=piece.boxes,
                    item_refs=_unique(it.self_ref for it in piece.items if _citable(it)),
                )
            )
            offset = end
            if progress is not None:
                progress(len(children), total)
        parent_items = items.get(p_index, [])
        pages = {b.page for i in members for b in pieces[i].boxes} | {it.page for it in parent_items if it.page > 0}
        parents.append(
            Parent(
                id=parent_id,
                doc_id=doc_id,
                index=p_index,
                heading_path=_heading_path(pieces, members),
                text=text,
                tokens=count_tokens(text, settings),
                pages=sorted(pages),
                child_ids=child_ids,
                items=parent_items,
            )
        )
    return Chunked(parents=parents, children=children)


# --- children -----------------------------------------------------------------------------


def _pieces(
    doc: DoclingDocument, chunker: HybridChunker, settings: Settings, tables: dict[str, _TableText] | None = None
) -> list[_Piece]:
    max_tokens = settings.chunking.max_tokens
    tables = _table_markdowns(doc) if tables is None else tables
    headers = {ref: table.header for ref, table in tables.items()}
    seen_tables: set[str] = set()
    pieces: list[_Piece] = []
    for chunk in chunker.chunk(dl_doc=doc):
        assert isinstance(chunk, DocChunk)
        for part in _fit(chunk, chunker, settings):
            text = part.text
            # chunk metadata holds copies coerced to the base DocItem: use the document's items
            items = [_resolve(doc, it.self_ref) for it in part.meta.doc_items]
            first = items[0] if items else None
            # A table split across children repeats its header row in each piece (good for
            # retrieval): it stays in the indexed context text but not in the parent text.
            if isinstance(first, TableItem) and first.self_ref in seen_tables:
                header = headers.get(first.self_ref)
                if header and text.startswith(header) and text[len(header) :].strip():
                    text = text[len(header) :]
            seen_tables.update(it.self_ref for it in items if isinstance(it, TableItem))
            text = text.lstrip("\n").rstrip()
            if not text:
                continue
            context = chunker.contextualize(chunk=part)
            tokens = count_tokens(context, settings)
            if tokens > max_tokens:  # _fit guarantees this never happens; keep the invariant loud
                raise AssertionError(f"child of {tokens} tokens > {max_tokens}")
            pieces.append(
                _Piece(text=text, context=context, tokens=tokens, headings=list(part.meta.headings or []), items=items)
            )
    return pieces


def _resolve(doc: DoclingDocument, ref: str) -> DocItem:
    item = RefItem(cref=ref).resolve(doc)
    assert isinstance(item, DocItem)
    return item


@dataclass(frozen=True)
class _TableText:
    header: str | None  # the Markdown header rows
    markdown: str  # header and body rows, without the caption


def _table_markdowns(doc: DoclingDocument) -> dict[str, _TableText]:
    """Each table as Markdown, serialised once.

    `TableItem.export_to_markdown(doc)` builds (and validates) a serializer over the whole
    document on every call; one serializer for all the tables gives the same text.
    """
    if not doc.tables:
        return {}
    # the parser's bookkeeping in `meta` ("text layer", a picture's reference) is not table text
    serializer = MarkdownDocSerializer(doc=doc, params=MarkdownParams(blocked_meta_names=set(RAG_META_NAMES)))
    out: dict[str, _TableText] = {}
    for table in doc.tables:
        markdown = serializer.serialize(item=table).text
        header, body = MarkdownTableSerializer().get_header_and_body_lines(table_text=markdown)
        out[table.self_ref] = _TableText(
            header="".join(header) if header else None,
            markdown="".join(header + body).strip() if header else markdown.strip(),
        )
    return out


def _fit(chunk: DocChunk, chunker: HybridChunker, settings: Settings) -> list[DocChunk]:
    """The chunk itself, or (should HybridChunker ever overshoot) word-boundary pieces that fit."""
    max_tokens = settings.chunking.max_tokens

    def fits(text: str, meta: DocMeta) -> bool:
        return count_tokens(chunker.contextualize(chunk=DocChunk(text=text, meta=meta)), settings) <= max_tokens

    if fits(chunk.text, chunk.meta):
        return [chunk]
    meta = chunk.meta
    if not fits("x", meta):  # the heading path alone is too long: drop it, as HybridChunker does
        meta = DocMeta(doc_items=meta.doc_items, headings=None, origin=meta.origin)
    words = re.findall(r"\S+\s*", chunk.text)
    parts: list[DocChunk] = []
    start = 0
    while start < len(words):
        lo, hi = start + 1, len(words)
        while lo < hi:  # largest prefix of words[start:] that fits (at least one word)
            mid = (lo + hi + 1) // 2
            if fits("".join(words[start:mid]), meta):
                lo = mid
            else:
                hi = mid - 1
        parts.append(DocChunk(text="".join(words[start:lo]), meta=meta))
        start = lo
    return parts


# --- boxes --------------------------------------------------------------------------------


def _unique(values) -> list[str]:
    return list(dict.fromkeys(values))


# --- parents and items ----------------------------------------------------------------------


def _group(pieces: Sequence[_Piece]) -> list[list[int]]:
    """Consecutive children of one heading path; children touching one item never split."""
    n = len(pieces)
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for i, piece in enumerate(pieces):
        for it in piece.items:
            first.setdefault(it.self_ref, i)
            last[it.self_ref] = i
    joined = [False] * max(n - 1, 0)
    for ref, lo in first.items():
        for k in range(lo, last[ref]):
            joined[k] = True
    groups: list[list[int]] = []
    for i in range(n):
        if i > 0 and (joined[i - 1] or pieces[i].headings == pieces[i - 1].headings):
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _heading_path(pieces: Sequence[_Piece], members: list[int]) -> list[str]:
    return next((pieces[i].headings for i in members if pieces[i].headings), [])


def _items(
    doc: DoclingDocument, pieces: Sequence[_Piece], groups: list[list[int]], tables: dict[str, _TableText]
) -> dict[int, list[Item]]:
    """Tables, pictures and formulas per parent index, in reading order."""
    if not groups:
        return {}
    group_of_piece = {i: g for g, members in enumerate(groups) for i in members}
    group_of_ref: dict[str, int] = {}
    for i, piece in enumerate(pieces):
        for it in piece.items:
            group_of_ref.setdefault(it.self_ref, group_of_piece[i])

    # body items in reading order, headings included (they mark section boundaries)
    order: list[DocItem] = [
        it for it, _ in doc.iterate_items(included_content_layers={ContentLayer.BODY}) if isinstance(it, DocItem)
    ]
    out: dict[int, list[Item]] = {}
    for pos, it in enumerate(order):
        if not _citable(it):
            continue
        group = group_of_ref.get(it.self_ref)
        if group is None:
            group = _nearest_group(order, pos, group_of_ref)
        out.setdefault(group, []).append(_item(doc, it, tables))
    return out


def _citable(it: DocItem) -> bool:
    """Tables of data, pictures and formulas; a contents page's grid is searchable text only."""
    return isinstance(it, PictureItem | FormulaItem) or (isinstance(it, TableItem) and data_table(it))


def _nearest_group(order: list[DocItem], pos: int, group_of_ref: dict[str, int]) -> int:
    """The parent of the section the item lies in: previous indexed item, unless a heading
    starts a new section in between, then the next indexed item."""
    heading_between = False
    prev = None
    for k in range(pos - 1, -1, -1):
        if isinstance(order[k], SectionHeaderItem | TitleItem):
            heading_between = True
        if order[k].self_ref in group_of_ref and not isinstance(order[k], SectionHeaderItem | TitleItem):
            prev = group_of_ref[order[k].self_ref]
            break
    nxt = next((group_of_ref[o.self_ref] for o in order[pos + 1 :] if o.self_ref in group_of_ref), None)
    if prev is None or (heading_between and nxt is not None):
        return nxt if nxt is not None else 0
    return prev


def _item(doc: DoclingDocument, it: TableItem | PictureItem | FormulaItem, tables: dict[str, _TableText]) -> Item:
    boxes = _prov_boxes(doc, it.prov)
    page = it.prov[0].page_no if it.prov else 0
    if isinstance(it, TableItem):
        height = doc.pages[page].size.height if page in doc.pages else 0.0
        cells = []
        for c in it.data.table_cells:
            box = None
            if c.bbox is not None and page in doc.pages:
                b = c.bbox
                box = _clamp(
                    to_top_left(page, b.l, b.t, b.r, b.b, b.coord_origin.value, height),
                    doc.pages[page].size.width,
                    height,
                )
            cells.append(TableCell(row=c.start_row_offset_idx, col=c.start_col_offset_idx, text=c.text, box=box))
        return Item(
            ref=it.self_ref,
            kind="table",
            caption=it.caption_text(doc),
            page=page,
            boxes=boxes,
            text=tables[it.self_ref].markdown,
            cells=cells,
            n_rows=it.data.num_rows,
            n_cols=it.data.num_cols,
            source=table_source(it),
        )
    if isinstance(it, PictureItem):
        caption = it.caption_text(doc)
        return Item(
            ref=it.self_ref,
            kind="picture",
            caption=caption,
            page=page,
            boxes=boxes,
            text=caption,
            image_path=_image_path(it),
            inner_text="\n".join(
                child.text
                for child in (ref.resolve(doc) for ref in it.children)
                if isinstance(child, TextItem) and child.label != DocItemLabel.CAPTION and child.text
            ),
        )
    return Item(ref=it.self_ref, kind="formula", page=page, boxes=boxes, text=it.text or it.orig or "")


def _image_path(picture: PictureItem) -> str | None:
    """The crop the parser wrote (a file path or file: URI); embedded data URIs are not paths."""
    if picture.image is None or picture.image.uri is None:
        return None
    uri = str(picture.image.uri)
    if uri.startswith("data:"):
        return None
    return uri.removeprefix("file://")
