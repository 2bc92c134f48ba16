"""Refuse only what the library truly lacks: periods in any written form, abbreviations through the
thesaurus, page furniture and locators never a reason, and a refusal that names what is missing.

Three real PDFs are ingested once for the module by the real offline pipeline (parsing, chunking,
embedding, LanceDB): two pages cut out of the CAS tail-factor report (its running header, "Casualty
Actuarial Society E-Forum, Fall 2013" and the page number, is page furniture), the page of Mack's
Bornhuetter-Ferguson paper that compares the example's CL and BF reserves by year, and a short annual
report written here with PyMuPDF, since no corpus PDF is a financial filing: it writes its periods
as filings do ("fiscal 2023", "fourth quarter of fiscal 2023", a year split across two calendar years
"2016-17") and "cost of sales", never "FY2023", "Q4" or "COGS". The questions are written for these tests.
The same three documents show that an answer drawing on several documents never runs their passages
together as one paragraph.
"""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.models import Answer
from tests.answer_pdfs import headed_pages

LOCAL = Principal.local_operator()
CAS = "en_CAS_tail_factor_working_party_2013.pdf"
MACK = "en_Mack2008_prediction_error_Bornhuetter_Ferguson.pdf"
FILING = "northwind_annual_report.pdf"

FILING_PAGES = [
    [
        "Item 7. Management's Discussion and Analysis",
        "Results of Operations",
        "Northwind Outfitters sells outdoor equipment through 212 stores and online. Net sales for fiscal 2023 "
        "were $4,812 million, a decrease of 3.1% from fiscal 2022, as customers bought fewer tents and "
        "camping stoves after two years of strong demand.",
        "Cost of sales was $3,467 million in fiscal 2023 compared with $3,502 million in fiscal 2022. "
        "The gross profit rate improved by 40 basis points because freight costs fell.",
        "In the fourth quarter of fiscal 2023, comparable store sales declined 5.4%, driven by lower "
        "traffic in the northern region and a warm winter that reduced demand for heaters.",
    ],
    [
        "Liquidity and Capital Resources",
        "Cash provided by operating activities was $392 million in fiscal 2023. Capital expenditures were "
        "$118 million, mostly for store remodels and a new distribution centre in Ohio.",
        "Selling, general and administrative expenses were $1,021 million, or 21.2% of net sales, "
        "reflecting higher incentive compensation and advertising.",
        "The board declared a quarterly dividend of $0.23 per share and repurchased 1.4 million shares.",
    ],
    [
        "Five-Year Summary",
        "Northwind's fiscal year ends on 31 March. In 2016-17 the stores sold goods worth $4,206 million and "
        "the dividend per share was $0.81.",
    ],
]


def _filing(path: Path) -> Path:
    """The annual report: one heading and its paragraphs per page (Helvetica, A4)."""
    return headed_pages(path, FILING_PAGES)


