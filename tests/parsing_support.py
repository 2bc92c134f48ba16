"""Invariants every parsed and chunked document keeps, and settings for the parser tests."""

from __future__ import annotations

from pathlib import Path

from docling_core.types.doc import ContentLayer, DoclingDocument, TextItem

from rag_core import chunking
from rag_core.chunking import SEPARATOR, count_tokens
from rag_core.config import Settings
from rag_core.models import Chunked
from rag_core.parsing import ParsedDocument


def with_parsing(settings: Settings, **changes) -> Settings:
    return settings.model_copy(update={"parsing": settings.parsing.model_copy(update=changes)})


def check_invariants(parsed: ParsedDocument) -> None:
    """Every item has provenance inside its page; text charspans match their line text."""
    doc = parsed.document
    assert parsed.pages == len(doc.pages) or parsed.parser != "pymupdf"
    for item, _ in doc.iterate_items(included_content_layers=set(ContentLayer)):
        if not hasattr(item, "prov"):
            continue
        assert item.prov, f"{item.self_ref} has no provenance"
        for prov in item.prov:
            assert 1 <= prov.page_no <= parsed.pages
            size = doc.pages[prov.page_no].size
            box = prov.bbox
            assert box.coord_origin.name == "TOPLEFT"
            assert -0.01 <= box.l <= box.r <= size.width + 0.01, (item.self_ref, box, size)
            assert -0.01 <= box.t <= box.b <= size.height + 0.01, (item.self_ref, box, size)
        if isinstance(item, TextItem) and item.text:
            spans = [p.charspan for p in item.prov]
            assert spans[0][0] == 0 and spans[-1][1] == len(item.text), item.self_ref
            for (s0, e0), (s1, _) in zip(spans, spans[1:]):
                assert s0 < e0 <= s1 and item.text[e0:s1] in ("", " "), (item.self_ref, spans)
            assert all(item.text[s:e].strip() == item.text[s:e] and e > s for s, e in spans)


DOC_ID = "0123456789abcdef" + "f" * 48


def fixture_paths() -> list[Path]:
    """The Docling fixtures of ../shared (a skip without them, a failure under CI=true)."""
    from tests.conftest import DOCLING_FIXTURES, shared

    paths = sorted(shared(DOCLING_FIXTURES, "the Docling fixtures").glob("*.docling.json"))
    assert paths, f"no *.docling.json in {DOCLING_FIXTURES}"
    return paths


def assert_chunk_invariants(chunked: Chunked, doc: DoclingDocument, settings: Settings, doc_id: str = DOC_ID) -> None:
    """Every invariant of parents and children (docs/method.md, "Parents and children") that the output alone shows."""
    max_tokens = settings.chunking.max_tokens
    children = {c.id: c for c in chunked.children}
    assert len(children) == len(chunked.children), "duplicate child ids"
    assert [c.index for c in chunked.children] == list(range(len(chunked.children)))
    seen: set[str] = set()
    next_index = 0
    for p_index, parent in enumerate(chunked.parents):
        assert parent.index == p_index and parent.id == f"{doc_id[:16]}:p{p_index:04d}"
        assert parent.child_ids, "a parent without children"
        assert not seen & set(parent.child_ids), "parents overlap"
        seen |= set(parent.child_ids)
        offset = 0
        for k, cid in enumerate(parent.child_ids):
            child = children[cid]
            assert child.parent_id == parent.id and child.doc_id == doc_id
            assert child.index == next_index and cid == f"{doc_id[:16]}:c{child.index:05d}"
            next_index += 1
            assert child.start == offset, "gap or overlap between children"
            assert child.end > child.start
            span = parent.text[child.start : child.end]
            last = k == len(parent.child_ids) - 1
            if not last:
                assert span.endswith(SEPARATOR)
            assert child.text == (span if last else span[: -len(SEPARATOR)])
            assert child.text.strip(), "empty child"
            assert child.text in child.context_text, "the indexed text lost the child's text"
            assert 0 < child.tokens <= max_tokens
            assert child.tokens == count_tokens(child.context_text, settings)
            offset = child.end
        assert offset == len(parent.text), "last child does not end at the parent's end"
        assert parent.tokens == count_tokens(parent.text, settings)
        assert parent.pages == sorted(set(parent.pages))
    assert seen == set(children), "a child outside every parent"

    # boxes: at least one, top-left, inside the page
    for child in chunked.children:
        if not doc.pages:
            continue
        assert child.boxes, f"child {child.id} has no box"
        assert child.pages == sorted({b.page for b in child.boxes})
        for b in child.boxes:
            size = doc.pages[b.page].size
            assert b.origin == "TOPLEFT"
            assert 0 <= b.x0 < b.x1 <= size.width + 1e-6
            assert 0 <= b.y0 < b.y1 <= size.height + 1e-6

    # tables: each in exactly one parent with all its cells, as Markdown inside that parent; a contents
    # page's grid (Docling's document_index) is searchable text, never a citable table
    from rag_core.parsing.document_builder import data_table

    contents = {t.self_ref for t in doc.tables if not data_table(t)}
    assert not any(it.ref in contents for p in chunked.parents for it in p.items), "a contents grid became an item"
    body_tables = [t for t in doc.tables if t.content_layer == ContentLayer.BODY and data_table(t)]
    for table in body_tables:
        holders = [p for p in chunked.parents for it in p.items if it.ref == table.self_ref]
        assert len(holders) == 1, f"{table.self_ref} in {len(holders)} parents"
        item = next(it for it in holders[0].items if it.ref == table.self_ref)
        assert item.kind == "table" and len(item.cells) == len(table.data.table_cells)
        assert (item.n_rows, item.n_cols) == (table.data.num_rows, table.data.num_cols)
        if item.text.strip():
            rows = [ln for ln in item.text.splitlines() if ln.startswith("|")]
            assert rows and all(row in holders[0].text for row in rows), "table not in its parent as Markdown"
    # children holding a table piece share one parent
    parent_of = {c.id: c.parent_id for c in chunked.children}
    by_ref: dict[str, set[str]] = {}
    for child in chunked.children:
        for ref in child.item_refs:
            by_ref.setdefault(ref, set()).add(parent_of[child.id])
    assert all(len(parents) == 1 for parents in by_ref.values())


def assert_items_share_parent(doc: DoclingDocument, settings: Settings) -> None:
    """Children touching one document item (any kind) are in one parent; no furniture is indexed."""
    chunker = chunking._chunker(chunking.tokenizer_path(settings), settings.chunking.max_tokens)
    pieces = chunking._pieces(doc, chunker, settings)
    groups = chunking._group(pieces)
    group_of = {i: g for g, members in enumerate(groups) for i in members}
    where: dict[str, set[int]] = {}
    for i, piece in enumerate(pieces):
        for it in piece.items:
            assert it.content_layer == ContentLayer.BODY, f"furniture indexed: {it.self_ref}"
            where.setdefault(it.self_ref, set()).add(group_of[i])
    assert all(len(g) == 1 for g in where.values())
