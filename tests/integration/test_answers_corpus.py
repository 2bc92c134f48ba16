"""Refusals by name, evidence sentences and table rows on real corpus pages.

A few pages are cut out of three corpus PDFs (English prose with R console output, an English
table of paid losses by accident year, French course notes) and ingested once for the module
by the real offline pipeline (parsing, chunking, embedding, LanceDB). The questions are written
for these tests, from passages no evaluation question uses.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.models import Answer
from tests.corpus_pages import ingest_pages

LOCAL = Principal.local_operator()  # the local operator (administrator): these tests are not about access

PAGES = {
    "en_actuar_credibility_theory.pdf": [1, 2],
    "en_Mack2008_prediction_error_Bornhuetter_Ferguson.pdf": [20],
    "fr_notes_ACT2005_mathematiques_actuarielles_IARD1.pdf": [7, 9],
}


@pytest.fixture(scope="module")
def library(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    settings, results = ingest_pages(corpus_dir, PAGES, tmp_path_factory.mktemp("answers_corpus"), LOCAL)
    return settings, {r.file_name: r.doc_id for r in results if r.doc_id}


def ask(library: tuple[Settings, dict[str, str]], question: str, only: str | None = None) -> Answer:
    settings, ids = library
    return pipeline.ask(question, settings, doc_ids=[ids[only]] if only else None, principal=LOCAL)


def test_an_english_question_about_an_absent_name_is_refused_by_name(library) -> None:
    a = ask(library, "How does the Esscher transform load the premium charged to each policyholder?")
    assert a.mode == "refused" and a.missing_terms == ["Esscher"]
    assert a.missing_information == "None of the documents you can access mentions 'Esscher'."
    assert a.paragraphs == [] and a.uncited  # the closest passages are listed, not offered as an answer


def test_a_french_question_about_an_absent_acronym_is_refused_by_name(library) -> None:
    a = ask(library, "Quel taux de CRDS s'applique aux rentes versées par l'assureur ?")
    assert a.mode == "refused" and a.missing_terms == ["CRDS"]
    assert a.missing_information == "Aucun des documents auxquels vous avez accès ne mentionne « CRDS »."


def test_a_paraphrased_question_is_answered_from_prose_not_console_output(library) -> None:
    a = ask(library, "In what shape is the Hachemeister data set stored, and what do its columns hold?")
    assert a.mode == "extractive" and a.missing_terms == []
    text = " ".join(p.text for p in a.paragraphs)
    assert "matrix with 5 rows and 25 columns" in text or "columns 2–13 contain the claim" in text
    assert "data(hachemeister)" not in text and not re.search(r"\[\d,\]", text)  # R console output is not an answer
    assert all(n.stated for p in a.paragraphs for n in p.numbers)


def test_a_french_question_about_an_english_document_is_not_refused(library) -> None:
    a = ask(
        library,
        "Quelle fonction du paquet actuar ajuste les modèles de crédibilité hiérarchiques ?",
        only="en_actuar_credibility_theory.pdf",
    )
    assert a.mode == "extractive" and a.missing_terms == []
    assert any("credibility" in p.text for p in a.paragraphs)


def test_a_question_naming_an_accident_year_gets_that_table_row(library) -> None:
    a = ask(library, "In the table of cumulative paid loss amounts, what was paid for accident year 1997?")
    table = next((p for p in a.paragraphs if p.table is not None), None)
    assert table is not None, [p.text for p in a.paragraphs]
    rows = table.table.rows
    assert [row[0].text.strip() for row in rows] == ["1997"]
    cells = [c.text.strip() for c in rows[0]]
    assert "57231" in cells and "67286" in cells  # the cumulative table first: the question names it
    assert all(c.box is not None for c in rows[0])
    assert table.status == "supported" and table.source_ids == [table.table.source_id]
    quoted = [n for n in table.numbers if n.status == "quoted" and n.location and n.location.kind == "cell"]
    assert quoted and all(n.location.row == rows[0][0].row for n in quoted)  # every figure traced to that row
