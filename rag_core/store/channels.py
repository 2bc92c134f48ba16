"""The search channels of the knowledge base: BM25 over children and over pages, dense vectors,
and LanceDB's native hybrid query.

Every channel pre-filters on the scope it is given (the ids of ready documents the caller may
search), inside the query, never after ranking. Queries are folded and reduced to word tokens
before they reach the full-text parser. This module does not fuse channels or group parents
(see `rag_core.retrieval`).
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lancedb.background_loop import LOOP
from lancedb.query import BooleanQuery, FullTextOperator, FullTextQuery, MatchQuery, Occur
from lancedb.rerankers import RRFReranker

from rag_core.store.exact_vectors import ExactVectors
from rag_core.text import fold

RRF_K = 60  # Cormack, Clarke & Büttcher, SIGIR 2009
FTS_COLUMNS = {"fr": "fts_fr", "en": "fts_en"}
_LANGUAGE_NAMES = {"fr": "French", "en": "English"}
_MAX_QUERY_TERMS = 64  # a pasted page must not turn into a 10,000-term query
_TOKEN = re.compile(r"[0-9a-z]+")
ANN_NPROBES = 20
ANN_REFINE = 5
# A scope of at most this many children is searched exactly, in memory, even when the ANN index
# exists. benchmarks/filtered_recall.py, 50k children, users reading 1/5/10 % of the documents:
# the index under the prefilter gave recall@20 1.000/1.000/0.996 (0.964 at 10 % for uniform
# random queries, 0.896 at 25 %) in 19-37 ms; LanceDB's prefiltered flat scan 80-140 ms (it reads
# the whole vector column); the scope's own vectors in memory: exact, 2.5-4 ms. The scope's
# vectors are read once per table version and scope (`SCOPES_KEPT` scopes are kept).
ANN_EXACT_SCOPE_ROWS = 10_000
SCOPES_KEPT = 4


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
    rows_per_doc: dict[str, int] = field(default_factory=dict)

    def rows_in(self, scope: Sequence[str]) -> int:
        return sum(self.rows_per_doc.get(doc_id, 0) for doc_id in set(scope))


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def id_filter(column: str, values: Sequence[str]) -> str:
    return f"{column} IN ({', '.join(_quote(v) for v in values)})" if values else "false"


def _scoped(query, where: str | None):
    return query if where is None else query.where(where, prefilter=True)


@dataclass(frozen=True)
class FullText:
    """One BM25 query: over "children" (`SearchChannels.lexical`) or "pages" (`page_lexical`)."""

    table: str
    query: str
    language: str
    k: int
    extra_terms: Sequence[tuple[str, float]] = ()


async def _gather(queries: list) -> list:
    return list(await asyncio.gather(*queries))


def lexical_query(text: str) -> str:
    """Folded query reduced to word tokens: no syntax can reach the full-text parser."""
    return " ".join(_TOKEN.findall(fold(text))[:_MAX_QUERY_TERMS])


def _match(text: str, column: str, **options: Any) -> FullTextQuery:
    """LanceDB's match query on one column; its other options keep LanceDB's defaults (its pydantic
    model declares them all, which a type checker reads as required)."""
    return MatchQuery(text, column, **options)


class SearchChannels:
    """The channels' queries, mixed into `Store` (which opens the tables and keeps the caches)."""

    _table_cache: dict[str, TableInfo]
    _vectors: ExactVectors | None
    _scope_vectors: OrderedDict[tuple[int, frozenset[str]], ExactVectors]
    _scope_lock: threading.Lock

    def _open(self, name: str):
        raise NotImplementedError

    @staticmethod
    def _scope_filter(info: TableInfo, scope: Sequence[str]) -> str | None:
        """The prefilter for `scope`, or None when the scope holds every document the table has rows
        for (no other collection, no orphan rows): filtering then changes nothing but costs ~25 ms."""
        return None if info.doc_ids <= set(scope) else id_filter("doc_id", scope)

    def _table_info(self, table) -> TableInfo:
        version = table.version
        cached = self._table_cache.get(table.name)
        if cached is None or cached.version != version:
            counts = table.search().select(["doc_id"]).limit(None).to_arrow()["doc_id"].value_counts().to_pylist()
            rows = {c["values"]: c["counts"] for c in counts}
            cached = TableInfo(version, frozenset(rows), frozenset(idx.name for idx in table.list_indices()), rows)
            self._table_cache[table.name] = cached
        return cached

    def lexical(
        self, query: str, language: str, scope: Sequence[str], k: int, extra_terms: Sequence[tuple[str, float]] = ()
    ) -> list[ChildHit]:
        """BM25 over the folded contextualised children, analysed in the question's language.

        `extra_terms` (text, weight) are OR-ed with the query, each with its BM25 boost
        (thesaurus expansion: the question itself weighs 1.0).
        """
        (hits,) = self.full_text([FullText("children", query, language, k, extra_terms)], scope)
        return hits  # type: ignore[return-value]

    def page_lexical(
        self, query: str, language: str, scope: Sequence[str], k: int, extra_terms: Sequence[tuple[str, float]] = ()
    ) -> list[PageHit]:
        """BM25 over whole pages (the page channel), as `lexical`. A library written before
        pages were indexed has no `pages` table: the channel is then empty."""
        (hits,) = self.full_text([FullText("pages", query, language, k, extra_terms)], scope)
        return hits  # type: ignore[return-value]

    def full_text(self, requests: Sequence[FullText], scope: Sequence[str]) -> list[list[ChildHit] | list[PageHit]]:
        """Several BM25 queries (`lexical` / `page_lexical` each) run together: one call into
        LanceDB's event loop for all of them. benchmarks/query_latency.py, 10k children, 2 cores:
        each synchronous query spends about 2.5 ms outside the search itself (three schema reads
        and five hops to the event loop); four queries side by side in threads took 12 ms, the
        same four gathered in the loop 7 ms (two: 6 and 4 ms). Same rows and scores (tested)."""
        tables: dict[str, tuple] = {}  # each table opened and versioned once
        for name in {r.table for r in requests}:
            table = self._open(name)
            tables[name] = (table, self._table_info(table) if table is not None else None)
        prepared = [self._fts_query(r, scope, *tables[r.table]) for r in requests]
        pending = [q for q in prepared if q is not None]
        results = iter(LOOP.run(_gather([q.to_arrow() for q in pending])) if pending else [])
        out: list[list[ChildHit] | list[PageHit]] = []
        for request, query in zip(requests, prepared, strict=True):
            # A zero BM25 score is not a match (docs/method.md, "Search: channels and fusion").
            rows = [r for r in next(results).to_pylist() if r["_score"] > 0] if query is not None else []
            if request.table == "pages":
                out.append(
                    [PageHit(r["doc_id"], int(r["page"]), tuple(r["parent_ids"]), float(r["_score"])) for r in rows]
                )
            else:
                out.append([ChildHit(r["id"], r["parent_id"], r["doc_id"], float(r["_score"])) for r in rows])
        return out

    @staticmethod
    def _fts_query(request: FullText, scope: Sequence[str], table, info: TableInfo | None):
        """The asynchronous LanceDB query of one request, or None when it cannot match anything."""
        text = lexical_query(request.query)
        if table is None or info is None or not text or not scope:
            return None
        column = FTS_COLUMNS.get(request.language, "fts_en")
        if f"{column}_idx" not in info.indexes:
            return None  # written, not yet indexed (the ingestion's optimize() creates it)
        match: FullTextQuery = _match(text, column)
        extra = [(lexical_query(term), weight) for term, weight in request.extra_terms]
        if any(term for term, _ in extra):
            match = BooleanQuery(
                [(Occur.SHOULD, match)]
                + [(Occur.SHOULD, _match(term, column, boost=weight)) for term, weight in extra if term]
            )
        # The synchronous table's own asynchronous table (LanceDB's public async query API): same
        # version, same consistency as every other read of this store.
        query = table._table.query().nearest_to_text(match)
        scope_filter = SearchChannels._scope_filter(info, scope)
        if scope_filter is not None:
            query = query.where(scope_filter)  # a prefilter: the async API filters before the search
        columns = ["doc_id", "page", "parent_ids"] if request.table == "pages" else ["id", "parent_id", "doc_id"]
        return query.select([*columns, "_score"]).limit(request.k)

    def passages_with(self, words: Sequence[str], scope: Sequence[str], limit: int) -> list[str] | None:
        """Folded texts of up to `limit` children in `scope` that contain every one of `words` (after
        either analyser's stemming): "does any passage mention it?" without reading the library.
        None when it cannot be told: no full-text index yet (rows written, not yet optimised)."""
        table = self._open("children")
        text = lexical_query(" ".join(words))
        if table is None or not text or not scope:
            return []
        info = self._table_info(table)
        columns = [c for c in FTS_COLUMNS.values() if f"{c}_idx" in info.indexes]
        if not columns:
            return None
        found: dict[str, str] = {}
        for column in columns:
            match = _match(text, column, operator=FullTextOperator.AND)
            rows = (
                _scoped(table.search(match, query_type="fts"), self._scope_filter(info, scope))
                .select(["id", "fts_en", "_score"])
                .limit(limit)
                .to_list()
            )
            found.update((r["id"], r["fts_en"]) for r in rows if r["_score"] > 0)
        return list(found.values())[:limit]

    def dense(self, vector: np.ndarray, scope: Sequence[str], k: int, exact: bool = False) -> list[ChildHit]:
        """Cosine similarity of normalised vectors: the ANN index once built; exact below it.

        Without an ANN index (below `ann_min_rows`) the exact search runs in memory
        (`exact_vectors`); `exact=True` asks LanceDB's own flat scan (the reference). With the
        index, a scope of at most `ANN_EXACT_SCOPE_ROWS` children is searched exactly in memory
        too, on its own vectors: a selective prefilter would cost the index its recall.
        """
        return self.dense_many(vector, [scope], k, exact)[0]

    def dense_many(
        self, vector: np.ndarray, scopes: Sequence[Sequence[str]], k: int, exact: bool = False
    ) -> list[list[ChildHit]]:
        """`dense` in each of `scopes`: the table opened and its version read once."""
        table = self._open("children")
        if table is None:
            return [[] for _ in scopes]
        info = self._table_info(table)
        return [self._dense(table, info, vector, scope, k, exact) if scope else [] for scope in scopes]

    def _dense(
        self, table, info: TableInfo, vector: np.ndarray, scope: Sequence[str], k: int, exact: bool
    ) -> list[ChildHit]:
        scope_filter = self._scope_filter(info, scope)
        if not exact and "vector_idx" not in info.indexes:
            if self._vectors is None or self._vectors.version != info.version:
                self._vectors = ExactVectors(
                    info.version, table.search().select(["id", "parent_id", "doc_id", "vector"]).limit(None).to_arrow()
                )
            found = self._vectors.search(vector, None if scope_filter is None else scope, k)
            return [ChildHit(cid, pid, did, score) for cid, pid, did, score in found]
        if not exact and scope_filter is not None and info.rows_in(scope) <= ANN_EXACT_SCOPE_ROWS:
            found = self._vectors_of_scope(table, info, scope, scope_filter).search(vector, None, k)
            return [ChildHit(cid, pid, did, score) for cid, pid, did, score in found]
        query = table.search(vector.astype(np.float32), vector_column_name="vector").distance_type("cosine")
        if exact:
            query = query.bypass_vector_index()
        else:
            # Measured in benchmarks/ann_recall.py: recall@20 >= 0.95 against exact search.
            query = query.nprobes(ANN_NPROBES).refine_factor(ANN_REFINE)
        rows = _scoped(query, scope_filter).select(["id", "parent_id", "doc_id", "_distance"]).limit(k).to_list()
        return [ChildHit(r["id"], r["parent_id"], r["doc_id"], 1.0 - float(r["_distance"])) for r in rows]

    def _vectors_of_scope(self, table, info: TableInfo, scope: Sequence[str], scope_filter: str) -> ExactVectors:
        """The children's vectors of a small scope, read once per table version and scope."""
        key = (info.version, frozenset(scope))
        with self._scope_lock:
            cached = self._scope_vectors.get(key)
            if cached is not None:
                self._scope_vectors.move_to_end(key)
                return cached
        rows = table.search().where(scope_filter).select(["id", "parent_id", "doc_id", "vector"]).limit(None)
        vectors = ExactVectors(info.version, rows.to_arrow())
        with self._scope_lock:
            self._scope_vectors[key] = vectors
            while len(self._scope_vectors) > SCOPES_KEPT:
                self._scope_vectors.popitem(last=False)
        return vectors

    def hybrid(self, query: str, vector: np.ndarray, language: str, scope: Sequence[str], k: int) -> list[ChildHit]:
        """LanceDB's native hybrid query: both channels pre-filtered, fused by RRF (k=60) on children."""
        table = self._open("children")
        text = lexical_query(query)
        if table is None or not scope:
            return []
        if not text:
            return self.dense(vector, scope, k)
        column = FTS_COLUMNS.get(language, "fts_en")
        search: Any = (  # LanceDB's hybrid builder (its stubs type `.where` as returning str)
            table.search(query_type="hybrid", fts_columns=column)
            .vector(vector.astype(np.float32))
            .text(text)
            .distance_type("cosine")
            .where(id_filter("doc_id", scope), prefilter=True)  # no shortcut: fusion sees both legs
        )
        info = self._table_info(table)
        if self._scope_filter(info, scope) is not None and info.rows_in(scope) <= ANN_EXACT_SCOPE_ROWS:
            search = search.bypass_vector_index()  # as in `dense`: a selective prefilter costs the index its recall
        rows = (
            search.rerank(RRFReranker(K=RRF_K, return_score="all"))
            .select(["id", "parent_id", "doc_id"])
            .limit(k)
            .to_list()
        )
        hits = []
        for r in rows:
            lex = r.get("_score")
            dist = r.get("_distance")
            hits.append(
                ChildHit(
                    r["id"],
                    r["parent_id"],
                    r["doc_id"],
                    float(r["_relevance_score"]),
                    lexical_score=None if lex is None or lex != lex else float(lex),
                    dense_score=None if dist is None or dist != dist else 1.0 - float(dist),
                )
            )
        return hits
