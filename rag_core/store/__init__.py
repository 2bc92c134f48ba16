"""The LanceDB knowledge base: atomic writes, deletes and the search channels (children, pages).

Tables: `documents` (one row per ready document), `parents`, `children` (vector column and
two native full-text indexes over an accent-folded copy of the contextualised text, one
French and one English analyser), `pages` (the same two indexes over each page's whole text,
with the ids of the parents on that page: the page channel), `meta` (the embedder that
built the index, the library's schema version and the migrations applied), and `jobs` and
`workers` (the upload queue: `jobs`).

A document is visible only once its `documents` row exists: parents, children and pages are
written first, each in a single `add` (one LanceDB commit), and every search is pre-filtered
on the ids of ready documents. Rows left by an interrupted ingestion are invisible and are removed
when the same document is written again (`purge_orphans` also sweeps them).

One module per concern: `rows` (the tables' schemas and a document's rows), `channels` (one
query per search channel), `exact_vectors` (exact dense search in memory below the ANN
threshold), `maintenance` (indexes, compaction, orphans); this module opens the tables, writes,
deletes and reads. This package is the only one that imports lancedb. It does not embed, fuse
or rank parents.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from datetime import UTC, datetime

import lancedb
import numpy as np
import pyarrow as pa

from rag_core.errors import IndexMismatchError
from rag_core.library import SCHEMA_VERSION
from rag_core.models import Child, DocumentRecord, Parent
from rag_core.store import rows as store_rows
from rag_core.store.channels import (
    ANN_NPROBES,
    ANN_REFINE,
    FTS_COLUMNS,
    RRF_K,
    ChildHit,
    FullText,
    PageHit,
    SearchChannels,
    TableInfo,
    _quote,
    id_filter,
    lexical_query,
)
from rag_core.store.exact_vectors import ExactVectors
from rag_core.store.jobs import ACTIVE, STATES, Job, JobTable
from rag_core.store.maintenance import Maintenance

log = logging.getLogger(__name__)
__all__ = [
    "ACTIVE",
    "ANN_NPROBES",
    "ANN_REFINE",
    "FTS_COLUMNS",
    "RRF_K",
    "STATES",
    "ChildHit",
    "FullText",
    "Job",
    "JobTable",
    "PageHit",
    "Store",
    "TableInfo",
    "id_filter",
    "lexical_query",
]


class Store(SearchChannels, Maintenance):
    """A LanceDB directory (or object-store URI) holding one library."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.db = lancedb.connect(uri)
        self._clear_caches()

    def _clear_caches(self) -> None:
        """Caches keyed by table version; a dropped and re-created table restarts its versions."""
        self._table_cache: dict[str, TableInfo] = {}
        self._vectors: ExactVectors | None = None  # children, for exact search without an ANN index
        self._scope_vectors: OrderedDict[tuple[int, frozenset[str]], ExactVectors] = OrderedDict()  # small scopes
        self._scope_lock = threading.Lock()
        self._records_cache: tuple[int, list[DocumentRecord]] | None = None
        # What other layers derive from the tables (the page channel's analysed pages), with the versions
        # it was derived from: dropped with the tables, so a re-created table never meets an old copy.
        self.derived: dict[str, tuple[object, object]] = {}

    # ----- tables -------------------------------------------------------------------------
    def job_table(self) -> JobTable:
        """The upload queue and the workers' heartbeats (`store.jobs`), beside the library's tables."""
        return JobTable(self.db)

    def _names(self) -> set[str]:
        result = self.db.list_tables()
        names = getattr(result, "tables", result)
        return set(names)

    def _open(self, name: str):
        """The table, or None when it does not exist yet: one LanceDB call, not a listing and an
        open (every question opens several tables; each call is a hop to LanceDB's own thread)."""
        try:
            return self.db.open_table(name)
        except ValueError as err:
            if "not found" in str(err):
                return None
            raise

    def embedder_info(self) -> tuple[str, int] | None:
        meta = self._open("meta")
        if meta is None:
            return None
        rows = meta.to_arrow().to_pylist()
        return (rows[0]["embedder"], rows[0]["dim"]) if rows else None

    def check_embedder(self, name: str, dim: int) -> None:
        """Refuse to mix vectors of two models in one index."""
        info = self.embedder_info()
        if info is not None and info != (name, dim):
            raise IndexMismatchError.of("backend.index_mismatch", built=info[0], built_dim=info[1], name=name, dim=dim)

    def _ensure_meta(self, name: str, dim: int) -> None:
        if self._open("meta") is None:
            row = {"embedder": name, "dim": dim, "created_at": datetime.now(UTC).isoformat()}
            self.db.create_table("meta", data=[{**row, "schema": SCHEMA_VERSION, "migrations": "[]"}], exist_ok=True)

    def meta(self) -> dict | None:
        """The `meta` row (the embedder, and the library's `schema` and applied `migrations` as JSON:
        `rag_core.migrations`); None before the first document. A row written before schemas has neither."""
        table = self._open("meta")
        rows = table.to_arrow().to_pylist() if table is not None else []
        return rows[0] if rows else None

    def write_meta(self, row: dict) -> None:
        """Replace the `meta` row (`rag_core.migrations` records a migration in it)."""
        self.db.create_table("meta", data=[row], mode="overwrite")

    def drop_all(self) -> None:
        """Drop every table (the index is derived from the document folders: `reindex`)."""
        for name in ("documents", "children", "parents", "pages", "meta"):
            if name in self._names():
                self.db.drop_table(name)
        self._clear_caches()

    # ----- writes -------------------------------------------------------------------------
    def write_document(
        self,
        record: DocumentRecord,
        parents: Sequence[Parent],
        children: Sequence[Child],
        vectors: np.ndarray,
        embedder: str,
        page_texts: Sequence[str] = (),
    ) -> None:
        """Write one document; it becomes searchable when its `documents` row lands (last).

        `page_texts[i]` is the whole text of page i + 1 (the page channel's unit); pages
        without text get no row.
        """
        dim = int(vectors.shape[1])
        self.check_embedder(embedder, dim)
        self._ensure_meta(embedder, dim)
        self.delete_document(record.doc_id)
        self._add("parents", store_rows.parent_rows(record, parents))
        self._add("children", store_rows.child_rows(record, children, vectors))
        self._add("pages", store_rows.page_rows(record, parents, page_texts))
        self._add("documents", store_rows.document_row(record))

    def replace_pages(self, record: DocumentRecord, parents: Sequence[Parent], page_texts: Sequence[str]) -> None:
        """Rewrite one document's rows of the page channel only (its text rules changed)."""
        table = self._open("pages")
        if table is not None:
            table.delete(f"doc_id = {_quote(record.doc_id)}")
        self._add("pages", store_rows.page_rows(record, parents, page_texts))

    def _add(self, name: str, rows: pa.Table) -> None:
        """Append in one commit. The table is created empty first: with two writers racing to
        create it, `exist_ok` hands the loser the winner's table, and its rows still land."""
        if rows.num_rows == 0:
            return
        table = self._open(name) or self.db.create_table(name, schema=rows.schema, exist_ok=True)
        table.add(rows)

    def delete_document(self, doc_id: str) -> None:
        """Remove the document row first (it disappears from search at once), then its rows."""
        for name in ("documents", "children", "parents", "pages"):
            table = self._open(name)
            if table is not None:
                table.delete(f"doc_id = {_quote(doc_id)}")

    # ----- reads --------------------------------------------------------------------------
    def documents(self, collection: str | None = None) -> list[DocumentRecord]:
        table = self._open("documents")
        if table is None:
            return []
        # Every search reads the ready documents (its prefilter and its results): parse them once
        # per table version, not once per call.
        version = table.version
        if self._records_cache is None or self._records_cache[0] != version:
            rows = table.search().select(["data"]).limit(None).to_arrow()["data"].to_pylist()
            records = sorted(
                (DocumentRecord.model_validate_json(r) for r in rows), key=lambda r: (r.collection, r.file_name)
            )
            self._records_cache = (version, records)
        return [r for r in self._records_cache[1] if collection is None or r.collection == collection]

    def document_ids(self, collections: Sequence[str] | None = None, doc_ids: Sequence[str] | None = None) -> list[str]:
        """Ids of ready documents in scope: the prefilter of every search."""
        records = self.documents()
        return [
            r.doc_id
            for r in records
            if (collections is None or r.collection in collections) and (doc_ids is None or r.doc_id in doc_ids)
        ]

    def parents(self, parent_ids: Sequence[str]) -> dict[str, Parent]:
        table = self._open("parents")
        if table is None or not parent_ids:
            return {}
        rows = table.search().where(id_filter("id", list(parent_ids))).select(["data"]).limit(None).to_arrow()
        parsed = [Parent.model_validate_json(r) for r in rows["data"].to_pylist()]
        return {p.id: p for p in parsed}

    def parents_of(self, doc_id: str) -> list[Parent]:
        return self._parents_in_order(f"doc_id = {_quote(doc_id)}")

    def parents_after(self, doc_id: str, index: int, count: int) -> list[Parent]:
        """The next `count` parents of a document after the one at `index`, in document order."""
        if count <= 0:
            return []
        return self._parents_in_order(
            f"doc_id = {_quote(doc_id)} AND idx > {int(index)} AND idx <= {int(index) + int(count)}"
        )

    def _parents_in_order(self, where: str) -> list[Parent]:
        table = self._open("parents")
        if table is None:
            return []
        rows = table.search().where(where).select(["data"]).limit(None).to_arrow()
        return sorted((Parent.model_validate_json(r) for r in rows["data"].to_pylist()), key=lambda p: p.index)

    def children_of_parents(self, parent_ids: Sequence[str]) -> dict[str, list[Child]]:
        table = self._open("children")
        out: dict[str, list[Child]] = {pid: [] for pid in parent_ids}
        if table is None or not parent_ids:
            return out
        rows = table.search().where(id_filter("parent_id", list(parent_ids))).select(["data"]).limit(None).to_arrow()
        for raw in rows["data"].to_pylist():
            child = Child.model_validate_json(raw)
            out.setdefault(child.parent_id, []).append(child)
        for kids in out.values():
            kids.sort(key=lambda c: c.index)
        return out

    def count_children(self) -> int:
        table = self._open("children")
        return 0 if table is None else table.count_rows()

    def pages_version(self) -> tuple[int, int] | None:
        """The pages table's version and row count (None without one): when `page_rows` changes."""
        table = self._open("pages")
        if table is None:
            return None
        info = self._table_info(table)
        return info.version, sum(info.rows_per_doc.values())

    def documents_version(self) -> int:
        table = self._open("documents")
        return -1 if table is None else int(table.version)

    def page_rows(self) -> list[tuple[str, int, tuple[str, ...], str]]:
        """Every row of the page channel: (doc id, 1-based page, its parents' ids, its folded text)."""
        table = self._open("pages")
        if table is None:
            return []
        rows = table.search().select(["doc_id", "page", "parent_ids", "fts_en"]).limit(None).to_list()
        return [(r["doc_id"], int(r["page"]), tuple(r["parent_ids"]), r["fts_en"] or "") for r in rows]
