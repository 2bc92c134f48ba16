"""docling-core's HybridChunker with its plain-text splitter built once per token budget, and the
serializer provider the chunker uses (Markdown tables, body layer, text inside pictures).

Only the construction of the splitter changes, not what it does: `chunking` uses this class
in place of `HybridChunker`. This module measures nothing.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import semchunk
from docling_core.transforms.serializer.base import BaseDocSerializer, SerializationResult
from docling_core.transforms.serializer.common import create_ser_result
from docling_core.transforms.serializer.markdown import MarkdownParams, MarkdownTableSerializer
from docling_core.types.doc import ContentLayer, DoclingDocument, ImageRefMode, TableItem

from rag_core.chunking.docling_chunker import ChunkingDocSerializer, ChunkingSerializerProvider, DocChunk, HybridChunker
from rag_core.parsing.document_builder import RAG_META_NAMES, data_table


class SplitterReusingChunker(HybridChunker):
    """HybridChunker whose plain-text splitter is built once per token budget, not per split.

    docling-core calls `semchunk.chunkerify(tokenizer, chunk_size)` for every oversized
    paragraph; each call reads the 250,002-entry vocabulary to find the longest token (about
    0.3 s) and registers a new memoised counter. The splitter built here gets the same
    `max_token_chars` semchunk would compute, so it splits exactly as docling-core's does
    (tests/integration/test_chunking_splitter.py compares the two on the Docling fixtures). Tables keep
    docling-core's own path.
    """

    def segment(self, doc_chunk: DocChunk, available_length: int, doc_serializer) -> list[str]:
        items = doc_chunk.meta.doc_items
        if (
            self.repeat_table_header
            and isinstance(doc_serializer, ChunkingDocSerializer)
            and len(items) == 1
            and isinstance(items[0], TableItem)
        ):
            return super().segment(doc_chunk, available_length, doc_serializer)
        return list(text_splitter(self.tokenizer.get_tokenizer(), available_length)(doc_chunk.text))


@lru_cache(maxsize=64)
def text_splitter(tokenizer, chunk_size: int):
    """semchunk's splitter for `chunk_size` tokens, as docling-core builds it, made once."""
    return semchunk.chunkerify(tokenizer, chunk_size=chunk_size, max_token_chars=longest_token_chars(tokenizer))


@lru_cache(maxsize=4)
def longest_token_chars(tokenizer) -> int:
    """What semchunk.chunkerify computes from `get_vocab()` when not given it."""
    return max(len(token) for token in tokenizer.get_vocab())


class MarkdownTablesProvider(ChunkingSerializerProvider):
    """docling-core's chunking serializer, with Markdown tables instead of triplets, body only
    (page headers and footers too when `furniture`)."""

    def __init__(self, furniture: bool = False) -> None:
        self.furniture = furniture

    def get_serializer(self, doc: DoclingDocument) -> ChunkingDocSerializer:
        params = MarkdownParams(
            image_mode=ImageRefMode.PLACEHOLDER,
            image_placeholder="",
            escape_underscores=False,
            escape_html=False,
            layers={ContentLayer.BODY, ContentLayer.FURNITURE} if self.furniture else {ContentLayer.BODY},
            blocked_meta_names=set(RAG_META_NAMES),
            traverse_pictures=True,  # the text-layer text inside a picture is indexed too
        )
        return ChunkingDocSerializer(doc=doc, table_serializer=TablesAndContentsSerializer(), params=params)


class TablesAndContentsSerializer(MarkdownTableSerializer):
    """Markdown tables; a contents page ("document_index") as its entries, one line each
    ("1.1 Security fundamentals 2"): navigation text, with no header row to repeat."""

    def serialize(
        self, *, item: TableItem, doc_serializer: BaseDocSerializer, doc: DoclingDocument, **kwargs: Any
    ) -> SerializationResult:
        if data_table(item):
            return super().serialize(item=item, doc_serializer=doc_serializer, doc=doc, **kwargs)
        rows = (" ".join(cell.text for cell in row if cell.text.strip()).strip() for row in item.data.grid)
        return create_ser_result(text="\n".join(row for row in rows if row), span_source=item)
