"""The LanceDB knowledge base: atomic writes, deletes and the search channels (children, pages).

Tables: `documents` (one row per ready document), `parents`, `children` (vector column and
two native full-text indexes over an accent-folded copy of the contextualised text, one
French and one English analyser), `pages` (the same two indexes over each page's whole text,
with the ids of the parents on that page: the page channel) and `meta` (the embedder that
built the index).

A document is visible only once its `documents` row exists: parents, children and pages are
written first, each in a single `add` (one LanceDB commit), and every search is pre-filtered
on the ids of ready documents. Rows left by an interrupted ingestion are invisible and are removed
when the same document is written again (`purge_orphans` also sweeps them).

The tables' schemas and a document's rows are built in `store_rows`. This is the only
module that imports lancedb. It does not embed, fuse or rank parents.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import FTS
from lancedb.query import BooleanQuery, FullTextOperator, MatchQuery, Occur
from lancedb.rerankers import RRFReranker

from rag_core.errors import IndexMismatchError
from rag_core import store_rows
from rag_core.exact_vectors import ExactVectors
from rag_core.models import Child, DocumentRecord, Parent
from rag_core.text import fold

log = logging.getLogger(__name__)
RRF_K = 60  # Cormack, Clarke & Büttcher, SIGIR 2009
FTS_COLUMNS = {"fr": "fts_fr", "en": "fts_en"}
_LANGUAGE_NAMES = {"fr": "French", "en": "English"}
_MAX_QUERY_TERMS = 64  # a pasted page must not turn into a 10,000-term query
_TOKEN = re.compile(r"[0-9a-z]+")
ANN_NPROBES = 20
ANN_REFINE = 5


@dataclass(frozen=True)
class ChildHit:
    child_id: str
    parent_id: str
    doc_id: str
    score: float  # BM25 score (lexical), cosine similarity (dense) or RRF score (hybrid)
    lexical_score: float | None = None
    dense_score: float | None = None


@dataclass(frozen=True)
class PageHit:
    doc_id: str
    page: int  # 1-based
    parent_ids: tuple[str, ...]  # the parents that hold text of this page, in document order
    score: float  # BM25 score


@dataclass(frozen=True)
class TableInfo:
    """What the searches need to know of a table, read once per table version."""

    version: int
    doc_ids: frozenset[str]  # documents that have rows in it
    indexes: frozenset[str]


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def id_filter(column: str, values: Sequence[str]) -> str:
    return f"{column} IN ({', '.join(_quote(v) for v in values)})" if values else "false"


def _scoped(query, where: str | None):  # type: ignore[no-untyped-def]
    return query if where is None else query.where(where, prefilter=True)


def lexical_query(text: str) -> str:
    """Folded query reduced to word tokens: no syntax can reach the full-text parser."""
    return " ".join(_TOKEN.findall(fold(text))[:_MAX_QUERY_TERMS])


class Store:
    """A LanceDB directory (or object-store URI) holding one library."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.db = lancedb.connect(uri)
        self._clear_caches()

    def _clear_caches(self) -> None:
        """Caches keyed by table version; a dropped and re-created table restarts its versions."""
        self._table_cache: dict[str, TableInfo] = {}
        self._vectors: ExactVectors | None = None  # children, for exact search without an ANN index
        self._records_cache: tuple[int, list[DocumentRecord]] | None = None

    # ----- tables -------------------------------------------------------------------------
    def _names(self) -> set[str]:
        result = self.db.list_tables()
        names = getattr(result, "tables", result)
        return set(names)

    def _open(self, name: str):  # type: ignore[no-untyped-def]
        return self.db.open_table(name) if name in self._names() else None

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
            raise IndexMismatchError(
                f"This library was indexed with the embedding model '{info[0]}' ({info[1]} dimensions) "
                f"but '{name}' ({dim} dimensions) is configured. Re-embed it with "
                "`python -m rag_core reindex`, or configure the model that built it."
            )

    def _ensure_meta(self, name: str, dim: int) -> None:
        if self._open("meta") is None:
            self.db.create_table(
                "meta",
                data=[{"embedder": name, "dim": dim, "created_at": datetime.now(UTC).isoformat()}],
                exist_ok=True,
            )

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

    def purge_orphans(self) -> int:
        """Delete parents/children whose document never became ready (interrupted ingestion)."""
        ready = set(self.document_ids())
        removed = 0
        for name in ("children", "parents", "pages"):
            table = self._open(name)
            if table is None:
                continue
            ids = set(table.search().select(["doc_id"]).limit(None).to_arrow()["doc_id"].to_pylist())
            for doc_id in ids - ready:
                table.delete(f"doc_id = {_quote(doc_id)}")
                removed += 1
        return removed

    def optimize(self, ann_min_rows: int = 50_000, attempts: int = 5) -> None:
        """Fold new rows into the indexes; create FTS indexes (and the ANN index past a size).

        Index maintenance only: new rows are already searchable (flat-scanned). When another
        process optimises at the same time LanceDB reports a retryable commit conflict; retry,
        and if it persists leave the work to the next ingestion.
        """
        for attempt in range(attempts):
            try:
                self._optimize(ann_min_rows)
                return
            except RuntimeError as err:
                if "etryable" not in str(err) and "conflict" not in str(err).lower():
                    raise
                time.sleep(0.2 * (attempt + 1))
        log.warning("index optimisation skipped after %d commit conflicts; the next ingestion will redo it",
                    attempts)

    def _optimize(self, ann_min_rows: int) -> None:
        table = self._open("children")
        if table is None:
            return
        existing = self._create_fts_indexes(table)
        if table.count_rows() >= ann_min_rows and "vector_idx" not in existing:
            self.build_ann_index()
        table.optimize()
        pages = self._open("pages")
        if pages is not None:
            self._create_fts_indexes(pages)
            pages.optimize()
        for name in ("parents", "documents"):
            other = self._open(name)
            if other is not None:
                other.optimize()

    @staticmethod
    def _create_fts_indexes(table) -> set[str]:  # type: ignore[no-untyped-def]
        """The French and English full-text indexes of `table`; returns the index names it had."""
        existing = {idx.name for idx in table.list_indices()}
        for lang, column in FTS_COLUMNS.items():
            name = f"{column}_idx"
            if name not in existing:
                table.create_index(column, config=FTS(
                    language=_LANGUAGE_NAMES[lang], stem=True, remove_stop_words=True, ascii_folding=True,
                ), name=name, replace=True)
        return existing

    def build_ann_index(self) -> None:
        """IVF_HNSW_SQ on the children's vectors (flat search is exact but grows linearly)."""
        table = self.db.open_table("children")
        table.create_index(metric="cosine", vector_column_name="vector", index_type="IVF_HNSW_SQ",
                           name="vector_idx", replace=True)

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
            records = sorted((DocumentRecord.model_validate_json(r) for r in rows),
                             key=lambda r: (r.collection, r.file_name))
            self._records_cache = (version, records)
        return [r for r in self._records_cache[1] if collection is None or r.collection == collection]

    def document_ids(self, collections: Sequence[str] | None = None, doc_ids: Sequence[str] | None = None) -> list[str]:
        """Ids of ready documents in scope: the prefilter of every search."""
        records = self.documents()
        return [
            r.doc_id for r in records
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
        table = self._open("parents")
        if table is None:
            return []
        rows = table.search().where(f"doc_id = {_quote(doc_id)}").select(["data"]).limit(None).to_arrow()
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

    @staticmethod
    def _scope_filter(info: TableInfo, scope: Sequence[str]) -> str | None:
        """The prefilter for `scope`, or None when the scope holds every document the table has rows
        for (no other collection, no orphan rows): filtering then changes nothing but costs ~25 ms."""
        return None if info.doc_ids <= set(scope) else id_filter("doc_id", scope)

    def _table_info(self, table) -> TableInfo:  # type: ignore[no-untyped-def]
        version = table.version
        cached = self._table_cache.get(table.name)
        if cached is None or cached.version != version:
            ids = table.search().select(["doc_id"]).limit(None).to_arrow()["doc_id"].unique().to_pylist()
            cached = TableInfo(version, frozenset(ids), frozenset(idx.name for idx in table.list_indices()))
            self._table_cache[table.name] = cached
        return cached

    def lexical(
        self, query: str, language: str, scope: Sequence[str], k: int,
        extra_terms: Sequence[tuple[str, float]] = (),
    ) -> list[ChildHit]:
        """BM25 over the folded contextualised children, analysed in the question's language.

        `extra_terms` (text, weight) are OR-ed with the query, each with its BM25 boost
        (thesaurus expansion: the question itself weighs 1.0).
        """
        rows = self._fts("children", ["id", "parent_id", "doc_id"], query, language, scope, k, extra_terms)
        return [ChildHit(r["id"], r["parent_id"], r["doc_id"], float(r["_score"])) for r in rows]

    def page_lexical(
        self, query: str, language: str, scope: Sequence[str], k: int,
        extra_terms: Sequence[tuple[str, float]] = (),
    ) -> list[PageHit]:
        """BM25 over whole pages (the page channel), as `lexical`. A library written before
        pages were indexed has no `pages` table: the channel is then empty."""
        rows = self._fts("pages", ["doc_id", "page", "parent_ids"], query, language, scope, k, extra_terms)
        return [PageHit(r["doc_id"], int(r["page"]), tuple(r["parent_ids"]), float(r["_score"])) for r in rows]

    def _fts(
        self, name: str, columns: list[str], query: str, language: str, scope: Sequence[str], k: int,
        extra_terms: Sequence[tuple[str, float]],
    ) -> list[dict]:
        table = self._open(name)
        text = lexical_query(query)
        if table is None or not text or not scope:
            return []
        column = FTS_COLUMNS.get(language, "fts_en")
        info = self._table_info(table)
        if f"{column}_idx" not in info.indexes:
            return []  # written, not yet indexed (the ingestion's optimize() creates it)
        match = MatchQuery(text, column)
        extra = [(lexical_query(term), weight) for term, weight in extra_terms]
        if any(term for term, _ in extra):
            match = BooleanQuery([(Occur.SHOULD, match)] + [
                (Occur.SHOULD, MatchQuery(term, column, boost=weight)) for term, weight in extra if term])
        rows = (
            _scoped(table.search(match, query_type="fts"), self._scope_filter(info, scope))
            .select([*columns, "_score"])
            .limit(k)
            .to_list()
        )
        # A zero BM25 score is not a match (METHOD.md §3).
        return [r for r in rows if r["_score"] > 0]

    def passages_with(self, words: Sequence[str], scope: Sequence[str], limit: int) -> list[str]:
        """Folded texts of up to `limit` children in `scope` that contain every one of `words` (after
        either analyser's stemming): "does any passage mention it?" without reading the library."""
        table = self._open("children")
        text = lexical_query(" ".join(words))
        if table is None or not text or not scope:
            return []
        info = self._table_info(table)
        found: dict[str, str] = {}
        for column in FTS_COLUMNS.values():
            if f"{column}_idx" not in info.indexes:
                continue
            match = MatchQuery(text, column, operator=FullTextOperator.AND)
            rows = (_scoped(table.search(match, query_type="fts"), self._scope_filter(info, scope))
                    .select(["id", "fts_en", "_score"]).limit(limit).to_list())
            found.update((r["id"], r["fts_en"]) for r in rows if r["_score"] > 0)
        return list(found.values())[:limit]

    def dense(self, vector: np.ndarray, scope: Sequence[str], k: int, exact: bool = False) -> list[ChildHit]:
        """Cosine similarity of normalised vectors: the ANN index once built; exact below it.

        Without an ANN index (below `ann_min_rows`) the exact search runs in memory
        (`exact_vectors`); `exact=True` asks LanceDB's own flat scan (the reference).
        """
        table = self._open("children")
        if table is None or not scope:
            return []
        info = self._table_info(table)
        scope_filter = self._scope_filter(info, scope)
        if not exact and "vector_idx" not in info.indexes:
            if self._vectors is None or self._vectors.version != info.version:
                self._vectors = ExactVectors(info.version, table.search().select(
                    ["id", "parent_id", "doc_id", "vector"]).limit(None).to_arrow())
            found = self._vectors.search(vector, None if scope_filter is None else scope, k)
            return [ChildHit(cid, pid, did, score) for cid, pid, did, score in found]
        query = table.search(vector.astype(np.float32), vector_column_name="vector").distance_type("cosine")
        if exact:
            query = query.bypass_vector_index()
        else:
            # Measured in benchmarks/ann_recall.py: recall@20 >= 0.95 against exact search.
            query = query.nprobes(ANN_NPROBES).refine_factor(ANN_REFINE)
        rows = (
            _scoped(query, scope_filter)
            .select(["id", "parent_id", "doc_id", "_distance"])
            .limit(k)
            .to_list()
        )
        return [ChildHit(r["id"], r["parent_id"], r["doc_id"], 1.0 - float(r["_distance"])) for r in rows]

    def hybrid(self, query: str, vector: np.ndarray, language: str, scope: Sequence[str], k: int) -> list[ChildHit]:
        """LanceDB's native hybrid query: both channels pre-filtered, fused by RRF (k=60) on children."""
        table = self._open("children")
        text = lexical_query(query)
        if table is None or not scope:
            return []
        if not text:
            return self.dense(vector, scope, k)
        column = FTS_COLUMNS.get(language, "fts_en")
        rows = (
            table.search(query_type="hybrid", fts_columns=column)
            .vector(vector.astype(np.float32))
            .text(text)
            .distance_type("cosine")
            .where(id_filter("doc_id", scope), prefilter=True)  # no shortcut: fusion sees both legs
            .rerank(RRFReranker(K=RRF_K, return_score="all"))
            .select(["id", "parent_id", "doc_id"])
            .limit(k)
            .to_list()
        )
        hits = []
        for r in rows:
            lex = r.get("_score")
            dist = r.get("_distance")
            hits.append(ChildHit(
                r["id"], r["parent_id"], r["doc_id"], float(r["_relevance_score"]),
                lexical_score=None if lex is None or lex != lex else float(lex),
                dense_score=None if dist is None or dist != dist else 1.0 - float(dist),
            ))
        return hits
