"""A watermark is not a picture: the ChainLadder vignette's pages carry a huge slanted "DRAFT"
across them. The layout model took its glyphs for part of each plot and stretched the plot's box
down over the headings and code below it, which became the picture's text ("3.2.3 Bootstrap
chain-ladder" was lost as a heading). Parsed by the real parser, on the pages concerned only."""

from __future__ import annotations

from pathlib import Path

import pymupdf
from docling_core.types.doc import DocItemLabel, PictureItem

from rag_core.parsing import parse
from rag_core.parsing.watermarks import watermark_boxes
from tests.outline_support import cut_with_outline
from tests.parsing_support import with_parsing

VIGNETTE = "en_ChainLadder_claims_reserving_with_R_vignette.pdf"
PAGES = [14, 19, 39]  # a plot on each, the watermark over each


def test_the_watermark_is_found_on_every_page_and_a_rotated_axis_title_is_not(corpus_dir: Path) -> None:
    with pymupdf.open(corpus_dir / VIGNETTE) as pdf:
        marks = [watermark_boxes(page) for page in pdf]
        axis_titles = [
            line["bbox"]
            for block in pdf[13].get_text("dict")["blocks"]
            for line in block.get("lines", [])
            if line["dir"] != (1.0, 0.0)
        ]
    assert all(len(m) == 1 for m in marks), [i + 1 for i, m in enumerate(marks) if len(m) != 1]
    assert len(axis_titles) > 1  # page 14's vertical tick labels and axis title, and the watermark
    assert [b for b in axis_titles if tuple(b) in map(tuple, marks[13])] == [tuple(marks[13][0])]


def test_a_watermark_neither_stretches_a_picture_nor_becomes_text(corpus_dir: Path, tmp_path: Path, settings) -> None:
    cut_with_outline(corpus_dir / VIGNETTE, PAGES, tmp_path / "cut.pdf")
    settings = with_parsing(settings, workers=1, ocr=False, table_images=False)
    document = parse(tmp_path / "cut.pdf", settings, tmp_path / "artifacts").document
    texts = [item for item, _ in document.iterate_items() if getattr(item, "text", None)]
    assert not [t.text for t in texts if t.text.strip().startswith("DRAFT")]
    pictures = [item for item, _ in document.iterate_items() if isinstance(item, PictureItem)]
    assert len(pictures) == len(PAGES)
    with pymupdf.open(tmp_path / "cut.pdf") as pdf:
        for picture in pictures:
            page = pdf[picture.prov[0].page_no - 1]
            box = picture.prov[0].bbox
            drawn = [d["rect"] for d in page.get_drawings() if d["rect"].y0 >= box.t - 1]
            # it ends at the axis title under the plot's lowest drawing, not where the watermark ends (~190 pt lower)
            assert box.b <= max(r.y1 for r in drawn) + 60, (picture.prov[0].page_no, box)
    heading = next(t for t in texts if "Bootstrap chain-ladder" in t.text)
    assert heading.label == DocItemLabel.SECTION_HEADER
    owner = heading.parent.resolve(document) if heading.parent else None
    assert not isinstance(owner, PictureItem)  # its own section, not a picture's text
    code = next(t for t in texts if t.text.startswith("BootChainLadder(Triangle = RAA"))
    assert not isinstance(code.parent.resolve(document) if code.parent else None, PictureItem)


def test_a_formula_box_the_watermark_stretched_ends_where_prose_begins(
    corpus_dir: Path, tmp_path: Path, settings
) -> None:
    """Page 25: the layout model stretched the box of equations (6)-(9) over the watermark down to
    the page's end; the heading "3.3.1 The "triangles" class" and the code under it were formula
    text. The formula ends at the first paragraph; what follows is text again, each line once."""
    cut_with_outline(corpus_dir / VIGNETTE, [25], tmp_path / "cut.pdf")
    settings = with_parsing(settings, workers=1, ocr=False, table_images=False)
    document = parse(tmp_path / "cut.pdf", settings, tmp_path / "artifacts").document
    texts = [item for item, _ in document.iterate_items() if getattr(item, "text", None)]
    heading = next(t for t in texts if t.text.endswith('The "triangles" class'))
    assert heading.label == DocItemLabel.SECTION_HEADER
    formulas = [t.text for t in texts if t.label == DocItemLabel.FORMULA]
    assert formulas and not any("Consider the two" in f or "R>" in f for f in formulas)
    assert len([t for t in texts if t.text.startswith("R> showMethods")]) == 1
    assert len([t for t in texts if t.text.startswith("For exmaple")]) == 1


# the layout's text blocks as pymupdf4llm reads them (its flags, after removing the page's rotation)
def _layout_text_blocks(page: pymupdf.Page) -> list[dict]:
    from pymupdf4llm.helpers import document_layout

    textpage = page.get_textpage(flags=document_layout.FLAGS, clip=pymupdf.INFINITE_RECT())
    return [b for b in textpage.extractDICT()["blocks"] if b["type"] == 0]


class _NoTextLayer:
    """A page whose text layer must not be read again."""

    def __init__(self, page: pymupdf.Page) -> None:
        self.page = page

    def get_text(self, *args, **kwargs):
        raise AssertionError("the text layer was read again")


def test_the_layouts_text_blocks_give_the_same_watermarks_on_corpus_pages(corpus_dir: Path) -> None:
    """The pre-check on the layout's own text blocks (other flags) finds the same watermarks as the
    page's own reading, on every page of PDFs with a watermark, rotated labels, pictures, scans."""
    names = [
        VIGNETTE,
        "en_Mack_parameter_estimation_Bornhuetter_Ferguson_OCR.pdf",
        "fr_rapport_provisionnement_non_vie_triangles_cadences.pdf",
        "fr_slides_provisionnement_IARD.pdf",
    ]
    skipped = marked = 0
    for name in names:
        with pymupdf.open(corpus_dir / name) as pdf:
            for page in pdf:
                page.remove_rotation()  # as the layout analysis does before reading
                blocks = _layout_text_blocks(page)
                assert watermark_boxes(page, blocks) == watermark_boxes(page), (name, page.number + 1)
                if not any(line["dir"] != (1.0, 0.0) for b in blocks for line in b["lines"]):
                    skipped += 1
                    assert watermark_boxes(_NoTextLayer(page), blocks) == []  # type: ignore[arg-type]
                marked += bool(watermark_boxes(page))
    assert marked >= 40  # every page of the vignette: the pre-check let them through
    assert skipped > 20  # and most other pages were not read again
