"""Headings of real PDFs: what is and is not a heading, and levels from numbering.

Each test parses only the pages it needs (cut with PyMuPDF); about 20-40 s in all on a loaded
2-core machine.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
from docling_core.types.doc import DoclingDocument, SectionHeaderItem, TitleItem

from rag_core.chunking import build_chunks
from rag_core.config import Settings
from rag_core.parsing import parse
from rag_core.parsing.heading_blocks import heading_kind
from rag_core.parsing.headings import HeadingInfo, assign_levels
from tests.outline_support import cut_with_outline
from tests.parsing_support import check_invariants, with_parsing


def _cut(source: Path, pages: list[int], target: Path) -> Path:
    with pymupdf.open(source) as doc:
        doc.select([p - 1 for p in pages])
        doc.save(target)
    return target


def _headings(doc: DoclingDocument) -> dict[str, int]:
    return {t.text: t.level for t in doc.texts if isinstance(t, SectionHeaderItem)}


def test_false_headings_by_text() -> None:
    assert heading_kind("3.2.1 Mack's method") == "heading"
    assert heading_kind("• a bullet") == "list"
    assert heading_kind("12") == "text" and heading_kind("(iv)") == "text" and heading_kind("A.") == "text"
    assert heading_kind("R> mack <- MackChainLadder(RAA)") == "text"
    assert heading_kind("The reserve is then computed from the factors.", size=10.0, body=10.0) == "text"
    assert heading_kind("The reserve is then computed from the factors.", size=14.0, body=10.0) == "heading"
    # a line in the body's size that starts in lower case carries on a sentence; an enumeration is a label
    assert heading_kind("variable comonotone et la borne supérieure", size=10.0, body=10.0) == "text"
    assert heading_kind("variable comonotone et la borne supérieure", size=14.0, body=10.0) == "heading"
    assert heading_kind("a) Scope of the guidelines", size=10.0, body=10.0) == "heading"


def test_levels_from_numbering_when_only_sub_sections_are_numbered() -> None:
    """As in an IBM Redpaper: unnumbered chapter titles, numbered sections, a few unnumbered ones."""
    infos = [
        HeadingInfo("Preface", 4, 24.0),
        HeadingInfo("Authors", 4, 16.0),
        HeadingInfo("Securing and protecting data", 5, 26.0),
        HeadingInfo("1.1 Security fundamentals", 6, 16.0),
        HeadingInfo("1.3.1 Existing row and column control", 7, 14.0),
        HeadingInfo("2.2 Separation of duties", 8, 16.0),
        HeadingInfo("Column mask", 10, 14.0),
    ]
    assert assign_levels(infos, toc=[]) == [1, 2, 1, 2, 3, 2, 3]
    # its chapter's number joined to the title: the other chapters ("Preface") stay chapters, and
    # the back cover's large lines after the last sub-section are no sub-sub-sections
    infos[2] = HeadingInfo("1 Securing and protecting data", 5, 26.0)
    infos.append(HeadingInfo("Row and Column Access Control Support", 18, 24.0))
    assert assign_levels(infos, toc=[]) == [1, 2, 1, 2, 3, 2, 3, 1]


def test_numbers_sentences_captions_and_merged_lines(
    docling_fixtures_dir: Path, tmp_path: Path, settings: Settings
) -> None:
    """A Korean report: a section number in its own box, a column's first sentence, a "[표 1]"
    caption and a body line merged into a heading by the layout model."""
    parsed = parse(docling_fixtures_dir / "normal_4pages.pdf", with_parsing(settings, workers=1), tmp_path / "a")
    check_invariants(parsed)
    doc = parsed.document
    headings = _headings(doc)
    assert "1 들어가며" in headings and "5 맺으며" in headings
    assert "이슈와 논점" in headings  # the series' name, far larger than the body text
    assert "(3) 「약관의 규제에 관한 법률」상 약관해석의 원칙" in headings  # without the paragraph's first line
    assert not [h for h in headings if h.strip("().").isdigit() or h.endswith("판단된다.") or h.startswith("[표")]
    (table,) = doc.tables
    assert [c.resolve(doc).text for c in table.captions] == ["[표 1] 감염병예방법 제2조제2호 개정전·후 비교"]
    last = [cell.text for cell in table.data.grid[4]]  # a bullet glued to the word before it in the text stream
    assert last[0] == "U코드" and last[1] == "◦ 대상질병에 U코드 없음"


def test_titles_inside_paragraphs_and_text_banners(
    docling_fixtures_dir: Path, tmp_path: Path, settings: Settings
) -> None:
    """A brochure page: run-in titles in a larger font inside text boxes, and a banner of text
    that the layout model calls a picture (no image, no drawing)."""
    pdf = _cut(docling_fixtures_dir / "redp5110_sampled.pdf", [3], tmp_path / "brief.pdf")
    parsed = parse(pdf, with_parsing(settings, workers=1), tmp_path / "a")
    check_invariants(parsed)
    doc = parsed.document
    headings = _headings(doc)
    for title in (
        "We build confident, satisfied clients",
        "Who we are, some of what we do",
        "DB2 for i Center of Excellence",
    ):
        assert title in headings, headings
    texts = {t.text for t in doc.texts}
    assert any(t.startswith("No one else has the vast consulting experiences") for t in texts)
    assert len(doc.pictures) == 1  # the photograph; the two text banners are text


def test_levels_from_numbering_and_no_code_headings(corpus_dir: Path, tmp_path: Path, settings: Settings) -> None:
    pdf = _cut(corpus_dir / "en_ChainLadder_claims_reserving_with_R_vignette.pdf", [1, 6, 7, 40], tmp_path / "v.pdf")
    parsed = parse(pdf, with_parsing(settings, workers=1), tmp_path / "a")
    doc = parsed.document
    headings = _headings(doc)
    assert headings["3 Using the ChainLadder package"] == 1
    assert headings["3.1 Working with triangles"] == 2
    assert headings["5 Further resources"] == 1  # no longer a whole list merged into one heading
    assert headings["5.1 Other insurance related R packages"] == 2
    assert not [h for h in headings if h.startswith("R>")]
    title = next(t.text for t in doc.texts if isinstance(t, SectionHeaderItem | TitleItem))
    assert title.startswith("Claims reserving with R") and "Gesmann" not in title  # the authors are not the title
    assert any(t.text.startswith("Markus Gesmann") for t in doc.texts)


def test_a_large_chapter_number_above_its_title_is_part_of_the_heading(
    docling_fixtures_dir: Path, tmp_path: Path, settings: Settings
) -> None:
    """An IBM Redpaper's chapter page prints its number alone in 40 points, high above the title
    in 26 points: the chapter's heading carries its number (a stray "1" text before it helped no
    one), so it reads and ranks as chapter 1 above its numbered sections."""
    pdf = _cut(docling_fixtures_dir / "redp5110_sampled.pdf", [5, 6], tmp_path / "chapter.pdf")
    parsed = parse(pdf, with_parsing(settings, workers=1, ocr=False), tmp_path / "a")
    check_invariants(parsed)
    doc = parsed.document
    headings = _headings(doc)
    assert headings["1 Securing and protecting IBM DB2 data"] == 1
    assert headings["1.1 Security fundamentals"] == 2
    assert not [t.text for t in doc.texts if t.text.strip() == "1" and t.prov[0].bbox.t < 200]


def test_a_sentence_carried_on_from_the_column_before_is_no_heading(
    corpus_dir: Path, tmp_path: Path, settings: Settings
) -> None:
    """Two French aide-mémoires in three columns: a column's first line carries on the sentence the
    column before left off ("bilité au contrat. On peut démontrer que", "variable comonotone et la
    borne supérieure de Fréchet"), in the body's size and lower case; the layout model called it a
    section header. The bold sub-headings of those pages stay headings."""
    settings = with_parsing(settings, workers=1, ocr=False)
    for name, sub_heading in (
        ("fr_aide_memoire_ACT2008_credibilite_provisionnement.pdf", "Nombre de sinistres dans une période"),
        ("fr_aide_memoire_ACT3000_theorie_du_risque.pdf", "2.2.1 Algorithme"),
    ):
        pdf = _cut(corpus_dir / name, [2], tmp_path / name)
        parsed = parse(pdf, settings, tmp_path / name[:12])
        check_invariants(parsed)
        headings = _headings(parsed.document)
        assert sub_heading in headings, headings
        # (not yet: a lower-case line that an icon glyph in 12 points, on its line, makes larger)
        assert not [h for h in headings if h[:1].islower() and not h.endswith("•")], headings
        texts = [t.text for t in parsed.document.texts if not isinstance(t, SectionHeaderItem | TitleItem)]
        assert any(t.startswith(("bilité au contrat", "variable comonotone")) for t in texts)


# Sentence pieces and bylines the layout took for headings, found by parsing the whole corpus
# (pymupdf backend): (PDF, its pages to parse, the texts that must not name a section there)
FRAGMENTS = [
    ("fr_slides_MCS_chap2_modele_individuel.pdf", [1, 12], ["Pierre-Olivier Goffard", "puis"]),
    (
        "fr_slides_MCS_chap3_modele_collectif.pdf",
        [1, 27, 31, 32],
        ["Pierre-Olivier Goffard", "puis", "puis on note que", "On note que", "Comme"],
    ),
    ("en_Mack_parameter_estimation_Bornhuetter_Ferguson_OCR.pdf", [7], ["~ with"]),
    ("en_Mack2008_prediction_error_Bornhuetter_Ferguson.pdf", [1], ["Thomas Mack"]),
    ("en_actuar_coverage_modifications.pdf", [1], ["Vincent Goulet Université Laval"]),
]


def test_no_sentence_piece_nor_byline_names_a_section_on_the_pdfs_where_they_occurred(
    corpus_dir: Path, tmp_path: Path, settings: Settings
) -> None:
    """Each was a heading before (so every passage under it was cited under "puis" or "Thomas Mack");
    now none is a heading nor in a passage's heading path, its words are still in the text, and the
    page keeps headings (the title of the first page, the slide's own)."""
    for name, pages, fragments in FRAGMENTS:
        cut = tmp_path / name
        cut_with_outline(corpus_dir / name, pages, cut)
        options = with_parsing(settings, workers=1, ocr=False, table_images=False)
        parsed = parse(cut, options, tmp_path / f"{cut.stem}_artifacts")
        heads = [t.text.strip() for t in parsed.document.texts if isinstance(t, SectionHeaderItem | TitleItem)]
        assert heads or 1 not in pages, name  # a first page keeps its title
        assert not set(fragments) & set(heads), (name, heads)
        chunked = build_chunks(parsed.document, "f" * 64, options)
        in_paths = {h.strip() for p in chunked.parents for h in p.heading_path}
        assert not set(fragments) & in_paths, (name, in_paths)
        text = " ".join(" ".join(p.text.split()) for p in chunked.parents)
        assert all(f in text for f in fragments), name
