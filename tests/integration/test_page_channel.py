"""The page channel (BM25 over whole pages) on a real LanceDB, and its ingestion from real PDFs."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.embedding import select_embedder
from rag_core.models import PageChannelHit
from rag_core.parsing.pagetext import searchable_page_texts
from rag_core.retrieval import fuse_rankings, search
from rag_core.services.connection import open_store
from rag_core.store import Store
from tests.store_support import DOCS, SMALL_EN, SMALL_FR, chunks_of, record_of

LOCAL = Principal.local_operator()  # the local operator (administrator): these tests are not about access
# Page text beyond the children's: words only the page channel can see (a running header, say).
PAGE_ONLY_WORDS = {("a" * 64, 2): "Annexe triangle cumulatif des règlements", ("b" * 64, 3): "Appendix glossary"}


def _page_texts(doc_id: str, sections: list[tuple[str, str]]) -> list[str]:
    return [f"{title}\n{text}\n{PAGE_ONLY_WORDS.get((doc_id, i), '')}" for i, (title, text) in enumerate(sections, 1)]


def build_store(settings: Settings) -> Store:
    store = Store(settings.db_uri)
    embedder = select_embedder(settings)
    for doc_id, (lang, coll, sections) in DOCS.items():
        parents, children = chunks_of(doc_id, sections)
        vectors = embedder.embed_passages([c.context_text for c in children])
        store.write_document(
            record_of(doc_id, lang, coll, len(sections), embedder.name),
            parents,
            children,
            vectors,
            embedder.name,
            _page_texts(doc_id, sections),
        )
    store.optimize()
    return store


@pytest.fixture
def library(settings: Settings) -> tuple[Store, Settings]:
    return build_store(settings), settings


def test_rrf_with_tied_ranks_matches_a_hand_computation() -> None:
    # lexical: x, y ; pages: y and z share rank 1 (one page holds both parents), x rank 2
    fused = dict(fuse_rankings([["x", "y"], {"y": 1, "z": 1, "x": 2}], weights=[1.0, 0.5]))
    assert fused["y"] == pytest.approx(1 / 62 + 0.5 / 61)
    assert fused["z"] == pytest.approx(0.5 / 61)
    assert fused["x"] == pytest.approx(1 / 61 + 0.5 / 62)
    assert [k for k, _ in fuse_rankings([["x", "y"], {"y": 1, "z": 1, "x": 2}], weights=[1.0, 0.5])] == ["x", "y", "z"]


def test_page_words_find_the_parents_of_that_page(library) -> None:
    store, settings = library
    doc_a = "a" * 64
    assert store.lexical("triangle cumulatif", "fr", list(DOCS), 5) == []  # no child holds these words
    hits = store.page_lexical("triangle cumulatif", "fr", list(DOCS), 5)
    assert [(h.doc_id, h.page) for h in hits] == [(doc_a, 2)]
    assert hits[0].parent_ids == (f"{doc_a[:16]}:p0001",)
    result = search("triangle cumulatif", store, select_embedder(settings), settings, list(DOCS))
    top = result.parents[0]
    assert top.parent.id == f"{doc_a[:16]}:p0001" and "lexical" not in top.ranks
    page = top.ranks.get("page")
    assert isinstance(page, PageChannelHit) and (page.rank, page.page) == (1, 2)
    dense = 0.0 if "dense" not in top.ranks else settings.retrieval.dense_weight / (60 + top.ranks["dense"].rank)
    assert top.fused_score == pytest.approx(settings.retrieval.page_weight / 61 + dense)
    assert top.best_child.pages == [2]  # found by its page only: the child on that page


def test_page_weight_zero_turns_the_channel_off(library) -> None:
    store, settings = library
    off = settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update={"page_weight": 0.0})})
    result = search("triangle cumulatif", store, select_embedder(off), off, list(DOCS))
    assert all("page" not in p.ranks for p in result.parents)
    assert all("lexical" not in p.ranks for p in result.parents)  # what remains is the dense channel's guess


def test_page_channel_prefilter_never_leaks_another_collection(library) -> None:
    store, settings = library
    scope_b = store.document_ids(collections=["coll-B"])
    assert store.page_lexical("triangle cumulatif reglements", "fr", list(DOCS), 5)
    assert store.page_lexical("triangle cumulatif reglements", "fr", scope_b, 5) == []
    result = search("triangle cumulatif des règlements", store, select_embedder(settings), settings, scope_b)
    assert {p.document.collection for p in result.parents} <= {"coll-B"}


def test_delete_removes_the_pages_and_re_adding_restores_them(library) -> None:
    store, settings = library
    doc_b = "b" * 64
    assert store.page_lexical("glossary", "en", list(DOCS), 5)
    store.delete_document(doc_b)
    assert store.page_lexical("glossary", "en", list(DOCS), 5) == []
    assert store.db.open_table("pages").count_rows(f"doc_id = '{doc_b}'") == 0
    lang, coll, sections = DOCS[doc_b]
    parents, children = chunks_of(doc_b, sections)
    embedder = select_embedder(settings)
    store.write_document(
        record_of(doc_b, lang, coll, 3, embedder.name),
        parents,
        children,
        embedder.embed_passages([c.context_text for c in children]),
        embedder.name,
        _page_texts(doc_b, sections),
    )
    assert [h.page for h in store.page_lexical("glossary", "en", list(DOCS), 5)] == [3]


def test_a_library_written_before_the_page_channel_still_searches(settings: Settings) -> None:
    store = Store(settings.db_uri)
    embedder = select_embedder(settings)
    doc_id, (lang, coll, sections) = next(iter(DOCS.items()))
    parents, children = chunks_of(doc_id, sections)
    store.write_document(
        record_of(doc_id, lang, coll, 3, embedder.name),
        parents,
        children,
        embedder.embed_passages([c.context_text for c in children]),
        embedder.name,
    )
    store.optimize()
    assert "pages" not in store._names()
    assert store.page_lexical("mortalite", "fr", [doc_id], 5) == []
    result = search("mortalité", store, embedder, settings, [doc_id])
    assert result.parents[0].parent.heading_path == ["Provisions techniques"]
    assert "page" not in result.parents[0].ranks


def test_ingestion_indexes_every_page_of_a_real_pdf(tmp_path: Path, corpus_dir: Path) -> None:
    settings = Settings(data_dir=tmp_path / "lib")
    results = pipeline.ingest([corpus_dir / SMALL_EN, corpus_dir / SMALL_FR], settings, principal=LOCAL)
    store = open_store(settings)
    for result, pdf in zip(results, (SMALL_EN, SMALL_FR), strict=True):
        with pymupdf.open(corpus_dir / pdf) as doc:
            layer = [page.get_text() for page in doc]
        rows = store.db.open_table("pages").search().where(f"doc_id = '{result.doc_id}'").limit(None).to_list()
        assert sorted(r["page"] for r in rows) == [n for n, text in enumerate(layer, 1) if text.strip()]
        parents = store.parents_of(result.doc_id)
        for row in rows:  # each page row names exactly the parents that lie on it
            assert row["parent_ids"] == [p.id for p in parents if row["page"] in p.pages]
    # a passage from the middle of the text layer of page 3 of the French guide finds that page first
    with pymupdf.open(corpus_dir / SMALL_FR) as doc:
        text = doc[2].get_text()
    passage = text[len(text) // 3 : len(text) // 3 + 300]
    hits = store.page_lexical(passage, "fr", store.document_ids(), 5)
    assert (hits[0].doc_id, hits[0].page) == (results[1].doc_id, 3), passage


def test_a_page_without_text_layer_takes_its_childrens_text(tmp_path: Path, corpus_dir: Path) -> None:
    from rag_core.models import Child

    child = Child(
        id="d:c0",
        parent_id="d:p0",
        doc_id="d",
        index=0,
        text="texte lu par OCR",
        context_text="x",
        start=0,
        end=5,
        tokens=3,
        pages=[2],
        boxes=[],
    )
    blank = tmp_path / "blank.pdf"
    with pymupdf.open() as doc:
        doc.new_page().insert_text((72, 72), "Page one has a text layer")
        doc.new_page()
        doc.save(blank)
    texts = searchable_page_texts(blank, "pdf", [child])
    assert texts[0].startswith("Page one has a text layer") and texts[1] == "texte lu par OCR"
    assert searchable_page_texts(blank, "md", [child]) == ["", "texte lu par OCR"]


def test_drop_all_drops_the_pages_too(library) -> None:
    store, settings = library
    assert store.page_lexical("glossary", "en", list(DOCS), 5)
    store.drop_all()  # what `reindex` does before writing every document again
    assert "pages" not in store._names()
    assert store.page_lexical("glossary", "en", list(DOCS), 5) == []
    assert store.dense(select_embedder(settings).embed_query("glossary"), list(DOCS), 5) == []
