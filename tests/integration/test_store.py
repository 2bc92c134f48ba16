"""The knowledge base on a real LanceDB in a temp directory, with the real offline embedder."""

from __future__ import annotations

import numpy as np
import pytest
from lancedb.query import BooleanQuery, MatchQuery, Occur

from rag_core.config import Settings
from rag_core.embedding import select_embedder
from rag_core.errors import IndexMismatchError
from rag_core.retrieval import fuse_rankings, search
from rag_core.store import FTS_COLUMNS, FullText, Store, id_filter, lexical_query
from tests.store_support import DOCS, build_store, chunks_of, record_of


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, Settings]:
    """Shared by the read-only tests."""
    return build_store(Settings(data_dir=tmp_path_factory.mktemp("kb")))


@pytest.fixture
def fresh_library(settings: Settings) -> tuple[Store, Settings]:
    """For tests that write or delete."""
    return build_store(settings)


def test_rrf_matches_a_hand_computation() -> None:
    # lexical: x, y, z ; dense: y, w, x  (k = 60)
    fused = dict(fuse_rankings([["x", "y", "z"], ["y", "w", "x"]]))
    assert fused["y"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["x"] == pytest.approx(1 / 61 + 1 / 63)
    assert fused["w"] == pytest.approx(1 / 62)
    assert fused["z"] == pytest.approx(1 / 63)
    order = [key for key, _ in fuse_rankings([["x", "y", "z"], ["y", "w", "x"]])]
    assert order == ["y", "x", "w", "z"]
    # ties are broken by id
    assert [k for k, _ in fuse_rankings([["b"], ["a"]])] == ["a", "b"]


@pytest.mark.parametrize(
    ("query", "lang", "expected_section"),
    [
        ("provision", "fr", "Provisions techniques"),
        ("mortalite", "fr", "Provisions techniques"),
        ("Solvabilite", "fr", "Solvabilité II"),
        ("L. 1235-3", "fr", "Droit du travail"),
        ("BF2", "en", "Stochastic BF"),
        ("CL1", "en", "Stochastic BF"),
        ("Guideline 37", "en", "Guidelines"),
        ("IBNR", "en", "Guidelines"),
    ],
)
def test_full_text_search_in_french_and_english(library, query: str, lang: str, expected_section: str) -> None:
    store, _ = library
    hits = store.lexical(query, lang, list(DOCS), 5)
    assert hits, query
    parents = store.parents([hits[0].parent_id])
    assert parents[hits[0].parent_id].heading_path == [expected_section]


@pytest.mark.parametrize(
    "query",
    [
        "",
        "le la les de",
        "x" * 10_000,
        "SELECT * FROM children; DROP TABLE children; --",
        '"unbalanced (quote: AND OR NOT',
        "mortalité " * 2000,
    ],
)
def test_hostile_queries_never_break_search(library, query: str) -> None:
    store, settings = library
    result = search(query, store, select_embedder(settings), settings, list(DOCS))
    assert store.count_children() == 6  # nothing was dropped
    assert len(lexical_query(query).split()) <= 64
    # whatever comes back is whole parents of the scope, ranked 1..n
    assert [p.fused_rank for p in result.parents] == list(range(1, len(result.parents) + 1))
    assert all(p.document.doc_id in DOCS and p.best_child.parent_id == p.parent.id for p in result.parents)
    if not query.strip():
        assert result.parents == []
    if query.startswith("mortalité"):  # cut to 64 terms, the word still finds its section by its words
        assert result.parents[0].parent.heading_path == ["Provisions techniques"]
        assert result.parents[0].rank_in("lexical") == 1


def test_prefilter_never_leaks_another_collection(library) -> None:
    store, settings = library
    embedder = select_embedder(settings)
    scope_b = store.document_ids(collections=["coll-B"])
    assert scope_b == ["b" * 64]
    # The best match for this query is in collection A; searching B must not return it.
    for fusion in ("parents", "children"):
        result = search("provisions techniques mortalité", store, embedder, settings, scope_b, fusion=fusion)
        assert result.parents, fusion
        assert {p.document.collection for p in result.parents} == {"coll-B"}
    assert store.hybrid("mortalité", embedder.embed_query("mortalité"), "fr", scope_b, 10)
    assert all(h.doc_id == "b" * 64 for h in store.hybrid("mortalité", embedder.embed_query("x"), "fr", scope_b, 10))


def test_batched_full_text_equals_lancedb_synchronous_queries(settings: Settings) -> None:
    """`Store.full_text` sends several BM25 queries to LanceDB at once through its async API; each
    must return what LanceDB's synchronous query returns: rows, order, scores, the scope prefilter
    applied inside the query, the boosted thesaurus terms, and the pages table."""
    store = Store(settings.db_uri)
    embedder = select_embedder(settings)
    for doc_id, (lang, coll, sections) in DOCS.items():  # with their pages this time
        parents, children = chunks_of(doc_id, sections)
        store.write_document(
            record_of(doc_id, lang, coll, len(sections), embedder.name),
            parents,
            children,
            embedder.embed_passages([c.context_text for c in children]),
            embedder.name,
            [f"{title}\n{text}" for title, text in sections],
        )
    store.optimize()
    a, b = "a" * 64, "b" * 64
    requests = [
        FullText("children", "provisions mortalité solvabilité", "fr", 5),
        FullText("children", "mortality reserves guideline", "en", 5, (("IBNR", 0.5),)),
        FullText("pages", "mortality reserves guideline", "en", 5),
        FullText("children", "nothing-matches-this", "en", 5),
    ]
    for scope in ([a, b], [b]):
        batched = store.full_text(requests, scope)
        for request, got in zip(requests, batched, strict=True):
            table = store._open(request.table)
            column = FTS_COLUMNS[request.language]
            match = MatchQuery(lexical_query(request.query), column)
            if request.extra_terms:
                match = BooleanQuery(
                    [(Occur.SHOULD, match)]
                    + [(Occur.SHOULD, MatchQuery(lexical_query(t), column, boost=w)) for t, w in request.extra_terms]
                )
            query = table.search(match, query_type="fts")
            if scope == [b]:
                query = query.where(id_filter("doc_id", scope), prefilter=True)
            rows = [r for r in query.select(["doc_id", "_score"]).limit(request.k).to_list() if r["_score"] > 0]
            assert [(h.doc_id, h.score) for h in got] == [(r["doc_id"], pytest.approx(r["_score"])) for r in rows]
            assert all(h.doc_id in scope for h in got)
        assert batched[0] and batched[1] and batched[2] if scope == [a, b] else not batched[0]
        assert batched[3] == []
    # the thesaurus term's boost reaches the query: without it "IBNR" does not match at all
    plain = store.full_text([FullText("children", "IBNR", "en", 5)], [a, b])[0]
    boosted = store.full_text([FullText("children", "mortality", "en", 5, (("IBNR", 0.5),))], [a, b])[0]
    assert plain and {h.parent_id for h in plain} <= {h.parent_id for h in boosted}


def test_hybrid_reports_both_channels(library) -> None:
    store, settings = library
    result = search("IBNR expert judgement", store, select_embedder(settings), settings, list(DOCS))
    top = result.parents[0]
    assert top.parent.heading_path == ["Guidelines"]
    assert top.rank_in("lexical") == 1 and "dense" in top.ranks
    expected = 1 / (60 + top.ranks["lexical"].rank) + settings.retrieval.dense_weight / (60 + top.ranks["dense"].rank)
    assert top.fused_score == pytest.approx(expected)
    assert [p.fused_rank for p in result.parents] == list(range(1, len(result.parents) + 1))


def test_delete_and_re_add(fresh_library) -> None:
    store, settings = fresh_library
    embedder = select_embedder(settings)
    doc_a = "a" * 64
    store.delete_document(doc_a)
    assert store.document_ids() == ["b" * 64]
    assert store.lexical("mortalite", "fr", [doc_a], 5) == []
    assert store.count_children() == 3
    lang, coll, sections = DOCS[doc_a]
    parents, children = chunks_of(doc_a, sections)
    vectors = embedder.embed_passages([c.context_text for c in children])
    store.write_document(record_of(doc_a, lang, coll, 3, embedder.name), parents, children, vectors, embedder.name)
    assert store.count_children() == 6
    assert store.lexical("mortalite", "fr", [doc_a], 5)


def test_orphan_rows_of_an_unfinished_document_are_invisible_and_purged(fresh_library) -> None:
    store, settings = fresh_library
    # Simulate an ingestion killed after its children were written but before its document row.
    doc_c = "c" * 64
    parents, children = chunks_of(doc_c, [("Orphan", "mortalité orpheline")])
    import pyarrow as pa

    from rag_core.store.rows import PARENTS as _PARENTS

    store._add(
        "parents",
        pa.Table.from_pylist(
            [
                {"id": p.id, "doc_id": doc_c, "collection": "coll-A", "idx": 0, "data": p.model_dump_json()}
                for p in parents
            ],
            schema=_PARENTS,
        ),
    )
    assert doc_c not in store.document_ids()
    assert all(h.doc_id != doc_c for h in store.lexical("orpheline", "fr", store.document_ids(), 5))
    assert store.purge_orphans() >= 1
    assert store.parents([parents[0].id]) == {}


def test_opening_the_index_with_another_model_is_refused(fresh_library) -> None:
    store, _ = fresh_library
    doc_d = "d" * 64
    parents, children = chunks_of(doc_d, [("X", "text")])
    with pytest.raises(IndexMismatchError, match="reindex"):
        store.write_document(
            record_of(doc_d, "en", "coll-A", 1, "other-model"),
            parents,
            children,
            np.ones((1, 1024), dtype=np.float32),
            "other-model",
        )
    with pytest.raises(IndexMismatchError, match="reindex"):
        store.check_embedder("BAAI/bge-m3", 1024)


def test_exact_search_in_memory_equals_lancedb_flat_scan(fresh_library) -> None:
    store, settings = fresh_library
    embedder = select_embedder(settings)
    scope_a = store.document_ids(collections=["coll-A"])
    for question in ("mortalité des rentiers", "expert judgement for reserves", "capital requis"):
        vector = embedder.embed_query(question)
        for scope in (list(DOCS), scope_a):
            ours, reference = store.dense(vector, scope, 4), store.dense(vector, scope, 4, exact=True)
            assert [h.child_id for h in ours] == [h.child_id for h in reference]
            assert [h.score for h in ours] == pytest.approx([h.score for h in reference], abs=1e-5)
            assert {h.doc_id for h in ours} <= set(scope)
    # a write makes a new table version: the vectors held in memory follow it
    doc_a = "a" * 64
    store.delete_document(doc_a)
    vector = embedder.embed_query("mortalité")
    assert all(h.doc_id != doc_a for h in store.dense(vector, list(DOCS), 6))
    lang, coll, sections = DOCS[doc_a]
    parents, children = chunks_of(doc_a, sections)
    store.write_document(
        record_of(doc_a, lang, coll, 3, embedder.name),
        parents,
        children,
        embedder.embed_passages([c.context_text for c in children]),
        embedder.name,
    )
    assert {h.doc_id for h in store.dense(vector, list(DOCS), 6)} == {doc_a, "b" * 64}


def test_a_small_scope_is_searched_exactly_when_the_ann_index_exists(settings: Settings) -> None:
    # 30 documents of 40 random children: the ANN index is built, then one document (40 children)
    # is the scope. It gets exactly what the exact prefiltered scan gets, all 40 when k is larger.
    store = Store(settings.db_uri)
    rng = np.random.default_rng(7)
    doc_ids = [f"{d:02d}" + "e" * 62 for d in range(30)]
    for doc_id in doc_ids:
        sections = [(f"S{i}", f"text {i} of {doc_id[:2]}") for i in range(40)]
        parents, children = chunks_of(doc_id, sections)
        vectors = rng.standard_normal((40, 384)).astype(np.float32)
        store.write_document(
            record_of(doc_id, "en", f"c{doc_id[:2]}", 40, "synthetic"),
            parents,
            children,
            vectors / np.linalg.norm(vectors, axis=1, keepdims=True),
            "synthetic",
        )
    store.build_ann_index()
    scope = doc_ids[3:4]
    for _ in range(5):
        query = rng.standard_normal(384).astype(np.float32)
        ours, reference = store.dense(query, scope, 20), store.dense(query, scope, 20, exact=True)
        assert [h.child_id for h in ours] == [h.child_id for h in reference]
        assert len(store.dense(query, scope, 60)) == 40 and {h.doc_id for h in ours} == set(scope)
    assert [key[1] for key in store._scope_vectors] == [frozenset(scope)]  # read once, searched in memory
    assert len(store.dense(query, doc_ids, 20)) == 20  # no prefilter: through the index
    store.delete_document(scope[0])  # a new table version: the scope's vectors are read again
    assert store.dense(query, scope, 20) == []
