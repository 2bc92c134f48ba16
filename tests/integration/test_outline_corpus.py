"""Outline (bookmark) entries of every corpus PDF that has an outline, found as headings at their
page by the real parser: at least SHARE of each PDF's entries.

Rules that made entries go missing: numbered headings the layout read as bulleted list items
("• 4.3 Bornes de Fréchet", the ACT3000 aide-mémoire), headings the layout boxed in no block
(the ChainLadder vignette's "3.1.1 Plotting triangles"), a slide deck's section names printed
only in its navigation bar (the IARD and MCS slides), a watermark that stretched a plot's box
over the heading below it (the vignette). To stay cheap, a PDF is parsed on the pages its
entries point at (and the page after each) only, without OCR or table images, which read
pictures and do not change the text layer's headings (`tests/outline_support.py`).
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from docling_core.types.doc import DocItemLabel

from rag_core.config import Settings
from rag_core.parsing import parse
from tests.integration.test_parsing_golden import GOLDEN_DIR, _dump
from tests.outline_support import check_golden, cut_with_outline, missed_entries, outline_pages
from tests.parsing_support import with_parsing

SHARE = 0.95  # of a document's outline entries that must be headings at their page

WITH_OUTLINE = [
    "en_CAS_tail_factor_working_party_2013.pdf",
    "en_ChainLadder_claims_reserving_with_R_vignette.pdf",
    "en_actuar_coverage_modifications.pdf",
    "en_actuar_credibility_theory.pdf",
    "en_actuar_loss_distributions_modeling.pdf",
    "en_actuar_risk_theory.pdf",
    "fr_aide_memoire_ACT2008_credibilite_provisionnement.pdf",
    "fr_aide_memoire_ACT3000_theorie_du_risque.pdf",
    "fr_notes_ACT2005_mathematiques_actuarielles_IARD1.pdf",
    "fr_rapport_provisionnement_non_vie_ChainLadder_Mack_Bootstrap.pdf",
    "fr_rapport_provisionnement_non_vie_triangles_cadences.pdf",
    "fr_slides_MCS_chap2_modele_individuel.pdf",
    "fr_slides_MCS_chap3_modele_collectif.pdf",
    "fr_slides_provisionnement_IARD.pdf",
]


def test_every_corpus_pdf_with_an_outline_is_measured(corpus_dir: Path) -> None:
    having = []
    for path in sorted(corpus_dir.glob("*.pdf")):
        with pymupdf.open(path) as pdf:
            if pdf.get_toc(simple=True):
                having.append(path.name)
    assert having == WITH_OUTLINE


@pytest.fixture(scope="module")
def cut_parse(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """name -> (document, outline of the cut, {page of the cut: page of the PDF}), parsed once."""
    done: dict = {}

    def get(name: str):
        if name not in done:
            tmp = tmp_path_factory.mktemp(name[:20])
            pages = outline_pages(corpus_dir / name)
            toc = cut_with_outline(corpus_dir / name, pages, tmp / "cut.pdf")
            settings = with_parsing(Settings(data_dir=tmp / "data"), workers=1, ocr=False, table_images=False)
            document = parse(tmp / "cut.pdf", settings, tmp / "artifacts").document
            done[name] = (document, toc, {index + 1: page for index, page in enumerate(pages)})
        return done[name]

    return get


@pytest.mark.parametrize("name", WITH_OUTLINE)
def test_outline_entries_are_headings_at_their_page(name: str, cut_parse) -> None:
    document, toc, back = cut_parse(name)
    assert toc
    missed = missed_entries(document, toc)
    assert len(missed) <= (1 - SHARE) * len(toc), [(title, back[page]) for _, title, page in missed]


@pytest.mark.parametrize("name", WITH_OUTLINE)
def test_the_headings_and_table_headers_of_those_pages_match_their_golden_file(name: str, cut_parse) -> None:
    """Every heading (page of the PDF, level, text) and table header of the pages parsed, against
    `tests/data/golden/outline_<stem>.json`: a change of structure is a readable diff."""
    document, _, back = cut_parse(name)
    headings = [
        {"page": back[item.prov[0].page_no], "level": getattr(item, "level", 0), "text": item.text}
        for item, _ in document.iterate_items()
        if getattr(item, "label", None) in (DocItemLabel.SECTION_HEADER, DocItemLabel.TITLE)
    ]
    tables = [
        {"page": back[table.prov[0].page_no], "header": [cell.text for cell in table.data.grid[0]]}
        for table in document.tables
        if table.label == DocItemLabel.TABLE and table.data.grid
    ]
    actual = _dump({"pages": sorted(set(back.values())), "headings": headings, "tables": tables})
    check_golden(GOLDEN_DIR / f"outline_{Path(name).stem}.json", actual, f"the structure of {name}")


def test_a_heading_found_in_the_text_layer_is_placed_before_the_text_below_it(
    corpus_dir: Path, tmp_path: Path, settings: Settings
) -> None:
    """The vignette's "3.1.1 Plotting triangles", boxed by no layout block, comes after the text
    above it and before the paragraph it opens; its section holds that paragraph."""
    name = "en_ChainLadder_claims_reserving_with_R_vignette.pdf"
    cut_with_outline(corpus_dir / name, [7], tmp_path / "cut.pdf")
    document = parse(tmp_path / "cut.pdf", with_parsing(settings, workers=1), tmp_path / "artifacts").document
    texts = [(item.label, item.text) for item, _ in document.iterate_items() if hasattr(item, "text") and item.text]
    at = next(i for i, (label, text) in enumerate(texts) if "Plotting triangles" in text)
    assert texts[at][0] == DocItemLabel.SECTION_HEADER
    after = " ".join(text for _, text in texts[at + 1 : at + 3])
    assert "plot the data" in after  # the paragraph under the heading, on the page
