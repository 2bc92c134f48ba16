"""Chunking invariants on corpus PDFs parsed by the real parser (PyMuPDF backend offline)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer
from docling_core.types.doc import DoclingDocument

from rag_core import chunking
from rag_core.chunking import build_chunks
from rag_core.chunking.splitter import MarkdownTablesProvider, SplitterReusingChunker
from rag_core.chunking.tokenizer import load_tokenizer, tokenizer_path
from rag_core.config import Settings
from rag_core.models import Chunked
from tests.parse_cache import ParseCache
from tests.parsing_support import assert_chunk_invariants, assert_items_share_parent

SMALL_PDFS = [
    "en_actuar_coverage_modifications.pdf",
    "en_actuar_credibility_theory.pdf",
    "fr_aide_memoire_ACT2008_credibilite_provisionnement.pdf",
]


@pytest.mark.parametrize("name", SMALL_PDFS)
def test_corpus_pdf_chunks(
    name: str, corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parse_cache: ParseCache
) -> None:
    path = corpus_dir / name
    settings = Settings(data_dir=tmp_path / "data")
    doc = parse_cache.parse(path, settings, tmp_path / "artifacts").document
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
    # Counted by `tokenizers` directly: the very children docling-core's chunker gives with the
    # transformers tokenizer of the same file (text, offsets, token counts, boxes), at two budgets.
    assert _chunks_by_transformers(doc, settings, monkeypatch) == chunked
    small = settings.model_copy(update={"chunking": settings.chunking.model_copy(update={"max_tokens": 64})})
    assert _chunks_by_transformers(doc, small, monkeypatch) == build_chunks(doc, "c" * 64, small)
    print(
        f"{name}: {len(doc.pages)} pages, {len(chunked.parents)} parents, {len(chunked.children)} children, "
        f"{elapsed / len(doc.pages):.3f} s/page"
    )


def _chunks_by_transformers(doc: DoclingDocument, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Chunked:
    """build_chunks as it was before `tokenizers` counted: docling-core's HuggingFaceTokenizer over
    transformers' fast tokenizer, which semchunk also splits with."""
    reference = load_tokenizer(tokenizer_path(settings))

    def chunker(path: Path, max_tokens: int, furniture: bool = False) -> SplitterReusingChunker:
        tokenizer = HuggingFaceTokenizer(tokenizer=reference, max_tokens=max_tokens)
        provider = MarkdownTablesProvider(furniture=furniture)
        return SplitterReusingChunker(tokenizer=tokenizer, serializer_provider=provider)

    with monkeypatch.context() as patched:
        patched.setattr(chunking, "_chunker", chunker)
        patched.setattr(chunking, "count_tokens", lambda text, settings=None: len(reference.tokenize(text)))
        return build_chunks(doc, "c" * 64, settings)
