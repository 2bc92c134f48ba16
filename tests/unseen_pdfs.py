"""PDFs built here with PyMuPDF for the layouts the parser was not tuned on (deterministic).

- `picture_form`: a form drawn over a raster background, which the layout model calls a picture;
- `picture_chart`: a header band (a background image holding a logo) and a raster chart with
  vector axis labels, each a picture with text inside;
- `footer_only`: a figure and a page number, nothing else;
- `spread_scan`: two portrait pages side by side on one landscape sheet, as an image without a
  text layer (OCR reads it);
- `arabic`: Arabic text written as PDFs written by many tools store it: shaped glyphs
  (presentation forms, lam-alef ligatures) in visual order, one line as one run, one line
  as one run per word placed right to left (DejaVu Sans, Debian's fonts-dejavu-core);
- `decorated`: three pages with a strip image along the left edge and a logo;
- `report`: an ordinary report (headings, paragraphs, a list, a ruled table), for comparison;
- `image_headings`: a survey report whose chapter headings are images of their lines, their words
  given as the images' replacement text (a tagged PDF's ActualText), as some publishers print them.
"""

from __future__ import annotations

import random
from pathlib import Path

import pymupdf

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
ARABIC_LINE = "تعتبر الإنتاجية فعالة خلال السنة المالية"  # the text a reader reads (logical order)
# the same text as shaped glyphs (Arabic presentation forms), logical order
ARABIC_SHAPED = "ﺗﻌﺘﺒﺮ اﻹﻧﺘﺎﺟﻴﺔ ﻓﻌﺎﻟﺔ ﺧﻼل اﻟﺴﻨﺔ اﻟﻤﺎﻟﻴﺔ"


def _pixmap(width: int, height: int, grey: int) -> pymupdf.Pixmap:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, width, height), False)
    pix.clear_with(grey)
    return pix


def _logo() -> pymupdf.Pixmap:
    logo = _pixmap(60, 60, 200)
    for i in range(60):
        logo.set_pixel(i, i, (0, 0, 0))
        logo.set_pixel(59 - i, i, (0, 0, 200))
    return logo


