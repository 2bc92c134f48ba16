"""Outline (bookmark) entries of corpus PDFs found as headings at their page, by the real parser.

Each case is a rule that made entries go missing: numbered headings the layout read as bulleted
list items ("• 4.3 Bornes de Fréchet", the ACT3000 aide-mémoire), headings the layout boxed in no
block (the ChainLadder vignette's "3.1.1 Plotting triangles"), and a slide deck's section names
printed only in its navigation bar (the IARD and MCS slides). To stay cheap, a case parses only
the pages its entries point at: the pages are cut out with PyMuPDF and given the PDF's own
outline entries for them, their page numbers mapped onto the cut (their text is the PDF's).
"""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest
from docling_core.types.doc import DocItemLabel

from rag_core.config import Settings
from rag_core.parsing import parse
from tests.parsing_support import with_parsing

_KEY = re.compile(r"\w+")
SHARE = 0.95  # of a document's outline entries that must be headings at their page

# file -> the pages kept (None: the whole PDF)
CASES = {
    "fr_aide_memoire_ACT3000_theorie_du_risque.pdf": None,
    "en_ChainLadder_claims_reserving_with_R_vignette.pdf": [7],
    "fr_slides_provisionnement_IARD.pdf": [2, 9, 30],
    "fr_slides_MCS_chap3_modele_collectif.pdf": [25, 34],
}


def _key(text: str) -> str:
    return " ".join(_KEY.findall(text.lower()))


def _cut_with_outline(source: Path, pages: list[int] | None, target: Path) -> list[list]:
    """The PDF (or its `pages`) saved at `target` with its outline entries for those pages;
    returns that outline."""
    with pymupdf.open(source) as doc:
        toc = doc.get_toc(simple=True)
        if pages is None:
            doc.save(target)
            return toc
        new_page = {page: index + 1 for index, page in enumerate(pages)}
        kept, level = [], 0
        for entry_level, title, page in toc:
            if page in new_page:
                level = min(entry_level, level + 1)  # an outline never skips a level
                kept.append([level, title, new_page[page]])
        doc.select([p - 1 for p in pages])
        doc.set_toc(kept)
        doc.save(target)
        return kept


@pytest.mark.parametrize("name", list(CASES))
def test_outline_entries_are_headings_at_their_page(name: str, corpus_dir: Path, tmp_path: Path, settings) -> None:
    toc = _cut_with_outline(corpus_dir / name, CASES[name], tmp_path / "cut.pdf")
    assert toc
    document = parse(tmp_path / "cut.pdf", with_parsing(settings, workers=1), tmp_path / "artifacts").document
    heads = [
        (item.prov[0].page_no, _key(item.text))
        for item, _ in document.iterate_items()
        if getattr(item, "label", None) in (DocItemLabel.SECTION_HEADER, DocItemLabel.TITLE)
    ]
    missed = [e for e in toc if not any(p in (e[2], e[2] + 1) and _key(e[1]) in text for p, text in heads)]
    assert len(missed) <= (1 - SHARE) * len(toc), missed


def test_a_heading_found_in_the_text_layer_is_placed_before_the_text_below_it(
    corpus_dir: Path, tmp_path: Path, settings: Settings
) -> None:
    """The vignette's "3.1.1 Plotting triangles", boxed by no layout block, comes after the text
    above it and before the paragraph it opens; its section holds that paragraph."""
    name = "en_ChainLadder_claims_reserving_with_R_vignette.pdf"
    _cut_with_outline(corpus_dir / name, [7], tmp_path / "cut.pdf")
    document = parse(tmp_path / "cut.pdf", with_parsing(settings, workers=1), tmp_path / "artifacts").document
    texts = [(item.label, item.text) for item, _ in document.iterate_items() if hasattr(item, "text") and item.text]
    at = next(i for i, (label, text) in enumerate(texts) if "Plotting triangles" in text)
    assert texts[at][0] == DocItemLabel.SECTION_HEADER
    after = " ".join(text for _, text in texts[at + 1 : at + 3])
    assert "plot the data" in after  # the paragraph under the heading, on the page
