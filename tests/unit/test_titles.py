"""A document's title (`parsing.titles`): the metadata title when meaningful and printed on its
first pages, else the largest text of the first page (not a generic "Contributors"), else the
running header that names the document (read from real corpus PDFs' text layer), else the
fallback (the layout's title or the file name)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from rag_core.parsing.document_builder import Block
from rag_core.parsing.layout_text import Line
from rag_core.parsing.titles import document_title, running_title

COVER = "Master en Actuariat Provisionnement Non Vie Projet réalisé par des étudiants"


def _page(*lines: tuple[str, float], page: int = 1) -> list[Block]:
    return [
        Block("text", page, (0, 10.0 * i, 100, 10.0 * i + 9), lines=[Line(t, (0, 0, 1, 1), s)])
        for i, (t, s) in enumerate(lines)
    ]


BODY = [("A paragraph of body text that is long enough to be the body.", 10.0)] * 3


def test_the_metadata_title_printed_on_the_cover_wins() -> None:
    blocks = _page(("Master en Actuariat", 20.0), *BODY)
    assert document_title("Provisionnement Non Vie", COVER, blocks, "Rapport") == "Provisionnement Non Vie"


def test_a_word_processor_title_or_a_template_leftover_is_ignored() -> None:
    blocks = _page(("The Prediction Error of Bornhuetter-Ferguson", 16.0), ("Thomas Mack", 12.0), *BODY)
    text = "The Prediction Error of Bornhuetter-Ferguson Thomas Mack"
    expected = "The Prediction Error of Bornhuetter-Ferguson"
    assert document_title("Microsoft Word - Mack_FINAL REVISED 9-3-2008 .doc", text, blocks, "x") == expected
    assert document_title("Internet Electronic Journal of", text, blocks, "x") == expected  # not printed
    assert document_title("My title", text, blocks, "x") == expected


def test_a_generic_largest_heading_gives_way_to_the_next_size() -> None:
    blocks = _page(("CONTRIBUTEURS", 14.3), ("Aide-mémoire ACT-2008", 12.0), *BODY)
    assert document_title("", "", blocks, "fallback") == "Aide-mémoire ACT-2008"


def test_without_metadata_nor_larger_text_the_fallback_is_kept() -> None:
    assert document_title(None, "", _page(*BODY), "report_2024") == "report_2024"


def test_a_large_number_or_logo_on_the_cover_gives_way_to_the_title_below_it() -> None:
    blocks = _page(("1", 40.0), ("Mathématiques actuarielles IARD-1", 18.0), *BODY)
    assert document_title("", "", blocks, "fallback") == "Mathématiques actuarielles IARD-1"


def test_a_cover_whose_title_holds_most_of_its_characters_gives_that_title() -> None:
    blocks = _page(("Mathématiques actuarielles IARD-1", 20.7), ("ACT-2005", 20.7), ("Notes de cours", 20.7))
    blocks += _page(("Nicholas Langevin", 14.3), ("6 juin 2020", 14.3))
    expected = "Mathématiques actuarielles IARD-1 ACT-2005 Notes de cours"
    assert document_title("", "", blocks, "fr_notes_ACT2005") == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # an aide-mémoire: its name printed small at the top of every page, beside a link
        # ("Liste des contributeurs") on every page too
        (
            "fr_aide_memoire_ACT2008_credibilite_provisionnement.pdf",
            "Aide-mémoire pour Mathématiques actuarielles IARD II (ACT-2008)",
        ),
        ("fr_aide_memoire_ACT3000_theorie_du_risque.pdf", "Aide-mémoire pour Théorie du risque (ACT-3000)"),
        # a paper's title repeated at the top of its pages
        ("en_Mack2008_prediction_error_Bornhuetter_Ferguson.pdf", "The Prediction Error of Bornhuetter-Ferguson"),
        # slides: a navigation bar spelling the outline's entries on every page names no document
        ("fr_slides_MCS_chap3_modele_collectif.pdf", ""),
        ("fr_slides_provisionnement_IARD.pdf", ""),
        # guidelines with no running header
        ("en_EIOPA_guidelines_valuation_technical_provisions.pdf", ""),
    ],
)
def test_the_running_header_that_names_the_document(corpus_dir: Path, name: str, expected: str) -> None:
    with pymupdf.open(corpus_dir / name) as pdf:
        assert running_title(pdf, pdf.get_toc(simple=True)) == expected


def test_the_running_header_names_a_document_whose_first_page_has_no_title(corpus_dir: Path) -> None:
    """The first page is a list of contributors under "CONTRIBUTEURS" (a generic heading) in the
    body's size: no title of its own, so the running header is the title, not the first chapter."""
    blocks = _page(("CONTRIBUTEURS", 14.3), *BODY)
    with pymupdf.open(corpus_dir / "fr_aide_memoire_ACT2008_credibilite_provisionnement.pdf") as pdf:
        title = document_title("", "", blocks, "1 Introduction", lambda: running_title(pdf, pdf.get_toc()))
    assert title == "Aide-mémoire pour Mathématiques actuarielles IARD II (ACT-2008)"
    # a first page that has a title keeps it, and the running header is not even read
    blocks = _page(("Mathématiques actuarielles IARD-1", 18.0), *BODY)
    assert document_title("", "", blocks, "x", lambda: pytest.fail("read")) == "Mathématiques actuarielles IARD-1"
