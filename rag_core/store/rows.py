"""What the knowledge base's tables hold: their Arrow schemas and the rows of one document.

Pure pyarrow: `store.Store.write_document` writes these tables in order (parents, children,
pages, then the document row that makes them visible). Full-text columns hold an
accent-folded copy of the text (`fts_fr` and `fts_en`, one per analyser). This module does
not read or write LanceDB.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from rag_core.models import Child, DocumentRecord, Parent
from rag_core.text import fold

PARENTS = pa.schema(
    [
        ("id", pa.string()),
        ("doc_id", pa.string()),
        ("collection", pa.string()),
        ("idx", pa.int32()),
        ("data", pa.string()),
    ]
)
PAGES = pa.schema(
    [
        ("id", pa.string()),
        ("doc_id", pa.string()),
        ("collection", pa.string()),
        ("page", pa.int32()),
        ("parent_ids", pa.list_(pa.string())),
        ("fts_fr", pa.string()),
        ("fts_en", pa.string()),
    ]
)
DOCUMENTS = pa.schema([("doc_id", pa.string()), ("collection", pa.string()), ("data", pa.string())])


def children_schema(dim: int) -> pa.Schema:
    return pa.schema(
        [
            ("id", pa.string()),
            ("doc_id", pa.string()),
            ("parent_id", pa.string()),
            ("collection", pa.string()),
            ("language", pa.string()),
            ("idx", pa.int32()),
            ("text", pa.string()),
            ("fts_fr", pa.string()),
            ("fts_en", pa.string()),
            ("pages", pa.list_(pa.int32())),
            ("data", pa.string()),
            ("vector", pa.list_(pa.float32(), dim)),
        ]
    )


def parent_rows(record: DocumentRecord, parents: Sequence[Parent]) -> pa.Table:
    return pa.Table.from_pylist(
        [
            {
                "id": p.id,
                "doc_id": p.doc_id,
                "collection": record.collection,
                "idx": p.index,
                "data": p.model_dump_json(),
            }
            for p in parents
        ],
        schema=PARENTS,
    )


def child_rows(record: DocumentRecord, children: Sequence[Child], vectors: np.ndarray) -> pa.Table:
    """Children with their contextualised text, its folded copy and their vectors."""
    rows = []
    for c, vec in zip(children, vectors, strict=True):
        folded = fold(c.context_text)
        rows.append(
            {
                "id": c.id,
                "doc_id": c.doc_id,
                "parent_id": c.parent_id,
                "collection": record.collection,
                "language": record.language,
                "idx": c.index,
                "text": c.context_text,
                "fts_fr": folded,
                "fts_en": folded,
                "pages": c.pages,
                "data": c.model_dump_json(),
                "vector": vec.astype(np.float32).tolist(),
            }
        )
    return pa.Table.from_pylist(rows, schema=children_schema(int(vectors.shape[1])))


def page_rows(record: DocumentRecord, parents: Sequence[Parent], page_texts: Sequence[str]) -> pa.Table:
    """One row per page that has text and parents: `page_texts[i]` is page i + 1's whole text,
    `parent_ids` the parents on that page in document order (the page channel's unit)."""
    on_page: dict[int, list[str]] = {}
    for p in sorted(parents, key=lambda p: p.index):
        for number in p.pages:
            on_page.setdefault(number, []).append(p.id)
    rows = [
        {
            "id": f"{record.doc_id}:{number}",
            "doc_id": record.doc_id,
            "collection": record.collection,
            "page": number,
            "parent_ids": on_page[number],
            "fts_fr": f,
            "fts_en": f,
        }
        for number, text in enumerate(page_texts, start=1)
        if on_page.get(number) and (f := fold(text)).strip()
    ]
    return pa.Table.from_pylist(rows, schema=PAGES)


def document_row(record: DocumentRecord) -> pa.Table:
    return pa.Table.from_pylist(
        [{"doc_id": record.doc_id, "collection": record.collection, "data": record.model_dump_json()}], schema=DOCUMENTS
    )
