"""A paragraph's quote highlights exactly the lines it covers, on corpus PDFs parsed and chunked for real.

PyMuPDF is used here only as an independent ruler: the text under a box, and where a quote lies.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rag_core.chunking import build_chunks
from rag_core.citations import build_sources, quote_highlight, source_target, viewer_annotations
from rag_core.config import Settings
from rag_core.models import Chunked, DocumentRecord, HighlightBox, RetrievedParent, SearchResult, Source
from tests.parse_cache import ParseCache

PDF_NAME = "en_actuar_coverage_modifications.pdf"
DOC_ID = "6" * 64
# Two consecutive lines of page 1: "...return the distribution of either the payment" /
# "per loss or the payment per payment random variable. This terminology refers"
TWO_LINE_QUOTE = "the payment per loss or the payment per payment random variable"
ONE_LINE_QUOTE = "presents the definitions of the above four random variables"


def _letters(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


@pytest.fixture(scope="module")
def parsed(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory, parse_cache: ParseCache):
    """name -> Chunked, each corpus PDF parsed and chunked once for the module."""
    cache: dict[str, Chunked] = {}

    def get(name: str) -> Chunked:
        if name not in cache:
            tmp = tmp_path_factory.mktemp("quote")
            settings = Settings(data_dir=tmp / "data")
            doc = parse_cache.parse(corpus_dir / name, settings, tmp / "artifacts").document
            cache[name] = build_chunks(doc, DOC_ID, settings)
        return cache[name]

    return get


@pytest.fixture
def chunked(parsed) -> Chunked:
    return parsed(PDF_NAME)


def _record(chunked: Chunked, name: str) -> DocumentRecord:
    return DocumentRecord(
        doc_id=DOC_ID,
        file_name=name,
        title="t",
        collection="t",
        language="en",
        pages=5,
        parents=len(chunked.parents),
        children=len(chunked.children),
        tables=0,
        parser="pymupdf",
        embedder="e5",
        ingested_at="2026-11-30T00:00:00",
        elapsed_s=1.0,
    )


def _parent_source(chunked: Chunked, parent_id: str, best_child_id: str, name: str = PDF_NAME) -> Source:
    """The registry's source of one parent, as the search would hand it over."""
    parent = next(p for p in chunked.parents if p.id == parent_id)
    kids = [c for c in chunked.children if c.parent_id == parent.id]
    best = next(c for c in kids if c.id == best_child_id)
    hit = RetrievedParent(
        parent=parent, document=_record(chunked, name), children=kids, best_child=best, fused_rank=1, fused_score=0.03
    )
    return build_sources(SearchResult(query="q", parents=[hit]), context_k=1)[0]


def _source(chunked: Chunked, quote: str) -> Source:
    """The source of the parent whose child holds `quote`, that child being the best one."""
    holder = next(c for c in chunked.children if _letters(quote) in _letters(c.text))
    return _parent_source(chunked, holder.parent_id, holder.id)


def _quote_rects(pdf: Path, page_no: int, quote: str) -> list[tuple[float, float, float, float]]:
    import pymupdf

    with pymupdf.open(pdf) as doc:
        return [tuple(r) for r in doc[page_no - 1].search_for(quote)]  # one rect per line it spans


def _inside(rect: tuple[float, float, float, float], box: HighlightBox, tol: float = 2.0) -> bool:
    cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
    return box.x0 - tol <= cx <= box.x1 + tol and box.y0 - tol <= cy <= box.y1 + tol


def test_line_boxes_keep_the_span_of_their_text(chunked: Chunked, corpus_dir: Path) -> None:
    import pymupdf

    spanned = 0
    with pymupdf.open(corpus_dir / PDF_NAME) as pdf:
        for child in chunked.children:
            for box in child.boxes:
                if box.start is None:
                    continue
                spanned += 1
                assert box.end is not None and 0 <= box.start < box.end <= len(child.text)
                under = pdf[box.page - 1].get_text(
                    "text", clip=pymupdf.Rect(box.x0 - 1, box.y0 - 1, box.x1 + 1, box.y1 + 1)
                )
                assert _letters(child.text[box.start : box.end]) in _letters(under), (
                    box,
                    child.text[box.start : box.end],
                )
    assert spanned >= 100  # the 5-page vignette has ~200 text lines


