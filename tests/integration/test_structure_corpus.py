"""Document structure on corpus PDFs parsed by the real parser (PyMuPDF backend offline): headings
from labelled numbers (EIOPA's guidelines), from the PDF outline (the French triangles report),
no heading made of a formula's "where" (Mack 2008), and the title from the PDF metadata when it
is meaningful; their outlines (title, headings, heading paths, table headers) against golden files
`tests/data/golden/corpus_<stem>.json` (RAG_GEN_GOLDEN=1 rewrites them). Each PDF is parsed once
per module."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pymupdf
import pytest
from docling_core.types.doc import DocItemLabel
from openpyxl import load_workbook

from rag_app.ui.section_tree import child_label, section_rows
from rag_core.chunking import build_chunks
from rag_core.config import Settings
from rag_core.parsing import parse
from rag_core.pipeline.exports import table_bytes
from tests.integration.test_parsing_golden import GOLDEN_DIR, _dump
from tests.outline_support import check_golden
from tests.parse_cache import ParseCache
from tests.parsing_support import with_parsing

EIOPA = "en_EIOPA_guidelines_valuation_technical_provisions.pdf"
TRIANGLES = "fr_rapport_provisionnement_non_vie_triangles_cadences.pdf"
MACK = "en_Mack2008_prediction_error_Bornhuetter_Ferguson.pdf"
ACT2008 = "fr_aide_memoire_ACT2008_credibilite_provisionnement.pdf"
CAS = "en_CAS_tail_factor_working_party_2013.pdf"
CHAINLADDER = "fr_rapport_provisionnement_non_vie_ChainLadder_Mack_Bootstrap.pdf"
_GUIDELINE = re.compile(r"^Guideline (\d+)[A-Z]? [–-] ")
_KEY = re.compile(r"\w+")


def _key(text: str) -> str:
    return " ".join(_KEY.findall(text.lower()))


@pytest.fixture(scope="module")
def parsed(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory, parse_cache: ParseCache):
    """name -> (parse, settings); a PDF another module parses with the same options is parsed once a run."""
    done: dict = {}

    def get(name: str, table_images: bool = True):
        if (name, table_images) not in done:
            tmp = tmp_path_factory.mktemp(name[:20])
            settings = Settings(data_dir=tmp / "data")
            settings = settings.model_copy(
                update={
                    "parsing": settings.parsing.model_copy(update={"backend": "pymupdf", "table_images": table_images})
                }
            )
            done[name, table_images] = (parse_cache.parse(corpus_dir / name, settings, tmp / "artifacts"), settings)
        return done[name, table_images]

    return get


def _headings(doc) -> list[tuple[int, str]]:
    return [
        (item.prov[0].page_no, item.text)
        for item, _ in doc.iterate_items()
        if getattr(item, "label", None) in (DocItemLabel.SECTION_HEADER, DocItemLabel.TITLE)
    ]


def test_every_eiopa_guideline_is_a_heading_and_labels_its_passages(parsed, corpus_dir: Path) -> None:
    result, settings = parsed(EIOPA)
    numbers = {int(m.group(1)) for _, text in _headings(result.document) if (m := _GUIDELINE.match(text))}
    assert numbers == set(range(89))
    chunked = build_chunks(result.document, "e" * 64, settings)
    # the first sentence line under each guideline heading, read from the PDF's own text layer
    checked = 0
    with pymupdf.open(corpus_dir / EIOPA) as pdf:
        lines = [ln.strip() for page in pdf for ln in page.get_text().splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        match = _GUIDELINE.match(line)
        if not match:
            continue
        body = next(ln for ln in lines[i + 1 :] if len(ln.split()) >= 6 and not ln[:1].islower())
        holders = [p for p in chunked.parents if _key(body) in _key(p.text)]
        assert holders, body
        assert any(f"Guideline {match.group(1)}" in p.section for p in holders), (line, [p.section for p in holders])
        checked += 1
    assert checked >= 89


_SECTION = re.compile(r"^(Section \d+)\b")


def _printed_sections(pdf_path: Path) -> dict[str, str]:
    """Guideline number ("37B") -> the "Section N" line printed last before it, read from the PDF's
    text layer alone (EIOPA's PDF has no outline: its numbering is the one it declares)."""
    under, current = {}, ""
    with pymupdf.open(pdf_path) as pdf:
        for line in (ln.strip() for page in pdf for ln in page.get_text().splitlines()):
            if found := _SECTION.match(line):
                current = found.group(1)
            elif (found := re.match(r"^Guideline (\d+[A-Z]?) [–-] ", line)) and current:
                under[found.group(1)] = current
    return under


def test_eiopa_tree_holds_its_printed_sections_and_each_guideline_under_its_own(parsed, corpus_dir: Path) -> None:
    """The section tree has Sections 0 to 5 as printed (Section 3: Assumptions, under the page's logo,
    was in no layout block: its guidelines were cited under Section 2), and every guideline's passages
    sit under the section the PDF prints before it: Guideline 37 and 37B under Section 3, not under
    "Section 2: Segmentation and unbundling" nor directly under a topic of another section."""
    result, settings = parsed(EIOPA)
    parents = build_chunks(result.document, "e" * 64, settings).parents
    rows = section_rows(parents)
    top = [row.title for row in rows if row.depth == 1 and row.title.startswith("Section")]
    assert top == [
        "Section 0 - Proportionality",
        "Section 1: Data quality",
        "Section 2: Segmentation and unbundling",
        "Section 3: Assumptions",
        "Section 4: Methodologies to calculate technical provisions",
        "Section 5: Validation",
    ]
    printed = _printed_sections(corpus_dir / EIOPA)
    assert printed["37"] == printed["37B"] == "Section 3" and len(printed) >= 89
    placed = {}
    for parent in parents:
        path = parent.heading_path
        unit = next((m.group(1) for h in path if (m := re.match(r"^Guideline (\d+[A-Z]?) [–-] ", h))), None)
        if unit is not None:
            placed.setdefault(unit, set()).add(path[0].split(":")[0].split(" -")[0])
    assert set(placed) == set(printed)
    wrong = {unit: sorted(sections) for unit, sections in placed.items() if sections != {printed[unit]}}
    assert not wrong, wrong
    guideline_37 = next(
        p.heading_path for p in parents if p.heading_path and p.heading_path[-1].startswith("Guideline 37 –")
    )
    assert guideline_37[0] == "Section 3: Assumptions" and "Projection of Expenses" not in guideline_37


def test_outline_entries_of_the_triangles_report_are_headings_on_their_page(parsed, corpus_dir: Path) -> None:
    result, _ = parsed(TRIANGLES)
    with pymupdf.open(corpus_dir / TRIANGLES) as pdf:
        toc = pdf.get_toc(simple=True)
    heads = [(page, _key(text)) for page, text in _headings(result.document)]
    found = [
        entry
        for entry in toc
        if any(page in (entry[2], entry[2] + 1) and _key(entry[1]) in text for page, text in heads)
    ]
    assert len(toc) >= 20 and len(found) >= 0.95 * len(toc), sorted(set(map(tuple, toc)) - set(map(tuple, found)))


def test_the_metadata_title_is_used_when_meaningful(parsed) -> None:
    result, _ = parsed(TRIANGLES)
    assert result.title == "Provisionnement Non Vie"  # its PDF metadata; its cover's first line is a degree name


def test_the_running_header_is_the_title_when_the_first_page_has_none(corpus_dir: Path, tmp_path: Path) -> None:
    """ACT-2008's aide-mémoire: no metadata title, a first page listing its contributors, its name
    printed small at the top of each page; the title is that name, not its first chapter."""
    settings = with_parsing(Settings(data_dir=tmp_path / "data"), backend="pymupdf", workers=1, ocr=False)
    result = parse(corpus_dir / ACT2008, settings, tmp_path / "artifacts")
    assert result.title == "Aide-mémoire pour Mathématiques actuarielles IARD II (ACT-2008)"


def test_a_title_wrapped_over_two_lines_is_one_heading_that_heads_the_first_passages(
    corpus_dir: Path, tmp_path: Path
) -> None:
    """The CAS report's title is printed in two centred lines that the layout boxes as two headings.
    Read as two, the second replaced the first in the heading path: the first passages were
    indexed under 'FACTORS: A SUMMARY REPORT' alone. In Inspect, a passage whose text breaks
    lines is listed with its words apart ('Working Party Steven', not 'Working PartySteven')."""
    cut = tmp_path / "cas.pdf"
    with pymupdf.open(corpus_dir / CAS) as pdf:
        pdf.select([0, 1])
        pdf.save(cut)
    settings = with_parsing(Settings(data_dir=tmp_path / "data"), backend="pymupdf", workers=1, ocr=False)
    result = parse(cut, settings, tmp_path / "artifacts")
    title = "THE ESTIMATION OF LOSS DEVELOPMENT TAIL FACTORS: A SUMMARY REPORT"
    first_page = [text for page, text in _headings(result.document) if page == 1]
    assert title in first_page and "FACTORS: A SUMMARY REPORT" not in first_page, first_page
    children = build_chunks(result.document, "c" * 64, settings).children
    assert children[0].context_text.startswith(title + "\n"), children[0].context_text[:120]
    broken = [c for c in children if "\n" in c.text[:60]]
    assert broken  # the working party's name, then its members: lines of one passage
    for child in children:
        label = child_label(child)
        assert "\n" not in label and label.endswith(" ".join(child.text.split())[:60]), label


def test_a_microsoft_word_title_is_ignored_and_where_is_not_a_heading(parsed) -> None:
    result, _ = parsed(MACK)
    assert not result.title.lower().startswith("microsoft word")
    assert "Bornhuetter" in result.title  # the paper's title, printed largest on its first page
    heads = [text.strip().lower() for _, text in _headings(result.document)]
    assert heads and not any(h in ("where", "with", "so that") or h.startswith("where ") for h in heads)


def test_a_formula_under_a_sentence_that_announces_it_is_not_a_heading(parsed) -> None:
    """The report prints its premium and PSAP formulas on lines of their own; the layout took them for
    headings, so the passages after them were labelled with a formula instead of their section. Its 24 pictures
    are not read by OCR here (about 50 CPU-s, a quarter of this module's time): the headings and passages of the
    text layer are what is checked; pictures read as tables are test_tables.py's and the triangles report's."""
    result, settings = parsed(CHAINLADDER, table_images=False)
    heads = [text for _, text in _headings(result.document)]
    assert heads and not [h for h in heads if "=" in h and not h[:1].isdigit()], heads
    parents = build_chunks(result.document, "c" * 64, settings).parents
    holder = next(p for p in parents if "PSAP = (1" in p.text)
    assert "suivant cette formule" in holder.text  # the formula stays with the sentence that announces it
    assert "Loss Ratio" in holder.section and "PSAP =" not in holder.section, holder.section
    # a numbered heading that states an equation stays a heading
    other, _ = parsed("fr_aide_memoire_ACT3000_theorie_du_risque.pdf")
    assert any(h.startswith("2.4.3") and "N = M1 + M2" in h for _, h in _headings(other.document))


def test_the_contents_page_is_not_a_table_and_a_triangle_keeps_its_development_years(parsed) -> None:
    result, settings = parsed(TRIANGLES)
    items = [it for p in build_chunks(result.document, "t" * 64, settings).parents for it in p.items]
    tables = [it for it in items if it.kind == "table"]
    assert tables and not any("triangles de liquidation" in it.text.lower() for it in tables)
    triangles = [it for it in tables if it.grid()[1][0].strip().isdigit() and len(it.grid()) > 5]
    assert triangles
    header = triangles[0].grid()[0]
    assert header[0] == "" and header[1:] == [str(i) for i in range(1, len(header))]  # development years, not data


def _outline(result, settings) -> dict:
    """A corpus document's structure: title, every heading (page, level, path) and table header."""
    chunked = build_chunks(result.document, "g" * 64, settings)
    paths: list[list[str]] = []
    for parent in chunked.parents:
        if parent.heading_path and (not paths or paths[-1] != parent.heading_path):
            paths.append(parent.heading_path)
    headings = [
        {"page": item.prov[0].page_no, "level": getattr(item, "level", 0), "text": item.text}
        for item, _ in result.document.iterate_items()
        if getattr(item, "label", None) in (DocItemLabel.SECTION_HEADER, DocItemLabel.TITLE)
    ]
    tables = [
        {"page": it.page, "header": it.grid()[0]} for p in chunked.parents for it in p.items if it.kind == "table"
    ]
    return {"title": result.title, "headings": headings, "heading_paths": paths, "tables": tables}


@pytest.mark.parametrize("name", [EIOPA, TRIANGLES, MACK])
def test_corpus_outline_matches_its_golden_file(name: str, parsed) -> None:
    result, settings = parsed(name)
    check_golden(
        GOLDEN_DIR / f"corpus_{Path(name).stem}.json", _dump(_outline(result, settings)), f"the structure of {name}"
    )


def test_exported_columns_sum_to_the_totals_the_report_prints(parsed) -> None:
    result, settings = parsed(TRIANGLES)
    items = [it for p in build_chunks(result.document, "t" * 64, settings).parents for it in p.items]
    checked = 0
    for item in items:
        if item.kind != "table" or not any(c.text.strip() == "Total" and c.col == 0 for c in item.cells):
            continue
        frame = pd.read_csv(io.StringIO(table_bytes(item, "csv", "fr").decode("utf-8")))
        sheet = load_workbook(io.BytesIO(table_bytes(item, "xlsx", "fr")))["table"]
        label = frame.columns[0]
        total = frame[frame[label] == "Total"]
        body = frame[frame[label] != "Total"]
        for column in frame.columns[1:]:
            # every cell of the column read as a figure, and a total printed under it
            if frame[column].dtype.kind in "if" and not pd.isna(total[column].item()):
                assert body[column].sum() == pytest.approx(total[column].item(), abs=1), (item.page, column)
                checked += 1
        numeric = [c.value for row in sheet.iter_rows(min_row=2) for c in row[1:]]
        assert any(isinstance(v, int | float) for v in numeric)
    assert checked >= 3


def test_the_triangle_of_charges_exports_ten_numeric_columns_under_its_printed_header(parsed) -> None:
    """Table 3 of the triangles report (Triangle des charges, an R console printed as an image): the
    line of column types R prints under the header ("<chr>") hid the header, so the export made up
    column numbers 1..11 above the real 1..10 row, and "7143 342" (a thousands space lost in print)
    stayed text, so a sum of the 2005 row missed 7,143,342. Read back by pandas and openpyxl: the
    development years 1..10 are the header and every cell of the data rows is a number (NA empty)."""
    result, settings = parsed(TRIANGLES)
    items = [it for p in build_chunks(result.document, "t" * 64, settings).parents for it in p.items]
    table = [it for it in items if it.kind == "table"][2]
    assert table.page == 5
    frame = pd.read_csv(io.StringIO(table_bytes(table, "csv", "fr").decode("utf-8")))
    assert list(frame.columns[1:]) == [str(year) for year in range(1, 11)]
    assert frame.iloc[:, 0].tolist() == list(range(2005, 2015))  # the accident years, as figures
    assert all(frame[column].dtype.kind in "if" for column in frame.columns[1:])
    assert frame.iloc[0, 8] == 7_143_342
    assert frame.iloc[0, 1:].sum() == 79_997_928  # the 2005 row, every development year counted
    sheet = load_workbook(io.BytesIO(table_bytes(table, "xlsx", "fr")))["table"]
    rows = [[cell.value for cell in row] for row in sheet.iter_rows()]
    assert rows[0][1:] == [str(year) for year in range(1, 11)] and len(rows) == 11
    assert all(isinstance(value, int | float) or value is None for row in rows[1:] for value in row)
    assert sum(v for v in rows[1][1:] if v is not None) == 79_997_928
