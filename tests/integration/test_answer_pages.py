"""The answering page first: a parent's best page before its other pages and before other parents' pages.

Four pages cut out of the CAS tail-factor report (PDF pages 59-62, its static mortality method) are
ingested by the real offline pipeline. Its section 6.2 is a parent that spans two pages; the
question is answered on the second, which the section's pages read in page order put second.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.retrieval import answer_pages, parent_pages
from rag_core.retrieval.pages import best_pages

LOCAL = Principal.local_operator()
CAS = "en_CAS_tail_factor_working_party_2013.pdf"
ANSWER = "After 20 periods of development"  # the sentence that answers the question below


@pytest.fixture(scope="module")
def library(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, str, int]:
    root = tmp_path_factory.mktemp("answer_pages")
    with pymupdf.open(corpus_dir / CAS) as doc:
        doc.select([58, 59, 60, 61])
        doc.save(root / CAS)
    with pymupdf.open(root / CAS) as doc:
        page = next(i + 1 for i, p in enumerate(doc) if ANSWER in " ".join(p.get_text().split()))
    settings = Settings(data_dir=root / "data")
    (result,) = pipeline.ingest([root / CAS], settings, principal=LOCAL)
    assert result.status == "ingested" and result.doc_id, result.message
    return settings, result.doc_id, page


def test_the_page_that_answers_comes_first_even_inside_a_long_parent(library) -> None:
    settings, doc_id, page = library
    question = (
        "After how many periods of development do newly reported claims and net claim closures become negligible?"
    )
    parents = pipeline.search(question, settings, principal=LOCAL).parents
    top = parents[0]
    assert len(top.parent.pages) > 1 and page in top.best_child.pages  # a parent over two pages, found by its passage
    assert answer_pages(parents)[0] == (doc_id, page)
    assert parent_pages(parents)[0] != (doc_id, page)  # read in page order, the section's first page came first


def test_every_parents_best_page_comes_before_any_other_page(library) -> None:
    settings, doc_id, _ = library
    parents = pipeline.search(
        "How is the static mortality method adapted to open claims?", settings, principal=LOCAL
    ).parents
    pages = answer_pages(parents)
    best = list(dict.fromkeys((hit.parent.doc_id, best_pages(hit)[0]) for hit in parents))
    assert pages[: len(best)] == best
    assert set(pages) == {(hit.parent.doc_id, p) for hit in parents for p in hit.parent.pages}  # nothing lost or added
