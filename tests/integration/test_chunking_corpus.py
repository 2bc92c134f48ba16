"""Chunking invariants on corpus PDFs parsed by the real parser (PyMuPDF backend offline)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from rag_core.chunking import build_chunks
from rag_core.config import Settings
from rag_core.parsing import parse
from tests.parsing_support import assert_chunk_invariants, assert_items_share_parent

SMALL_PDFS = [
    "en_actuar_coverage_modifications.pdf",
    "en_actuar_credibility_theory.pdf",
    "fr_aide_memoire_ACT2008_credibilite_provisionnement.pdf",
]


@pytest.mark.parametrize("name", SMALL_PDFS)
def test_corpus_pdf_chunks(name: str, corpus_dir: Path, tmp_path: Path) -> None:
    path = corpus_dir / name
    settings = Settings(data_dir=tmp_path / "data")
    doc = parse(path, settings, tmp_path / "artifacts").document
    assert doc.pages
    progress: list[tuple[int, int]] = []
    started = time.perf_counter()
    chunked = build_chunks(doc, "c" * 64, settings, progress=lambda done, total: progress.append((done, total)))
    elapsed = time.perf_counter() - started
    assert chunked.parents and chunked.children
    assert progress[-1] == (len(chunked.children), len(chunked.children))
    assert_chunk_invariants(chunked, doc, settings, doc_id="c" * 64)
    assert_items_share_parent(doc, settings)
    # parents, not children, carry the citable items; each item is on a real page
    for parent in chunked.parents:
        for item in parent.items:
            assert item.page in doc.pages and all(b.page in doc.pages for b in item.boxes)
    print(
        f"{name}: {len(doc.pages)} pages, {len(chunked.parents)} parents, {len(chunked.children)} children, "
        f"{elapsed / len(doc.pages):.3f} s/page"
    )
