"""Chunking invariants on the real Docling fixtures and on a built document with line-level provenance."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docling_core.types.doc import (
    BoundingBox,
    ContentLayer,
    CoordOrigin,
    DocItemLabel,
    DoclingDocument,
    ProvenanceItem,
    Size,
    TableData,
    TableItem,
)
from docling_core.types.doc import TableCell as DLTableCell

from rag_core import chunking
from rag_core.chunking import build_chunks, chunking_versions, count_tokens
from rag_core.config import Settings
from rag_core.models import Chunked
from tests.parsing_support import DOC_ID, assert_chunk_invariants, assert_items_share_parent, fixture_paths


@pytest.fixture(scope="module")
def fixture_chunks() -> dict[str, tuple[DoclingDocument, Chunked]]:
    paths = fixture_paths()
    settings = Settings()
    out = {}
    for path in paths:
        doc = DoclingDocument.load_from_json(path)
        out[path.name.removesuffix(".docling.json")] = (doc, build_chunks(doc, DOC_ID, settings))
    return out


def test_tokenizer_is_xlmr(settings: Settings) -> None:
    tok = chunking.load_tokenizer(chunking.tokenizer_path(settings))
    assert len(tok) == 250_002
    assert tok.tokenize("Provisions techniques") == ["▁Pro", "vision", "s", "▁techniques"]
    fast = chunking.load_fast_tokenizer(chunking.tokenizer_path(settings))  # what counts, without transformers
    words = fast.encode("Provisions techniques", add_special_tokens=False)
    assert words.tokens == ["▁Pro", "vision", "s", "▁techniques"]
    assert count_tokens("Provisions techniques", settings) == 4
    assert count_tokens("", settings) == 0
    versions = chunking_versions()
    assert versions["docling_core"] and len(versions["tokenizer_sha256"]) == 64


def test_fixture_invariants(fixture_chunks, docling_fixtures_dir: Path) -> None:
    settings = Settings()
    assert len(fixture_chunks) == 6
    for name, (doc, chunked) in fixture_chunks.items():
        assert chunked.parents, name
        assert_chunk_invariants(chunked, doc, settings)
        assert_items_share_parent(doc, settings)


def test_fixture_chunking_is_deterministic(fixture_chunks) -> None:
    doc, chunked = fixture_chunks["multi_page"]
    assert build_chunks(doc, DOC_ID, Settings()) == chunked


def test_table_item_bottom_left_to_top_left(fixture_chunks) -> None:
    doc, chunked = fixture_chunks["2305.03393v1-pg9"]
    items = [it for p in chunked.parents for it in p.items if it.kind == "table"]
    assert len(items) == 1
    table = items[0]
    assert table.page == 1 and len(table.boxes) == 1  # physical page of the one-page excerpt
    box = table.boxes[0]
    assert box.y0 == pytest.approx(336.9, abs=0.1) and box.y1 == pytest.approx(469.9, abs=0.1)
    assert table.caption.startswith("Table 1.")
    assert len(table.cells) == 41
    first = min(table.cells, key=lambda c: (c.row, c.col))
    assert first.box is not None and first.box.y0 == pytest.approx(341.6, abs=0.1)  # cells are already top-left
    assert all(c.box is None or box.y0 - 1 <= c.box.y0 < c.box.y1 <= box.y1 + 1 for c in table.cells)
    holder = next(p for p in chunked.parents if table in p.items)
    assert "| " in holder.text and "---" in holder.text
    assert " = " not in table.text  # Markdown, not docling-core's triplets


def test_heading_box_on_a4_page(fixture_chunks) -> None:
    doc, chunked = fixture_chunks["multi_page"]
    heading = next(t for t in doc.texts if t.label == DocItemLabel.SECTION_HEADER)
    box = chunking._prov_boxes(doc, heading.prov)[0]
    assert doc.pages[1].size.height == pytest.approx(841.9, abs=0.1)
    assert box.y0 == pytest.approx(841.9 - 766.6, abs=0.15) and box.y1 == pytest.approx(841.9 - 756.7, abs=0.15)
    first = chunked.children[0]
    para_box = chunking._prov_boxes(doc, doc.texts[1].prov)[0]
    # the same rectangle, which also keeps the span of its text in the child
    assert [b.model_copy(update={"start": None, "end": None}) for b in first.boxes] == [para_box]
    assert para_box.y0 > box.y1  # the paragraph lies under its heading
    start, end = first.boxes[0].start, first.boxes[0].end
    assert start is not None and end is not None
    assert re.sub(r"\W", "", first.text[start:end]) == re.sub(r"\W", "", doc.texts[1].text)


def test_pictures_and_formulas_become_items(fixture_chunks) -> None:
    _, chunked = fixture_chunks["amt_handbook_sample"]
    pictures = [it for p in chunked.parents for it in p.items if it.kind == "picture"]
    assert len(pictures) == 2 and all(it.caption for it in pictures)
    _, chunked = fixture_chunks["code_and_formula"]
    formulas = [it for p in chunked.parents for it in p.items if it.kind == "formula"]
    assert [f.text for f in formulas] == ["a 2 +8 = 12"]
    _, chunked = fixture_chunks["redp5110_sampled"]
    assert sum(it.kind == "picture" for p in chunked.parents for it in p.items) == 17


def test_split_table_keeps_one_header_in_parent(fixture_chunks) -> None:
    doc, chunked = fixture_chunks["redp5110_sampled"]
    # the first table whose rows span several children (its contents page is text, not a table)
    table, toc = next(
        (t, pieces) for t in doc.tables if len(pieces := [c for c in chunked.children if t.self_ref in c.item_refs]) > 1
    )
    parent = next(p for p in chunked.parents if p.id == toc[0].parent_id)
    # the grid's header row (its first line may be the caption)
    header = next(ln for ln in table.export_to_markdown(doc=doc).splitlines() if ln.startswith("|"))
    assert parent.text.count(header) == 1  # the repeated header stays in the indexed context only
    assert all(c.context_text.count(header) == 1 for c in toc[1:])
    table_box = chunking._prov_boxes(doc, table.prov)[0]
    row_boxes = [c.boxes[0] for c in toc]  # each piece: the rows it holds, not the whole table
    assert all(table_box.y0 - 1 <= b.y0 < b.y1 <= table_box.y1 + 1 for b in row_boxes)
    assert all(a.y0 < b.y0 and a.y1 < b.y1 for a, b in zip(row_boxes, row_boxes[1:]))  # rows go down the page


# --- a built document: one provenance per line, charspans into the item text ----------------

WORDS = "reserve claims triangle development factor tail Mack bootstrap premium exposure".split()


def _line(i: int) -> str:
    return f"Line {i} of the note: " + " ".join(WORDS[(i + k) % len(WORDS)] for k in range(9)) + f" ({i})."


def build_line_document() -> tuple[DoclingDocument, list[str], str]:
    doc = DoclingDocument(name="lines")
    for page in (1, 2):
        doc.add_page(page_no=page, size=Size(width=595.0, height=842.0))

    def prov(page: int, top: float, text: str, left: float = 50.0, right: float = 545.0) -> ProvenanceItem:
        bbox = BoundingBox(l=left, t=top, r=right, b=top + 11.0, coord_origin=CoordOrigin.TOPLEFT)
        return ProvenanceItem(page_no=page, bbox=bbox, charspan=(0, len(text)))

    doc.add_text(
        label=DocItemLabel.PAGE_HEADER,
        text="Running header",
        prov=prov(1, 10, "Running header"),
        content_layer=ContentLayer.FURNITURE,
    )
    doc.add_heading("Tail factors", level=1, prov=prov(1, 40, "Tail factors"))
    lines = [_line(i) for i in range(90)]
    text = " ".join(lines)
    provs = []
    start = 0
    for i, line in enumerate(lines):
        page, row = (1, i) if i < 55 else (2, i - 55)
        bbox = BoundingBox(l=50, t=60 + 13 * row, r=545, b=71 + 13 * row, coord_origin=CoordOrigin.TOPLEFT)
        provs.append(ProvenanceItem(page_no=page, bbox=bbox, charspan=(start, start + len(line))))
        start += len(line) + 1
    para = doc.add_text(label=DocItemLabel.TEXT, text=text, prov=provs[0])
    para.prov = provs
    cells = [
        DLTableCell(
            text=t,
            start_row_offset_idx=r,
            end_row_offset_idx=r + 1,
            start_col_offset_idx=c,
            end_col_offset_idx=c + 1,
            column_header=r == 0,
            bbox=BoundingBox(
                l=60 + 200 * c, t=560 + 20 * r, r=250 + 200 * c, b=575 + 20 * r, coord_origin=CoordOrigin.TOPLEFT
            ),
        )
        for r, row in enumerate([["Year", "Factor"], ["2019", "1.05"], ["2020", "1.02"]])
        for c, t in enumerate(row)
    ]

    def box(left: float, top: float, right: float, bottom: float) -> BoundingBox:
        return BoundingBox(l=left, t=top, r=right, b=bottom, coord_origin=CoordOrigin.TOPLEFT)

    caption_text = "Table 1: tail factors"
    caption = doc.add_text(label=DocItemLabel.CAPTION, text=caption_text, prov=prov(2, 540, caption_text, right=400.0))
    table = doc.add_table(
        data=TableData(num_rows=3, num_cols=2, table_cells=cells),
        caption=caption,
        prov=ProvenanceItem(page_no=2, bbox=box(55, 555, 460, 620), charspan=(0, 0)),
    )
    assert isinstance(table, TableItem)
    doc.add_picture(prov=ProvenanceItem(page_no=2, bbox=box(100, 650, 300, 800), charspan=(0, 0)))
    return doc, lines, text


def test_line_level_boxes(settings: Settings, tmp_path: Path) -> None:
    doc, lines, text = build_line_document()
    path = tmp_path / "lines.json"
    doc.save_as_json(path)
    doc = DoclingDocument.load_from_json(path)
    chunked = build_chunks(doc, DOC_ID, settings)
    assert_chunk_invariants(chunked, doc, settings)
    assert_items_share_parent(doc, settings)
    assert "Running header" not in "".join(c.context_text for c in chunked.children)

    para_children = [c for c in chunked.children if "of the note" in c.text]
    assert len(para_children) >= 3, "the paragraph should be split across children"
    assert len({c.parent_id for c in para_children}) == 1
    assert chunked.parents[0].heading_path == ["Tail factors"]
    line_starts = []
    pos = 0
    for line in lines:
        line_starts.append(pos)
        pos += len(line) + 1
    covered: list[int] = []
    for child in para_children:
        body = child.text.split("\n| ")[0].split("\nTable 1")[0].strip()
        start = text.find(body)
        assert start >= 0
        end = start + len(body)
        expected = [i for i, s in enumerate(line_starts) if s < end and s + len(lines[i]) > start]
        covered += expected
        got = sorted((b.page, b.y0) for b in child.boxes if b.x1 == 545)
        want = sorted((1, 60 + 13 * i) if i < 55 else (2, 60 + 13 * (i - 55)) for i in expected)
        assert got == want, child.id
    assert sorted(set(covered)) == list(range(len(lines)))
    assert any(child.pages == [1, 2] for child in para_children), "a child crossing the page break"

    table_item = next(it for p in chunked.parents for it in p.items if it.kind == "table")
    assert table_item.caption == "Table 1: tail factors" and table_item.page == 2
    assert [(c.row, c.col, c.text) for c in table_item.cells][:2] == [(0, 0, "Year"), (0, 1, "Factor")]
    assert table_item.cells[0].box is not None and table_item.cells[0].box.y0 == pytest.approx(560)
    assert table_item.text.splitlines()[0].split() == ["|", "Year", "|", "Factor", "|"]
    picture = next(it for p in chunked.parents for it in p.items if it.kind == "picture")
    assert picture.boxes[0].y0 == pytest.approx(650) and picture.image_path is None


def test_boxes_are_clamped_to_the_page() -> None:
    from rag_core.models import HighlightBox

    inside = chunking._clamp(HighlightBox(page=1, x0=-3, y0=10, x1=700, y1=10), 595.0, 842.0)
    assert (inside.x0, inside.x1) == (0.0, 595.0) and inside.y0 == 10 and inside.y1 == 10.5
    corner = chunking._clamp(HighlightBox(page=1, x0=595, y0=842, x1=600, y1=900), 595.0, 842.0)
    assert (corner.x0, corner.x1, corner.y0, corner.y1) == (594.5, 595.0, 841.5, 842.0)
