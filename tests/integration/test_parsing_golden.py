"""Golden files of the PDF parse and the chunking, the way docling-core tests itself.

For each PDF of `tests.unseen_pdfs` (one per layout rule, and an ordinary report), the
DoclingDocument's text items (label, heading level, page, whether inside a picture), table
grids, picture boxes (rounded to the point) and the chunker's parents and children (text,
spans, pages) are compared to `tests/data/golden/<name>.json`; a difference fails with a
readable diff. `RAG_GEN_GOLDEN=1` writes the files instead (then check them with `git diff`);
that variable left on under CI=true fails the run.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from docling_core.types.doc import ContentLayer, PictureItem, SectionHeaderItem, TableItem, TextItem

from rag_core import chunking
from rag_core.config import Settings
from tests import unseen_pdfs
from tests.conftest import CI
from tests.outline_support import check_golden
from tests.parse_cache import ParseCache

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "data" / "golden"
GEN_GOLDEN = os.environ.get("RAG_GEN_GOLDEN", "").strip().lower() in {"1", "true", "yes"}


def test_golden_generation_is_off_in_ci() -> None:
    assert not (CI and GEN_GOLDEN), "RAG_GEN_GOLDEN is set under CI=true: the golden files would not be checked"


def _box(prov) -> list[int]:
    box = prov.bbox
    return [round(box.l), round(box.t), round(box.r), round(box.b)]


def summary(name: str, tmp_path: Path, settings: Settings, cache: ParseCache) -> dict:
    """The PDF is built and parsed once a run, for this test and test_parsing_unseen.py's on the same PDF."""
    settings = settings.model_copy(update={"parsing": settings.parsing.model_copy(update={"backend": "pymupdf"})})
    pdf = cache.file(f"{name}.pdf", unseen_pdfs.BUILDERS[name])
    doc = cache.parse(pdf, settings, tmp_path / "artifacts").document
    texts, tables, pictures = [], [], []
    layers = {ContentLayer.BODY, ContentLayer.FURNITURE}
    for item, _level in doc.iterate_items(included_content_layers=layers, traverse_pictures=True):
        page = item.prov[0].page_no if item.prov else None
        if isinstance(item, TextItem):
            parent = item.parent.resolve(doc) if item.parent else None
            entry = {"label": item.label.value, "page": page, "text": item.text}
            if isinstance(item, SectionHeaderItem):
                entry["level"] = item.level
            if isinstance(parent, PictureItem):
                entry["in_picture"] = parent.self_ref
            texts.append(entry)
        elif isinstance(item, TableItem):
            tables.append({"page": page, "grid": [[cell.text for cell in row] for row in item.data.grid]})
        elif isinstance(item, PictureItem):
            pictures.append({"ref": item.self_ref, "page": page, "bbox": _box(item.prov[0])})
    chunked = chunking.build_chunks(doc, "golden" * 4, settings)
    children = {c.id: c for c in chunked.children}
    parents = [
        {
            "heading_path": p.heading_path,
            "pages": p.pages,
            "children": [
                {
                    "start": children[cid].start,
                    "end": children[cid].end,
                    "pages": children[cid].pages,
                    "text": children[cid].text,
                }
                for cid in p.child_ids
            ],
        }
        for p in chunked.parents
    ]
    return {"texts": texts, "tables": tables, "pictures": pictures, "parents": parents}


def _dump(data: dict) -> str:
    """Indented JSON, with lists of numbers (boxes, pages) on one line."""
    text = json.dumps(data, ensure_ascii=False, indent=1)
    return (
        re.sub(
            r"\[\s*(-?\d+(?:,\s*-?\d+)*)\s*\]",
            lambda m: "[" + ", ".join(m.group(1).replace(",", " ").split()) + "]",
            text,
        )
        + "\n"
    )


@pytest.mark.parametrize("name", sorted(unseen_pdfs.BUILDERS))
def test_parse_matches_its_golden_file(name: str, tmp_path: Path, settings: Settings, parse_cache: ParseCache) -> None:
    summarised = summary(name, tmp_path, settings, parse_cache)
    check_golden(GOLDEN_DIR / f"{name}.json", _dump(summarised), f"the parse of {name}")
