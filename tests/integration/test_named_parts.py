"""Numbered parts named by the question, and quotes that never stop on an announcement, on real corpus pages.

Pages of two corpus PDFs are ingested once for the module by the real offline pipeline: EIOPA's guidelines
on technical provisions (pages 14-15, where Guidelines 37, 37A, 37B and 37C follow one another; pages 23-25,
Guideline 62's hierarchy of four methods, Methods 3 and 4 after asides and a page break) and a French
credibility memo (page 2, a formula set under the sentence that announces it). The questions are written
for these tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.answering.units import CUT_MARK
from rag_core.config import Settings
from rag_core.models import Answer
from tests.corpus_pages import ingest_pages

LOCAL = Principal.local_operator()
EIOPA = "en_EIOPA_guidelines_valuation_technical_provisions.pdf"
PAGES = {EIOPA: [14, 15, 23, 24, 25], "fr_aide_memoire_ACT2008_credibilite_provisionnement.pdf": [2]}


@pytest.fixture(scope="module")
def library(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingest_pages(corpus_dir, PAGES, tmp_path_factory.mktemp("named_parts"), LOCAL)[0]


def ask(settings: Settings, question: str) -> Answer:
    return pipeline.ask(question, settings, principal=LOCAL)


def _lead_section(a: Answer) -> str:
    by_id = {s.id: s for s in a.sources}
    return by_id[a.paragraphs[0].source_ids[0]].section


@pytest.mark.parametrize("question", ["Que dit la ligne directrice 37C ?", "What does Guideline 37C say?"])
def test_a_named_guideline_leads_the_answer_whatever_words_it_uses(library: Settings, question: str) -> None:
    """Paragraph 89 never repeats its heading's words; the question names the guideline, so it leads."""
    a = ask(library, question)
    assert a.mode == "extractive" and a.paragraphs
    assert "Guideline 37C" in _lead_section(a)
    assert "89." in a.paragraphs[0].text and "contractual options" in a.paragraphs[0].text


def test_the_search_places_the_named_part_first_and_says_so(library: Settings) -> None:
    result = pipeline.search("Que dit la ligne directrice 37C ?", library, principal=LOCAL)
    first = result.parents[0]
    assert first.named and "Guideline 37C" in first.parent.section
    assert not any(h.named for h in result.parents[1:] if "Guideline 37C" not in h.parent.section)


def test_a_label_is_read_whole(library: Settings) -> None:
    a = ask(library, "What does Guideline 37B say?")
    assert a.paragraphs and "Guideline 37B" in _lead_section(a)  # not 37C, its neighbour on the page


def test_a_hierarchy_of_methods_is_quoted_to_its_last_method(library: Settings) -> None:
    a = ask(
        library, "Which hierarchy of methods should undertakings use to project future Solvency Capital Requirements?"
    )
    lead = next(p.text for p in a.paragraphs if "following hierarchy" in p.text)
    for method in ("Method 1)", "Method 2)", "Method 3)", "Method 4)"):
        assert method in lead
    assert CUT_MARK in lead  # the asides between the methods are marked, not quoted
    assert "134." not in lead and not lead.rstrip().endswith(":")


def test_a_formula_announced_by_its_sentence_comes_with_it(library: Settings) -> None:
    a = ask(library, "Quelle formule de Whitney retient-on pour le facteur de crédibilité partielle ?")
    lead = next(p.text for p in a.paragraphs if "Whitney" in p.text)
    assert not lead.rstrip().endswith(":")
    after = lead[lead.index("Whitney") :]
    assert "z =" in after and "K" in after  # z = n / (n + K), as the text layer gives it
