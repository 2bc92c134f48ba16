"""PDFs built here with PyMuPDF for the answering tests: text a parser reads as written, laid out as the
documents that raised a question about answers were (deterministic).

- `headed_pages`: a report of pages, each a heading and its paragraphs;
- `schedule_lines`: a brochure's schedule set as lines of text, one name cut over two lines;
- `milestones_table`: a ruled table of words throughout between two paragraphs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf


def headed_pages(path: Path, pages: Sequence[Sequence[str]]) -> Path:
    """A report of A4 pages in Helvetica, each a 14-point heading (its first string) followed by its
    10.5-point paragraphs: text a parser reads as written, for tests that ask about named details."""
    doc = pymupdf.open()
    for paragraphs in pages:
        page = doc.new_page(width=595, height=842)
        y = 72.0
        for i, text in enumerate(paragraphs):
            size = 14 if i == 0 else 10.5
            box = pymupdf.Rect(72, y, 523, y + 200)
            left = page.insert_textbox(box, text, fontsize=size, fontname="helv")
            y += 200 - left + (14 if i == 0 else 10)
    doc.save(path)
    return path


def _titled_page(title: str, intro: str, intro_bottom: float) -> tuple[pymupdf.Document, pymupdf.Page]:
    """A new A4 document whose page opens with a bold title and an introductory paragraph."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), title, fontsize=18, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 100, 523, intro_bottom), intro, fontsize=10.5, fontname="helv")
    return doc, page


SCHEDULE_ROWS = (
    "Programme Full-Time",
    "Leaders in Education Programme 7 months",
    "Management and Leadership in",
    "Schools Programme 17 weeks",
    "Building Educational Bridges: Innovation for School Leaders 2 weeks",
)


def schedule_lines(path: Path) -> Path:
    """A brochure page whose schedule is a table set as lines of text (no rules, no columns): a header
    row, then each programme with its duration, one name cut over two lines, as a layout tool prints it."""
    doc, page = _titled_page(
        "Leadership Programmes",
        "Leadership learning is an integral part of the education system. Its purpose is to develop school "
        "leaders' capacity to meet the challenges of a complex and dynamic education system. The programmes "
        "below are open to officers nominated by the Ministry.",
        170,
    )
    y = 200.0
    for line in SCHEDULE_ROWS:
        page.insert_text((72, y), line, fontsize=10.5, fontname="helv")
        y += 30
    after = "Participants who wish to attend a programme may write in directly to the programme office."
    page.insert_textbox(pymupdf.Rect(72, y + 20, 523, y + 120), after, fontsize=10.5, fontname="helv")
    doc.save(path)
    return path


MILESTONES = (
    ("Stage", "Requirement", "Deadline"),
    ("Coursework", "Complete 30 modular credits of graded modules", "Month 24"),
    ("Qualifying examination", "Oral defence of the proposal before the committee", "Month 24"),
    ("Dissertation", "Submission of the written work for examination", "Month 60"),
)


def milestones_table(path: Path) -> Path:
    """A handbook page with a ruled table of words throughout (no figures but the month numbers): a header
    row over three rows of stages, between two paragraphs."""
    doc, page = _titled_page(
        "Programme milestones",
        "Each candidate follows the milestones of the table below. The graduate office reviews the "
        "progress of every candidate at the end of each semester and reports to the board.",
        160,
    )
    xs, top, height = (72, 200, 440, 523), 190, 40
    for r, row in enumerate(MILESTONES):
        y = top + r * height
        for c, text in enumerate(row):
            box = pymupdf.Rect(xs[c] + 4, y + 4, xs[c + 1] - 4, y + height - 2)
            assert page.insert_textbox(box, text, fontsize=9.5, fontname="hebo" if r == 0 else "helv") >= 0
    bottom = top + len(MILESTONES) * height
    for r in range(len(MILESTONES) + 1):
        page.draw_line((xs[0], top + r * height), (xs[-1], top + r * height), width=0.8)
    for x in xs:
        page.draw_line((x, top), (x, bottom), width=0.8)
    after = "Candidates who need more time may apply to the board for an extension of one semester."
    page.insert_textbox(pymupdf.Rect(72, bottom + 30, 523, bottom + 90), after, fontsize=10.5, fontname="helv")
    doc.save(path)
    return path
