"""Read-only views the façade returns or records: a document's structure, and the documents and
pages a search used (for the audit trail). Pure functions of what the caller read;
this module checks no permission and reads nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rag_core.models import Chunked, DocumentRecord, SearchResult
from rag_core.understanding.followups import key_terms


def document_view(record: DocumentRecord, chunked: Chunked) -> dict[str, Any]:
    """Stable JSON view of one document: record, section tree, parents, children, tables."""
    sections: list[dict[str, Any]] = []
    seen: set[tuple[str, ...]] = set()
    for parent in chunked.parents:
        for depth in range(1, len(parent.heading_path) + 1):
            path = tuple(parent.heading_path[:depth])
            if path not in seen:
                seen.add(path)
                sections.append({"title": path[-1], "level": depth, "path": list(path), "parents": []})
        if parent.heading_path:
            next(s for s in sections if s["path"] == parent.heading_path)["parents"].append(parent.id)
    return {
        "document": record.model_dump(mode="json"),
        "sections": sections,
        "parents": [
            {
                "id": p.id,
                "index": p.index,
                "section": p.heading_path,
                "pages": p.pages,
                "tokens": p.tokens,
                "children": len(p.child_ids),
            }
            for p in chunked.parents
        ],
        "children": [
            {
                "id": c.id,
                "parent_id": c.parent_id,
                "start": c.start,
                "end": c.end,
                "tokens": c.tokens,
                "pages": c.pages,
                "boxes": [b.model_dump() for b in c.boxes],
            }
            for c in chunked.children
        ],
        "tables": [
            {"ref": it.ref, "parent_id": p.id, "caption": it.caption, "page": it.page, "shape": [it.n_rows, it.n_cols]}
            for p in chunked.parents
            for it in p.items
            if it.kind == "table"
        ],
    }


def _by_document(entries: Iterable[tuple[str, str, Iterable[int]]]) -> list[dict[str, Any]]:
    """(doc id, file name, pages) -> one entry per document with its sorted pages, in first-seen order."""
    out: dict[str, dict[str, Any]] = {}
    for doc_id, file_name, pages in entries:
        entry = out.setdefault(doc_id, {"doc_id": doc_id, "file_name": file_name, "pages": set()})
        entry["pages"].update(pages)
    return [{**e, "pages": sorted(e["pages"])} for e in out.values()]


def search_sources(result: SearchResult) -> list[dict[str, Any]]:
    """The documents and pages of a search's ranked parents."""
    return _by_document((h.document.doc_id, h.document.file_name, h.parent.pages) for h in result.parents)


def query_terms(query: str) -> list[str]:
    """The words of a query that carry it (no stop words nor question words), to mark them in an excerpt."""
    return key_terms(query)
