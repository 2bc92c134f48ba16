"""The page channel scores pages as the untuned bm25s baseline does: on real corpus pages, the same
scores as bm25s itself, and through a real LanceDB library the same ranking."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag_core import pipeline, retrieval
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.embedding import select_embedder
from rag_core.evaluation.bm25_pages import PageIndex
from rag_core.parsing.pagetext import page_texts
from rag_core.retrieval.page_bm25 import PageBM25, analyse
from rag_core.services.connection import open_store
from rag_core.text import fold

LOCAL = Principal.local_operator()
EN_PDF = "en_actuar_risk_theory.pdf"
COVERAGE_PDF = "en_actuar_coverage_modifications.pdf"
FR_PDF = "fr_aide_memoire_ACT3000_theorie_du_risque.pdf"


def _pages(corpus_dir: Path) -> list[tuple[str, int, str, str]]:
    """(pdf, page, folded text, language) of two real corpus PDFs, as the pages table stores them."""
    out = []
    for pdf, language in ((EN_PDF, "en"), (FR_PDF, "fr")):
        for number, text in enumerate(page_texts(corpus_dir / pdf), start=1):
            out.append((pdf, number, fold(text), language))
    return out


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("aggregate claim amount distribution and the Panjer recursion", "en"),
        ("fonction de répartition bivariée et copules", "fr"),
        ("the adjustment coefficient of the surplus process", "en"),
    ],
)
def test_page_scores_equal_bm25s_over_the_same_pages(corpus_dir: Path, question: str, language: str) -> None:
    pages = _pages(corpus_dir)
    ours = PageBM25.build([(pdf, n, (), text, lang) for pdf, n, text, lang in pages])
    baseline = PageIndex([(pdf, n) for pdf, n, _, _ in pages], [t for *_, t, _ in pages], [lang for *_, lang in pages])
    terms = [t for t in dict.fromkeys(analyse(fold(question), language)) if t in baseline.vocab]
    assert len(terms) >= 2  # the question's words are on these pages
    expected = np.asarray(baseline.retriever.get_scores(terms), dtype=float)
    got = ours.scores(terms)
    assert np.count_nonzero(expected) > 3
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)  # bm25s computes in float32
    hits = ours.search(question, language, [EN_PDF, FR_PDF], k=10)
    # the stored text is folded, so the question is folded before either analyses it
    assert [(h.doc_id, h.page) for h in hits] == baseline.search(fold(question), language, k=10)


def test_scope_and_extra_terms(corpus_dir: Path) -> None:
    pages = _pages(corpus_dir)
    index = PageBM25.build([(pdf, n, (f"{pdf}:{n}",), text, lang) for pdf, n, text, lang in pages])
    question = "fonction de répartition"
    only_fr = index.search(question, "fr", [FR_PDF], k=50)
    assert only_fr and {h.doc_id for h in only_fr} == {FR_PDF}
    assert index.search(question, "fr", [], k=50) == []
    assert all(h.parent_ids == (f"{h.doc_id}:{h.page}",) for h in only_fr)
    # an extra term adds its own BM25 times its weight to the pages that hold it
    plain = {(h.doc_id, h.page): h.score for h in index.search("copules", "fr", [FR_PDF], k=100)}
    expanded = {(h.doc_id, h.page): h.score for h in index.search("copules", "fr", [FR_PDF], 100, [("Fréchet", 0.5)])}
    frechet = {(h.doc_id, h.page): h.score for h in index.search("Fréchet", "fr", [FR_PDF], k=100)}
    assert frechet and set(frechet) - set(plain)  # the word is in the document, on a page without the other
    assert set(expanded) == set(plain) | set(frechet)
    for key, score in expanded.items():
        assert score == pytest.approx(plain.get(key, 0.0) + 0.5 * frechet.get(key, 0.0))


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, corpus_dir: Path) -> Settings:
    """Two real corpus PDFs, one per language, ingested by the real pipeline into LanceDB."""
    settings = Settings(data_dir=tmp_path_factory.mktemp("page-bm25") / "data")
    for result in pipeline.ingest([corpus_dir / COVERAGE_PDF, corpus_dir / FR_PDF], settings, principal=LOCAL):
        assert result.status == "ingested", result.message
    return settings


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("ordinary deductible per payment variable", "en"),
        # a French page is analysed in French, as bm25s does: its "distribution" is not the English stem
        # (LanceDB analysed every page with the question's analyser and ranked two French pages here)
        ("the distribution of the amount paid per loss", "en"),
        ("franchise deductible density", "en"),
        ("copules et bornes de Fréchet", "fr"),
    ],
)
def test_the_page_channel_ranks_the_library_as_bm25s_over_its_pages(
    library: Settings, question: str, language: str
) -> None:
    store = open_store(library)
    scope = store.document_ids()
    rows = store.page_rows()
    languages = {r.doc_id: r.language for r in store.documents()}
    baseline = PageIndex([(d, p) for d, p, _, _ in rows], [t for *_, t in rows], [languages[d] for d, *_ in rows])
    expected = baseline.search(fold(question), language, k=10)
    assert len(expected) >= 3
    vector = select_embedder(library).embed_query(question)
    candidates = retrieval.run_channels(question, vector, store, scope, 10, language, pages=True)
    assert [(h.doc_id, h.page) for h in candidates.pages("page")] == expected


def test_a_page_channel_that_scores_on_its_own_sends_no_page_query_to_lancedb(
    library: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(library)
    sent: list[str] = []
    full_text = store.full_text

    def spy(requests, scope):
        sent.extend(r.table for r in requests)
        return full_text(requests, scope)

    monkeypatch.setattr(store, "full_text", spy)
    vector = select_embedder(library).embed_query("ordinary deductible per payment variable")
    candidates = retrieval.run_channels(
        "ordinary deductible per payment variable", vector, store, store.document_ids(), 10, "en", pages=True
    )
    assert candidates.pages("page")  # the channel ran, on its own index
    assert sent and "pages" not in sent  # the lexical channel still asked LanceDB; the page channel did not
