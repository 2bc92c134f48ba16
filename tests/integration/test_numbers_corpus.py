"""Cell lookup in the tables of real corpus PDFs, parsed and chunked by the real offline pipeline.

A few pages are cut out of the corpus PDFs with PyMuPDF (parsing is per page, so the tables
come out as in the whole document, faster). PyMuPDF's text search is the independent ruler:
the box of a quoted number must cover where the number is printed, in its own row.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pymupdf
import pytest

from rag_core.answering.number_trace import trace_numbers
from rag_core.chunking import build_chunks
from rag_core.citations import build_sources, item_source_id
from rag_core.config import Settings
from rag_core.models import DocumentRecord, Paragraph, RetrievedParent, SearchResult
from rag_core.parsing import parse


def excerpt(pdf: Path, pages: list[int], out: Path) -> Path:
    with pymupdf.open(pdf) as doc:
        doc.select([p - 1 for p in pages])
        doc.save(out)
    return out


def library(pdf: Path, language: str, tmp_path: Path) -> SearchResult:
    """Every parent of the parsed excerpt as a context parent (what a search would hand over)."""
    settings = Settings(data_dir=tmp_path / "data")
    doc = parse(pdf, settings, tmp_path / "artifacts").document
    doc_id = hashlib.sha256(pdf.read_bytes()).hexdigest()
    chunked = build_chunks(doc, doc_id, settings)
    record = DocumentRecord(
        doc_id=doc_id,
        file_name=pdf.name,
        title=pdf.stem,
        collection="default",
        language=language,
        pages=len(doc.pages),
        parents=len(chunked.parents),
        children=len(chunked.children),
        tables=len(doc.tables),
        parser="pymupdf",
        embedder="none",
        ingested_at="2026-11-30T00:00:00Z",
        elapsed_s=0.0,
    )
    hits = []
    for rank, parent in enumerate(chunked.parents, start=1):
        children = [c for c in chunked.children if c.parent_id == parent.id]
        hits.append(
            RetrievedParent(
                parent=parent,
                document=record,
                children=children,
                best_child=children[0],
                fused_rank=rank,
                fused_score=1.0 / (60 + rank),
            )
        )
    return SearchResult(query="", parents=hits)


def table_source(result: SearchResult, needle: str) -> str:
    for hit in result.parents:
        for item in hit.parent.items:
            if item.kind == "table" and needle in item.text:
                return item_source_id(hit.parent, item)
    raise AssertionError(f"no table holding {needle!r}")


def printed_at(pdf: Path, page_no: int, number: str, row_label: str) -> tuple[float, float]:
    """Centre (x, y) in points of `number` printed on the row that starts with `row_label`."""
    with pymupdf.open(pdf) as doc:
        page = doc[page_no - 1]
        (label,) = page.search_for(row_label)[:1]
        row_y = (label.y0 + label.y1) / 2
        hits = [r for r in page.search_for(number) if r.y0 - 2 <= row_y <= r.y1 + 2]
        assert hits, f"{number!r} not printed on the row of {row_label!r}"
        return (hits[0].x0 + hits[0].x1) / 2, (hits[0].y0 + hits[0].y1) / 2


def trace(result: SearchResult, text: str, cite: list[str], language: str):
    sources = build_sources(result, len(result.parents))
    (p,) = trace_numbers([Paragraph(text=text, source_ids=cite)], sources, result.parents, language, reading=language)
    return {n.text: n for n in p.numbers}


def assert_over(box, centre: tuple[float, float], page: int) -> None:
    x, y = centre
    assert box.page == page and box.x0 - 1 <= x <= box.x1 + 1 and box.y0 - 1 <= y <= box.y1 + 1, (box, centre)


@pytest.fixture(scope="module")
def iard(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SearchResult]:
    """French reserving slides, page 8: settlement patterns by line of business (percentages)."""
    tmp = tmp_path_factory.mktemp("iard")
    pdf = excerpt(corpus_dir / "fr_slides_provisionnement_IARD.pdf", [7, 8], tmp / "iard_p7-8.pdf")
    return pdf, library(pdf, "fr", tmp)


@pytest.fixture(scope="module")
def cas(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SearchResult]:
    """CAS tail factor report, pages 13 and 30: selected incurred factors by age, link ratios, ratios in %."""
    tmp = tmp_path_factory.mktemp("cas")
    pdf = excerpt(corpus_dir / "en_CAS_tail_factor_working_party_2013.pdf", [13, 30], tmp / "cas_p13-30.pdf")
    return pdf, library(pdf, "en", tmp)


def test_french_percentages_link_to_their_own_cells(iard: tuple[Path, SearchResult]) -> None:
    # The only French table of percentages in the corpus; the claim is not the development set's
    # (which compares two lines of business at n+1): one line, two other years.
    pdf, result = iard
    table = table_source(result, "Resp. civile")
    numbers = trace(result, "En automobile (corporel), 38 % est réglé à n+1 et 65 % à n+3.", [table], "fr")
    assert set(numbers) == {"38 %", "65 %"}
    for text, printed in (("38 %", "38%"), ("65 %", "65%")):
        n = numbers[text]
        assert n.status == "quoted" and n.location is not None and n.location.kind == "cell", n
        assert n.location.text.replace(" ", "") == printed and len(n.location.boxes) == 1
        assert_over(n.location.boxes[0], printed_at(pdf, 2, printed, "Automobile (corporel)"), page=2)
    # one row, two columns: n+1 and n+3
    assert numbers["38 %"].location.row == numbers["65 %"].location.row
    assert numbers["65 %"].location.col == numbers["38 %"].location.col + 2


def test_english_development_factors_and_leading_dot_decimals(cas: tuple[Path, SearchResult]) -> None:
    pdf, result = cas
    factors = table_source(result, "108-120")
    numbers = trace(
        result,
        "The selected incurred factors fall from 1.250 at 36-48 months to 1.063 at 60-72 and 1.008 at 96-108.",
        [factors],
        "en",
    )
    for text, label in (("1.250", "36-48"), ("1.063", "60-72"), ("1.008", "96-108")):
        n = numbers[text]
        assert n.status == "quoted" and n.location.kind == "cell", n
        assert n.location.col == 1 and len(n.location.boxes) == 1, n.location
        assert_over(n.location.boxes[0], printed_at(pdf, 1, text, label), page=1)
    assert len({numbers[t].location.row for t in ("1.250", "1.063", "1.008")}) == 3
    ratios = table_source(result, "Benchma")
    numbers = trace(
        result,
        "At 24 months the development portion is .450 against .350 for the benchmark, a ratio of 129%.",
        [ratios],
        "en",
    )
    assert all(numbers[t].status == "quoted" and numbers[t].location.kind == "cell" for t in (".450", ".350", "129%"))
    assert numbers[".450"].location.row == numbers["129%"].location.row == numbers[".350"].location.row
    assert_over(numbers["129%"].location.boxes[0], printed_at(pdf, 2, "129%", "24"), page=2)


def test_a_wrong_figure_is_not_found_in_a_real_table(cas: tuple[Path, SearchResult]) -> None:
    _, result = cas
    factors = table_source(result, "108-120")
    numbers = trace(result, "The selected 48-60 factor is 1.152.", [factors], "en")
    assert numbers["1.152"].status == "unsupported"  # the table says 1.125
