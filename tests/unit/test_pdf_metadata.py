"""The author and the date shown in the Library come from the PDF's metadata only when they mean
something: read from the corpus PDFs' own metadata and first pages."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from rag_core.parsing.metadata import document_author, document_date


def _author_and_date(path: Path) -> tuple[str, str]:
    with pymupdf.open(path) as pdf:
        first_pages = "\n".join(pdf[p].get_text() for p in range(min(2, pdf.page_count)))
        return document_author(pdf.metadata.get("author"), first_pages), document_date(pdf.metadata)


@pytest.mark.parametrize(
    ("name", "author"),
    [
        ("en_ChainLadder_claims_reserving_with_R_vignette.pdf", "Markus Gesmann"),  # printed under its title
        # a label ("Etudiants:") and the empty names of a list left out
        (
            "fr_rapport_provisionnement_non_vie_triangles_cadences.pdf",
            "Achour Salma, Bel Hadj Slimen Nada, Faydi Mariem, Smari Mariem",
        ),
        ("en_Mack2008_prediction_error_Bornhuetter_Ferguson.pdf", ""),  # 'esmith', a login
        ("en_EIOPA_guidelines_valuation_technical_provisions.pdf", ""),  # who saved the file, named nowhere in it
        ("en_CAS_tail_factor_working_party_2013.pdf", ""),  # a template's author
        ("fr_rapport_provisionnement_non_vie_ChainLadder_Mack_Bootstrap.pdf", ""),  # 'Author', a placeholder
    ],
)
def test_the_metadata_author_is_kept_only_when_the_document_names_it(corpus_dir: Path, name: str, author: str) -> None:
    assert _author_and_date(corpus_dir / name)[0] == author


def test_the_date_is_the_creation_date_of_the_metadata(corpus_dir: Path) -> None:
    assert _author_and_date(corpus_dir / "en_Mack2008_prediction_error_Bornhuetter_Ferguson.pdf")[1] == "2008-09-03"


@pytest.mark.parametrize(
    ("author", "printed", "expected"),
    [
        ("Microsoft Word", "Microsoft Word", ""),  # a tool's name, even printed
        ("LaTeX with hyperref", "LaTeX with hyperref", ""),
        ("user", "user", ""),
        ("Jane Roe and John Doe", "by John Doe and Jane Roe", "Jane Roe, John Doe"),
        ("Jane Roe", "nothing about her", ""),
    ],
)
def test_placeholders_tools_and_names_not_printed_are_no_author(author: str, printed: str, expected: str) -> None:
    assert document_author(author, printed) == expected


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"creationDate": "D:20131021155453-04'00'"}, "2013-10-21"),
        ({"creationDate": "", "modDate": "D:201507"}, "2015-07"),
        ({"creationDate": "D:19700101000000Z"}, ""),  # an unset clock, not a date
        ({"creationDate": "D:20231399"}, ""),  # no 13th month
        ({"creationDate": "garbage"}, ""),
        ({}, ""),
    ],
)
def test_dates_that_read_as_dates(metadata: dict, expected: str) -> None:
    assert document_date(metadata) == expected