def test_a_quote_over_two_lines_highlights_exactly_those_lines(chunked: Chunked, corpus_dir: Path) -> None:
    source = _source(chunked, TWO_LINE_QUOTE)
    tiers = quote_highlight(source, TWO_LINE_QUOTE)
    assert tiers is not None
    quoted, passage, rest = tiers
    rects = _quote_rects(corpus_dir / PDF_NAME, 1, TWO_LINE_QUOTE)
    assert len(rects) == 2, rects  # the ruler agrees the quote spans two lines
    assert len(quoted) == 2 and {b.page for b in quoted} == {1}
    for rect in rects:  # each line of the quote lies under one quoted box...
        assert sum(_inside(rect, b) for b in quoted) == 1, (rect, quoted)
    for box in quoted:  # ...and each quoted box holds a piece of the quote
        assert any(_inside(r, box) for r in rects), (box, rects)
        assert _letters(source.text[box.start : box.end])
    # the rest of the child that holds the quote is the less strong tier; the section is light
    assert passage and not set(passage) & set(quoted)
    # the ignore below: the spans are set for a cited child
    holder = next(s for s in source.child_spans if s[0] <= quoted[0].start < s[1])  # type: ignore[operator]
    # the ignore below: the spans are set for a cited child
    assert all(holder[0] <= b.start < holder[1] for b in passage)  # type: ignore[operator]
    assert set(quoted) | set(passage) | set(rest) == set(source.parent_boxes)


def test_the_viewer_draws_the_quote_lines_alone(chunked: Chunked) -> None:
    source = _source(chunked, ONE_LINE_QUOTE)
    target = source_target(source, ONE_LINE_QUOTE)
    annotations = viewer_annotations(target)
    # one line quoted, one box, one style: the rest of the child and of the section are not tinted
    assert [a["id"] for a in annotations] == ["cite-0"] and not target.legend
    assert target.pages == [annotations[0]["page"]]  # the quote's own page
    line = annotations[0]
    under = [b for b in source.parent_boxes if b.start is not None and (b.x0, b.y0) == (line["x"], line["y"])]
    assert under and _letters(ONE_LINE_QUOTE) in _letters(source.text[under[0].start : under[0].end])


def test_a_quote_in_another_child_than_the_best_one_is_found_there(parsed, corpus_dir: Path) -> None:
    name = "fr_aide_memoire_ACT3000_theorie_du_risque.pdf"
    chunked = parsed(name)
    by_parent: dict[str, list] = {}
    for child in chunked.children:
        by_parent.setdefault(child.parent_id, []).append(child)
    first, second = next(kids for kids in by_parent.values() if len(kids) >= 2)[:2]
    # a line of the second child, long enough to be unique, quoted while the first child is the best one
    line = next(b for b in second.boxes if b.start is not None and len(_letters(second.text[b.start : b.end])) >= 30)
    quote = second.text[line.start : line.end]
    source = _parent_source(chunked, first.parent_id, first.id, name)
    tiers = quote_highlight(source, quote)
    assert tiers is not None
    quoted, passage, rest = tiers
    assert [(b.page, b.x0, b.y0, b.x1, b.y1) for b in quoted] == [(line.page, line.x0, line.y0, line.x1, line.y1)]
    # the less strong tier is the rest of the child that holds the quote (the second), not the best child
    second_span = (second.start, second.end)
    assert source.child_spans[1] == second_span
    assert all(second.start <= b.start < second.end for b in passage)
    assert len(passage) == len([b for b in second.boxes if b.start is not None]) - 1
    assert set(source.boxes) <= set(rest)  # the best child is now only part of the section
    assert _letters(quote) in _letters(source.text[quoted[0].start : quoted[0].end])


def test_without_a_usable_quote_the_best_child_stays_the_cited_passage(chunked: Chunked) -> None:
    source = _source(chunked, ONE_LINE_QUOTE)
    assert quote_highlight(source, "a sentence that is nowhere in this section") is None
    assert quote_highlight(source, "") is None
    # a library chunked before line spans were kept: the old highlight, not a wrong one
    old = source.model_copy(
        update={
            "boxes": [b.model_copy(update={"start": None, "end": None}) for b in source.boxes],
            "parent_boxes": [b.model_copy(update={"start": None, "end": None}) for b in source.parent_boxes],
        }
    )
    assert quote_highlight(old, ONE_LINE_QUOTE) is None
    strong = [a for a in viewer_annotations(source_target(old, ONE_LINE_QUOTE)) if a["id"].startswith("cite-")]
    assert len(strong) == len(old.boxes)
