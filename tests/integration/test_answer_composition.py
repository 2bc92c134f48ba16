"""Extractive answers composed from evidence: a slide's list announced without a colon comes with its
items, and a passage of another document that only shares the question's topic is left out.

Real pages of corpus PDFs are cut out and ingested by the real offline pipeline into a temporary
library; the expectations are read from the parsed documents (the lines that follow the announcing
sentence), never written here; the questions are worded for these tests.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.answering.evidence import split_sentences
from rag_core.config import Settings

LOCAL = Principal.local_operator()
SLIDES = ("fr_slides_MCS_chap2_modele_individuel.pdf", [2])
GUIDELINES = ("en_EIOPA_guidelines_valuation_technical_provisions.pdf", [27, 28])
TAIL = ("en_CAS_tail_factor_working_party_2013.pdf", [66, 67])


def _cut(corpus_dir: Path, root: Path, name: str, pages: list[int]) -> Path:
    with pymupdf.open(corpus_dir / name) as doc:
        doc.select([p - 1 for p in pages])
        doc.save(root / name)
    return root / name


def _library(corpus_dir: Path, root: Path, *parts: tuple[str, list[int]]) -> tuple[Settings, dict[str, list[str]]]:
    settings = Settings(data_dir=root / "data")
    results = pipeline.ingest([_cut(corpus_dir, root, n, p) for n, p in parts], settings, principal=LOCAL)
    lines = {}
    for (name, _), result in zip(parts, results):
        assert result.status == "ingested", result.message
        chunks = pipeline.load_chunks(result.doc_id, settings, principal=LOCAL)
        lines[name] = [line.strip() for child in chunks.children for line in child.text.splitlines() if line.strip()]
    return settings, lines


@pytest.fixture(scope="module")
def slides(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, list[str]]]:
    return _library(corpus_dir, tmp_path_factory.mktemp("composition_slides"), SLIDES)


@pytest.fixture(scope="module")
def two_documents(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, list[str]]]:
    return _library(corpus_dir, tmp_path_factory.mktemp("composition_two"), GUIDELINES, TAIL)


def test_a_slide_announcing_a_list_without_a_colon_is_answered_with_its_items(slides) -> None:
    settings, lines = slides
    doc = lines[SLIDES[0]]
    # the slide's announcing line: it ends without final punctuation right above its "- 1 ..." items
    announcing = [
        i
        for i, line in enumerate(doc[:-1])
        if line[-1] not in ".!?:;" and not line.startswith("- ") and doc[i + 1].startswith("- ")
    ]
    assert announcing, doc  # the parse holds one (the test's premise)
    a = pipeline.ask("Quels problèmes pose le modèle individuel en pratique ?", settings, principal=LOCAL)
    assert a.mode == "extractive"
    for i in announcing:
        items = []
        for line in doc[i + 1 :]:
            if not line.startswith("- "):
                break
            items.append(line)
        assert len(items) >= 2
        announcer = split_sentences(doc[i])[-1]
        quoting = [p.text.splitlines() for p in a.paragraphs if announcer in p.text]
        assert quoting, [p.text for p in a.paragraphs]  # the announcing sentence is quoted ...
        for text in quoting:
            k = next((n for n, line in enumerate(text) if line.endswith(announcer)), None)
            assert k is not None, text  # ... ending its line ...
            assert text[k + 1 :] == items  # ... followed by every item of its list, nothing else


def test_a_passage_of_another_document_that_only_shares_the_topic_is_left_out(two_documents) -> None:
    settings, _ = two_documents
    question = "Which two ways of estimating the provision for outstanding reported claims are possible?"
    a = pipeline.ask(question, settings, principal=LOCAL)
    assert a.mode == "extractive"
    files = {s.id: s.file_name for s in a.sources}
    cited = [files[p.source_ids[0]] for p in a.paragraphs]
    assert cited[0] == GUIDELINES[0], cited  # the guideline that answers leads
    # the tail-factor pages speak of outstanding claims and their estimates (the topic) but not of the
    # methods asked for: once the guideline is quoted, they add no evidence
    assert TAIL[0] not in cited, [p.text for p in a.paragraphs]