def picture_form(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    background = _pixmap(200, 150, 230)
    for x in range(0, 200, 10):
        for y in range(150):
            background.set_pixel(x, y, (120, 140, 200))
    page.insert_image(pymupdf.Rect(60, 120, 540, 480), pixmap=background)
    for i in range(12):
        page.insert_text(
            (80, 150 + 25 * i),
            f"Field {i + 1}: policy holder name and address, contract number {1000 + i}",
            fontsize=11,
        )
    page.insert_text((60, 80), "Claim declaration form", fontsize=16)
    page.insert_text(
        (60, 520), "Please return this form to the insurer within thirty days after the loss.", fontsize=10
    )
    page.insert_text((280, 800), "Page 7", fontsize=9)
    doc.save(path)
    return path


def picture_chart(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    band = _pixmap(300, 60, 235)
    for x in range(300):
        for y in range(0, 60, 6):
            band.set_pixel(x, y, (180, 190, 230))
    chart = _pixmap(200, 120, 255)
    for x in range(10, 190):
        chart.set_pixel(x, 110, (0, 0, 0))
        yv = int(100 - 80 * (x / 190) ** 2)
        chart.set_pixel(x, yv, (200, 0, 0))
        chart.set_pixel(x, yv + 1, (200, 0, 0))
    for x in range(10, 190, 30):
        for y in range(110 - x // 3, 110):
            chart.set_pixel(x, y, (40, 40, 160))
            chart.set_pixel(x + 1, y, (40, 40, 160))
    page.insert_image(pymupdf.Rect(40, 20, 555, 120), pixmap=band)
    page.insert_image(pymupdf.Rect(50, 30, 130, 110), pixmap=_logo())
    page.insert_text((150, 60), "MUTUELLE DES ACTUAIRES", fontsize=20)
    page.insert_text((150, 85), "Direction technique, rapport actuariel 2024", fontsize=12)
    y = 160
    for para in range(3):
        for line in range(5):
            page.insert_text(
                (50, y),
                f"Paragraph {para + 1} line {line + 1}: the claims reserve is estimated by the chain ladder method",
                fontsize=10,
            )
            y += 13
        y += 14
    page.insert_image(pymupdf.Rect(100, 400, 500, 640), pixmap=chart)
    page.insert_text((110, 420), "Cumulative paid claims", fontsize=8)
    page.insert_text((300, 632), "Development year", fontsize=8)
    page.insert_text((100, 665), "Figure 1. Development of paid claims.", fontsize=10)
    doc.save(path)
    return path


def footer_only(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    figure = _pixmap(200, 150, 120)
    for x in range(200):
        figure.set_pixel(x, x * 150 // 200 % 150, (255, 0, 0))
    page.insert_image(pymupdf.Rect(100, 150, 500, 450), pixmap=figure)
    page.insert_text((280, 800), "Page 7", fontsize=9)
    doc.save(path)
    return path


SPREAD_VOCABULARY = (
    "the reserve of each accident year is estimated from development factors triangle and tail claims paid incurred"
).split()


def spread_scan(path: Path) -> Path:
    """30 lines per half page, each starting with L01..L30 (left) or R01..R30 (right)."""
    rng = random.Random(1)
    for _ in range(1200):  # this word sequence is one on which the layout boxes of OCR text meet at the gutter
        rng.choice(SPREAD_VOCABULARY)
    text_doc = pymupdf.open()
    page = text_doc.new_page(width=842, height=595)
    gutter = 16
    for side, x0 in (("L", 40), ("R", 421 + gutter / 2)):
        y = 60
        for number in range(30):
            line = f"{side}{number + 1:02d} " + " ".join(rng.choice(SPREAD_VOCABULARY) for _ in range(20))
            while pymupdf.get_text_length(line, fontsize=10) > 421 - gutter / 2 - 42:
                line = line.rsplit(" ", 1)[0]
            page.insert_text((x0, y), line, fontsize=10)
            y += 15
    scan = page.get_pixmap(dpi=150)
    doc = pymupdf.open()
    doc.new_page(width=842, height=595).insert_image(pymupdf.Rect(0, 0, 842, 595), pixmap=scan)
    doc.save(path)
    return path


def arabic(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    font = pymupdf.Font(fontfile=str(DEJAVU))
    # one run, glyphs in visual order (left to right on the page)
    page.insert_text((100, 100), ARABIC_SHAPED[::-1], fontfile=str(DEJAVU), fontname="dv", fontsize=14)
    # one run per word, placed from the right margin leftwards, no space character
    x = 500.0
    for word in ARABIC_SHAPED.split(" "):
        visual = word[::-1]
        x -= font.text_length(visual, 14)
        page.insert_text((x, 150), visual, fontfile=str(DEJAVU), fontname="dv", fontsize=14)
        x -= 8
    doc.save(path)
    return path


def decorated(path: Path) -> Path:
    doc = pymupdf.open()
    strip = _pixmap(20, 400, 60)
    for y in range(0, 400, 8):
        for x in range(20):
            strip.set_pixel(x, y, (200, 30, 30))
    logo = _logo()
    for number in range(3):
        page = doc.new_page()
        page.insert_image(pymupdf.Rect(0, 0, 36, 842), pixmap=strip)
        page.insert_image(pymupdf.Rect(60, 30, 110, 80), pixmap=logo)
        page.insert_text((120, 50), "Mutuelle des Actuaires", fontsize=12)
        page.insert_text((120, 66), "Rapport annuel 2024", fontsize=9)
        y = 140
        for para in range(5):
            for line in range(6):
                page.insert_text(
                    (70, y),
                    f"P{number + 1} paragraph {para + 1} line {line + 1}: the claims reserve is "
                    "estimated by chain ladder",
                    fontsize=10,
                )
                y += 13
            y += 14
    doc.save(path)
    return path


def report(path: Path) -> Path:
    """An ordinary two-page report: title, numbered headings, paragraphs, a list, a ruled table."""
    lorem = (
        "The chain ladder method estimates outstanding claims from cumulative payments. "
        "Development factors are the ratios of successive cumulative amounts, weighted by volume. "
    )
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Reserving Report 2025", fontsize=22, fontname="hebo")
    y = 110
    for heading, size in (("1 Claims data", 16), ("1.1 Payment triangles", 13)):
        page.insert_text((72, y), heading, fontsize=size, fontname="hebo")
        y += 22
        page.insert_textbox(pymupdf.Rect(72, y, 520, y + 80), lorem * 2, fontsize=10)
        y += 95
    for bullet in ("Paid claims by accident year", "Incurred claims by accident year"):
        page.insert_text((80, y), f"• {bullet}", fontsize=10)
        y += 16
    y += 20
    page.insert_text((72, y), "Table 1: Cumulative payments", fontsize=10, fontname="hebo")
    y += 8
    rows = [
        ["Year", "Dev 1", "Dev 2", "Dev 3"],
        ["2021", "100", "150", "170"],
        ["2022", "110", "160", "180"],
        ["2023", "120", "175", "190"],
    ]
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            cell = pymupdf.Rect(72 + c * 90, y + r * 20, 162 + c * 90, y + (r + 1) * 20)
            page.draw_rect(cell, color=(0, 0, 0), width=0.7)
            page.insert_text((cell.x0 + 5, cell.y1 - 6), text, fontsize=10)
    page.insert_text((280, 800), "Page 1", fontsize=8)
    page = doc.new_page()
    page.insert_text((72, 72), "2 Method", fontsize=16, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 90, 520, 200), lorem * 2, fontsize=10)
    page.insert_text((280, 800), "Page 2", fontsize=8)
    doc.save(path)
    return path


IMAGE_HEADINGS = (
    "Sharp divides in views of security issues, from use of force to defence budgeting",
    "Both publics differ in their views of international organisations",
)


def _text_image(words: str, width: float, height: float) -> bytes:
    """A PNG of one line of heading text (bold, dark blue on white), as a publisher's tool renders it."""
    scratch = pymupdf.open()
    page = scratch.new_page(width=width, height=height)
    page.insert_text((1, height * 0.78), words, fontsize=height * 0.8, fontname="hebo", color=(0.1, 0.2, 0.5))
    png = page.get_pixmap(dpi=200).tobytes("png")
    scratch.close()
    return png


def heading_lines(words: str, per_line: int = 5) -> list[str]:
    split = words.split()
    return [" ".join(split[i : i + per_line]) for i in range(0, len(split), per_line)]


def image_headings(path: Path) -> Path:
    """Three pages of a tagged PDF; on the second and third a chapter heading drawn as one image per line,
    each image marked content whose structure element (a Span under an H2) carries that line's words as
    its ActualText, as a publisher's tool writes them; body paragraphs in Helvetica around them."""
    body = (
        "Differences on security issues predominate when looking at the two publics' opinion. "
        "Majorities in one country say their country should defend an ally, while an equal share in "
        "the other say their country should not. "
    )
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Introduction", fontsize=14, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 90, 520, 300), body * 3, fontsize=10.5)
    root = doc.get_new_xref()
    parent_tree: list[str] = []
    headings: list[int] = []
    for number, heading in enumerate(IMAGE_HEADINGS):
        page = doc.new_page()
        element = doc.get_new_xref()
        spans: list[int] = []
        y = 90.0
        for mcid, line in enumerate(heading_lines(heading)):
            width = 9.0 * len(line)
            page.insert_image(pymupdf.Rect(72, y, 72 + width, y + 16), stream=_text_image(line, width, 16))
            xref = page.get_contents()[-1]
            doc.update_stream(xref, f"/P <</MCID {mcid}>> BDC".encode() + doc.xref_stream(xref) + b"EMC\n")
            span = doc.get_new_xref()
            words = (line + " ").replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            doc.update_object(
                span, f"<</Type/StructElem/S/Span/P {element} 0 R/Pg {page.xref} 0 R/K [{mcid}]/ActualText ({words})>>"
            )
            spans.append(span)
            y += 16
        kids = " ".join(f"{x} 0 R" for x in spans)
        doc.update_object(element, f"<</Type/StructElem/S/H2/P {root} 0 R/Pg {page.xref} 0 R/K [{kids}]>>")
        headings.append(element)
        doc.xref_set_key(page.xref, "StructParents", str(number))
        parent_tree.append(f"{number} [{kids}]")
        page.insert_textbox(pymupdf.Rect(72, y + 14, 520, y + 300), body * 3, fontsize=10.5)
        page.insert_text((280, 800), f"Page {doc.page_count}", fontsize=8)
    tree = doc.get_new_xref()
    doc.update_object(tree, f"<</Nums [{' '.join(parent_tree)}]>>")
    kids = " ".join(f"{x} 0 R" for x in headings)
    doc.update_object(root, f"<</Type/StructTreeRoot/K [{kids}]/ParentTree {tree} 0 R/ParentTreeNextKey 2>>")
    catalog = doc.pdf_catalog()
    doc.xref_set_key(catalog, "StructTreeRoot", f"{root} 0 R")
    doc.xref_set_key(catalog, "MarkInfo", "<</Marked true>>")
    doc.save(path)
    return path


BUILDERS = {
    "image_headings": image_headings,
    "picture_form": picture_form,
    "picture_chart": picture_chart,
    "footer_only": footer_only,
    "spread_scan": spread_scan,
    "arabic": arabic,
    "decorated": decorated,
    "report": report,
}
