"""Boilerplate left out of the page channel (`retrieval.drop_repeated_page_lines`, off by default): a line
written on several pages of a document (running header, disclaimer, a contents page's entries) no
longer scores those pages under BM25 over pages.

A three-page filing-style PDF written here is ingested by the real offline pipeline into LanceDB in
a temporary folder; the corpus's CAS report gives a real running header and contents page.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import RetrievalSettings, Settings
from rag_core.errors import AccessDenied
from rag_core.parsing.pagetext import page_texts, searchable_page_texts
from rag_core.services.connection import open_store
from rag_core.storage import document_folder
from rag_core.text import fold

LOCAL = Principal.local_operator()
HEADER = "Example Mutual Insurance Group annual report"
DISCLAIMER = "Forward-looking statements involve known and unknown risks and uncertainties"
PAGES = [
    ["Contents", "Claims reserving methods ........ 2", "Reinsurance programme ........ 3"],
    ["Claims reserving methods", "The chain ladder projects cumulative paid triangles to ultimate."],
    ["Reinsurance programme", "An excess of loss treaty caps each catastrophe retention at ten million."],
]
CAS = "en_CAS_tail_factor_working_party_2013.pdf"


def _write_pdf(path: Path) -> Path:
    with pymupdf.open() as doc:
        for lines in PAGES:
            page = doc.new_page()
            for i, line in enumerate([HEADER, *lines, DISCLAIMER]):
                page.insert_text((72, 72 + 24 * i), line, fontsize=11)
        doc.save(path)
    return path


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, str]:
    root = tmp_path_factory.mktemp("boilerplate")
    settings = Settings(data_dir=root / "data", retrieval=RetrievalSettings(drop_repeated_page_lines=True))
    (result,) = pipeline.ingest([_write_pdf(root / "report.pdf")], settings, principal=LOCAL)
    assert result.status == "ingested" and result.doc_id, result.message
    return settings, result.doc_id


def _page_hits(settings: Settings, query: str, doc_id: str) -> list[int]:
    return [h.page for h in open_store(settings).page_lexical(query, "en", [doc_id], 5)]


def test_repeated_header_and_disclaimer_match_no_page(library) -> None:
    settings, doc_id = library
    assert _page_hits(settings, DISCLAIMER, doc_id) == []
    assert _page_hits(settings, HEADER, doc_id) == []


def test_a_pages_own_text_still_finds_it(library) -> None:
    settings, doc_id = library
    assert _page_hits(settings, "excess of loss treaty catastrophe retention", doc_id)[0] == 3
    assert _page_hits(settings, "chain ladder cumulative paid triangles", doc_id)[0] == 2


def test_a_contents_page_does_not_outrank_the_section_it_lists(library) -> None:
    settings, doc_id = library
    # the contents entry repeats the heading of page 3: neither counts, page 3's own words do
    assert _page_hits(settings, "reinsurance programme treaty", doc_id) == [3]


def test_reindex_pages_rewrites_a_library_written_before_the_rule(library) -> None:
    settings, doc_id = library
    store = open_store(settings)
    record = next(r for r in store.documents() if r.doc_id == doc_id)
    folder = document_folder(settings, doc_id)
    parents = store.parents_of(doc_id)
    store.replace_pages(record, parents, page_texts(folder.source()))  # the page text as written before
    store.optimize()
    assert _page_hits(settings, DISCLAIMER, doc_id)  # the boilerplate matched every page
    with pytest.raises(AccessDenied):
        pipeline.reindex_pages(settings, principal=Principal(user="reader", groups=frozenset()))
    assert pipeline.reindex_pages(settings, principal=LOCAL) == 1
    assert _page_hits(settings, DISCLAIMER, doc_id) == []
    assert _page_hits(settings, "excess of loss treaty", doc_id)[0] == 3


def test_the_command_line_rewrites_the_page_channel_only(library) -> None:
    settings, doc_id = library
    store = open_store(settings)
    record = next(r for r in store.documents() if r.doc_id == doc_id)
    folder = document_folder(settings, doc_id)
    store.replace_pages(record, store.parents_of(doc_id), page_texts(folder.source()))
    store.optimize()
    children = store.count_children()
    done = subprocess.run(
        [sys.executable, "-m", "rag_core", "reindex", "--pages-only", "--data-dir", str(settings.data_dir)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "RAG_RETRIEVAL__DROP_REPEATED_PAGE_LINES": "true"},
    )
    assert done.returncode == 0, done.stderr
    assert "page channel rewritten for 1 documents" in done.stdout
    assert _page_hits(settings, DISCLAIMER, doc_id) == []
    assert open_store(settings).count_children() == children  # nothing else was rewritten


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", fold(text))


def test_a_real_reports_running_header_and_contents_leave_its_pages(corpus_dir: Path) -> None:
    raw = page_texts(corpus_dir / CAS)
    kept = searchable_page_texts(corpus_dir / CAS, "pdf", [], drop_repeated_lines=True)
    assert searchable_page_texts(corpus_dir / CAS, "pdf", []) == raw  # off by default: the text layer as it is
    header = "the estimation of loss development tail factors a summary report"
    with_header = [i for i, text in enumerate(raw) if header in " ".join(_words(text))]
    assert len(with_header) > len(raw) // 2  # a running header on most pages of the text layer
    assert header in " ".join(_words(kept[0]))  # the cover writes the title over two lines of its own
    assert not any(header in " ".join(_words(text)) for text in kept[1:])
    contents = next(i for i, text in enumerate(raw) if "table of contents" in fold(text))
    assert len(_words(kept[contents])) < len(_words(raw[contents])) / 4  # its entries are the headings
    # the body of the report stays: most words of the text layer are kept
    assert sum(len(_words(t)) for t in kept) > 0.8 * sum(len(_words(t)) for t in raw)
