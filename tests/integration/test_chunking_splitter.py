"""The chunk stage's shortcuts change nothing: same children as docling-core's own HybridChunker,
same table Markdown as `TableItem.export_to_markdown`, on the real Docling fixtures."""

from __future__ import annotations

import pytest
from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer
from docling_core.transforms.serializer.markdown import MarkdownTableSerializer
from docling_core.types.doc import DoclingDocument

from rag_core import chunking
from rag_core.chunking import splitter as chunk_splitter
from rag_core.chunking.tokenizer import load_tokenizer, tokenizer_path
from tests.parsing_support import fixture_paths

SMALL_BUDGET = 64  # tokens: most paragraphs overflow, so the plain-text splitter runs often


@pytest.fixture(scope="module")
def documents() -> dict[str, DoclingDocument]:
    paths = fixture_paths()
    return {p.name: DoclingDocument.load_from_json(p) for p in paths}


def _summary(chunker: HybridChunker, doc: DoclingDocument) -> list[tuple]:
    return [
        (c.text, c.meta.headings, [it.self_ref for it in c.meta.doc_items], chunker.contextualize(chunk=c))
        for c in chunker.chunk(dl_doc=doc)
    ]


@pytest.mark.parametrize("max_tokens", [SMALL_BUDGET, 400])
def test_same_children_as_docling_core(documents: dict[str, DoclingDocument], max_tokens: int) -> None:
    path = tokenizer_path()
    ours = chunking._chunker(path, max_tokens)
    reference = HybridChunker(
        tokenizer=HuggingFaceTokenizer(tokenizer=load_tokenizer(path), max_tokens=max_tokens),
        serializer_provider=chunk_splitter.MarkdownTablesProvider(),
    )
    chunk_splitter.text_splitter.cache_clear()
    for name, doc in documents.items():
        expected = _summary(reference, doc)
        assert expected, name
        assert _summary(ours, doc) == expected, name
    if max_tokens == SMALL_BUDGET:
        assert chunk_splitter.text_splitter.cache_info().hits > 0  # the shortcut did run, and was reused


def test_table_markdown_as_export_to_markdown(documents: dict[str, DoclingDocument]) -> None:
    checked = 0
    for name, doc in documents.items():
        tables = chunking._table_markdowns(doc)
        assert set(tables) == {t.self_ref for t in doc.tables}, name
        for table in doc.tables:
            markdown = table.export_to_markdown(doc=doc)
            header, body = MarkdownTableSerializer().get_header_and_body_lines(table_text=markdown)
            assert tables[table.self_ref].header == ("".join(header) if header else None), name
            assert tables[table.self_ref].markdown == ("".join(header + body).strip() if header else markdown.strip())
            checked += 1
    assert checked >= 5