@pytest.fixture(scope="module")
def library(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    root = tmp_path_factory.mktemp("refusal_terms")
    with pymupdf.open(corpus_dir / CAS) as doc:
        doc.select([59, 60])  # PDF pages 60-61: the static mortality method
        doc.save(root / CAS)
    with pymupdf.open(corpus_dir / MACK) as doc:
        doc.select([16])  # PDF page 17: the CL and BF reserves of the example's years 2003 and 2004
        doc.save(root / MACK)
    files = [root / CAS, _filing(root / FILING), root / MACK]
    settings = Settings(data_dir=root / "data")
    results = pipeline.ingest(files, settings, principal=LOCAL)
    assert all(r.status == "ingested" for r in results), [r.message for r in results]
    return settings, {r.file_name: r.doc_id for r in results if r.doc_id}


def ask(library: tuple[Settings, dict[str, str]], question: str, only: str) -> Answer:
    settings, ids = library
    return pipeline.ask(question, settings, doc_ids=[ids[only]], principal=LOCAL)


def _cites(answer: Answer, words: str) -> bool:
    texts = [s.text for s in (*answer.sources, *answer.uncited)]
    return any(words in " ".join(t.split()) for t in texts)


def _sentence(start: str) -> str:
    """The filing's whole sentence that starts with `start`, as the PDF above writes it."""
    text = " ".join(p for page in FILING_PAGES for p in page)
    return next(
        m.group() for m in re.finditer(r"[A-Z][^.]*?(?:\.\d[^.]*?)*\.(?=\s|$)", text) if m.group().startswith(start)
    )


def _lead(answer: Answer) -> str:
    """The answer's first paragraph, one line (the filing's sentences are wrapped on the page)."""
    return " ".join(answer.paragraphs[0].text.split()) if answer.paragraphs else ""


def test_a_fiscal_year_asked_as_fy_is_found_where_the_filing_writes_fiscal(library) -> None:
    answer = ask(library, "What were Northwind's net sales in FY2023?", FILING)
    assert answer.mode != "refused", answer.missing_information
    assert answer.missing_terms == []
    assert _sentence("Net sales for fiscal 2023") in _lead(answer)  # the sentence that answers leads


def test_a_quarter_asked_as_q4_is_found_where_the_filing_writes_fourth_quarter(library) -> None:
    answer = ask(library, "How much did comparable store sales decline in Q4 FY23?", FILING)
    assert answer.mode != "refused", answer.missing_information
    assert answer.missing_terms == []
    assert _sentence("In the fourth quarter of fiscal 2023") in _lead(answer)


def test_an_abbreviation_is_found_through_the_thesaurus(library) -> None:
    answer = ask(library, "What was Northwind's COGS in fiscal 2023?", FILING)  # the filing says "cost of sales"
    assert answer.mode != "refused", answer.missing_information
    assert _sentence("Cost of sales") in _lead(answer)
    answer = ask(library, "How large were the SG&A expenses as a share of sales?", FILING)
    assert answer.mode != "refused", answer.missing_information
    assert _sentence("Selling, general and administrative") in _lead(answer)


def test_a_period_the_library_lacks_is_refused_by_name_with_the_closest_passages(library) -> None:
    answer = ask(library, "What were Northwind's net sales in FY2019?", FILING)
    assert answer.mode == "refused"
    assert answer.missing_terms == ["FY2019"]
    assert answer.missing_information == "None of the documents you can access mentions 'FY2019'."
    assert answer.paragraphs == [] and _cites(answer, "Net sales for fiscal 2023")  # still the closest passages


def test_page_furniture_and_a_page_locator_never_refuse(library) -> None:
    question = (
        "Casualty Actuarial Society E-Forum, Fall 2013, Page 60: how does the static mortality method "
        "estimate incremental payments?"
    )
    answer = ask(library, question, CAS)
    assert answer.mode != "refused", answer.missing_information
    assert answer.missing_terms == []
    assert _cites(answer, "static mortality method")


def test_a_misspelt_name_is_read_as_the_passages_word_and_said_so(library) -> None:
    answer = ask(library, "Is the static mortality method adapted from the structural methods of Fischer?", CAS)
    assert answer.mode != "refused", answer.missing_information
    assert answer.missing_terms == []
    assert "Read 'Fischer' as 'Fisher'" in answer.missing_information


def test_a_shouted_misspelt_word_is_read_as_the_passages_word(library) -> None:
    answer = ask(library, "What were Northwind's NET SALSE in fiscal 2023?", FILING)
    assert answer.mode != "refused", answer.missing_information
    assert "Read 'SALSE' as 'sales'" in answer.missing_information
    assert _cites(answer, "Net sales for fiscal 2023")


def test_a_real_gap_with_no_near_word_in_the_passages_is_still_refused(library) -> None:
    answer = ask(library, "Is the static mortality method adapted from the structural methods of Kaplan?", CAS)
    assert answer.mode == "refused"
    assert answer.missing_terms == ["Kaplan"]


def test_a_year_the_passage_writes_is_answered_and_a_year_the_document_never_writes_is_refused(library) -> None:
    held = ask(library, "How does the CL reserve compare with the BF reserve in 2004?", MACK)
    assert held.mode != "refused", held.missing_information
    assert _cites(held, "in 2004 the CL reserve is")
    absent = ask(library, "How does the CL reserve compare with the BF reserve in 2005?", MACK)
    assert absent.mode == "refused"
    assert absent.missing_terms == ["2005"]
    assert absent.missing_information == "None of the documents you can access mentions '2005'."


def test_constraints_the_document_holds_only_in_different_passages_are_refused_naming_them(library) -> None:
    answer = ask(library, "Which distribution centre did the company open in Ohio in 2022?", FILING)
    assert answer.mode == "refused"  # Ohio is written with the capital expenditures, 2022 with net sales
    assert set(answer.missing_terms) <= {"Ohio", "2022"} and len(answer.missing_terms) == 1
    assert "'Ohio'" in answer.missing_information and "'2022'" in answer.missing_information
    assert "together with" in answer.missing_information
    assert _cites(answer, "distribution centre in Ohio")  # the closest passages are still listed
    together = ask(library, "What was the cost of sales in 2022?", FILING)
    assert together.mode != "refused", together.missing_information


def test_passages_of_different_documents_are_never_run_together_as_one_paragraph(library) -> None:
    settings, _ = library
    # asked of the whole library: the CAS pages and Mack's page both write about estimating claims reserves
    answer = pipeline.ask("How are the reserves for outstanding claims estimated?", settings, principal=LOCAL)
    assert answer.mode == "extractive"
    sources = {s.id: s for s in answer.sources}
    documents = [{sources[i].doc_id for i in p.source_ids} for p in answer.paragraphs]
    assert len(set().union(*documents)) >= 2, documents  # the answer draws on two documents ...
    for paragraph, docs in zip(answer.paragraphs, documents, strict=True):
        assert len(docs) == 1, paragraph.text  # ... each paragraph on one of them
        quoted = sources[paragraph.source_ids[0]]  # and quotes that document's own text
        assert " ".join(paragraph.quote.split()) in " ".join(quoted.text.split()), paragraph.quote


def test_a_year_is_found_where_the_filing_writes_the_split_fiscal_year_that_ends_in_it(library) -> None:
    answer = ask(library, "What was the dividend per share in 2017?", FILING)
    assert answer.mode != "refused", answer.missing_information
    assert _cites(answer, "In 2016-17 the stores sold goods")
    absent = ask(library, "What was the dividend per share in 2014?", FILING)
    assert absent.mode == "refused" and absent.missing_terms == ["2014"]


@pytest.mark.parametrize(
    "question",
    [
        "What were Northwind's net sales in fiscal 2023? Please write the answer in XBRL format.",
        "WHAT WERE THE NET SALES IN FISCAL 2023 ACCORDING TO THE FILING?",
        "In the Section Results of Operations, what were the net sales in fiscal 2023?",
        "What were the net sales of Northwind Outfitters Company in fiscal 2023?",
        "What were the net sales in fiscal 2023? Write the year's end as YYYY-MM-DD",
    ],
    ids=["answer format", "shouted", "reference word", "head of a long name", "date placeholder"],
)
def test_the_question_s_scaffolding_never_refuses(library, question: str) -> None:
    answer = ask(library, question, FILING)
    assert answer.mode != "refused", answer.missing_information
    assert _cites(answer, "Net sales for fiscal 2023")


def test_a_name_the_filing_never_writes_is_still_refused_by_name_with_the_closest_passages(library) -> None:
    refused = ask(library, "What were the net sales of Northwind's Kaplan division in fiscal 2023?", FILING)
    assert refused.mode == "refused" and refused.missing_terms == ["Kaplan"]
    assert _cites(refused, "Net sales for fiscal 2023")
