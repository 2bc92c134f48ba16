"""Extractive answers quote whole units: a list with the sentence that announces it, a numbered paragraph.

Two pages of EIOPA's technical-provisions guidelines (numbered paragraphs under numbered guidelines,
a paragraph that announces a list of two methods, a paragraph cut by the page break) are cut out of
the corpus PDF and ingested by the real offline pipeline. The expectations are read from the parsed
document itself (the lines that follow the announcing sentence, the lines up to the next paragraph
number), never written here; the questions are worded for these tests.
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

LOCAL = Principal.local_operator()
PDF = "en_EIOPA_guidelines_valuation_technical_provisions.pdf"
PAGES = [27, 28]
NUMBERED = re.compile(r"^(?:- )?(\d+)\. ")


@pytest.fixture(scope="module")
def library(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, list[str]]:
    root = tmp_path_factory.mktemp("answer_units")
    with pymupdf.open(corpus_dir / PDF) as doc:
        doc.select([p - 1 for p in PAGES])
        doc.save(root / PDF)
    settings = Settings(data_dir=root / "data")
    [result] = pipeline.ingest([root / PDF], settings, principal=LOCAL)
    assert result.status == "ingested", result.message
    chunks = pipeline.load_chunks(result.doc_id, settings, principal=LOCAL)
    lines = [line.strip() for child in chunks.children for line in child.text.splitlines() if line.strip()]
    return settings, lines


def ask(library: tuple[Settings, list[str]], question: str) -> Answer:
    return pipeline.ask(question, library[0], principal=LOCAL)


def paragraph_lines(lines: list[str], start: int) -> list[str]:
    """The document's lines of the numbered paragraph that starts at `start`: up to the next number or title."""
    end = start + 1
    while end < len(lines) and not NUMBERED.match(lines[end]) and not lines[end].startswith("Guideline"):
        end += 1
    return lines[start:end]


def test_a_sentence_announcing_a_list_is_answered_with_its_items(library) -> None:
    _, lines = library
    a = ask(library, "Which two ways of estimating the provision for outstanding reported claims are possible?")
    assert a.mode == "extractive"
    announcing = [i for i, line in enumerate(lines) if line.endswith(":") and i + 1 < len(lines)]
    lead = a.paragraphs[0].text.splitlines()
    assert lead[0].endswith(":"), lead  # the answer leads with the announcing sentence...
    start = next(i for i in announcing if lines[i].endswith(lead[0]))
    items = paragraph_lines(lines, start)[1:]
    assert len(items) >= 2 and all(item.startswith("- ") for item in items)
    assert lead[1:] == items  # ... and every item of its list, nothing else


def test_a_numbered_paragraph_cut_by_the_page_is_quoted_whole(library) -> None:
    _, lines = library
    a = ask(library, "When chain ladder style techniques estimate IBNR, what must undertakings check?")
    assert a.mode == "extractive"
    para = a.paragraphs[0]  # the paragraph that answers leads
    first = para.text.splitlines()[0]
    assert NUMBERED.match(first), para.text  # quoted from its number ...
    assert not first.startswith("- ")  # the list marker the layout set before its number is no text of it
    start = next(i for i, line in enumerate(lines) if first.startswith(line.removeprefix("- ")))
    whole = paragraph_lines(lines, start)
    assert len(whole) >= 2  # the document holds it on two lines (the page break cut it)
    assert para.text == " ".join(whole).removeprefix("- ")  # ... to its end, the cut line joined back
    assert para.status == "supported"


def test_passages_of_two_parts_are_never_one_paragraph(library) -> None:
    _, lines = library
    a = ask(library, "Which two ways of estimating the provision for outstanding reported claims are possible?")
    for p in a.paragraphs:
        numbers = {m.group(1) for line in p.text.splitlines() if (m := NUMBERED.match(line))}
        assert len(numbers) <= 1, p.text  # one numbered paragraph per answer paragraph
