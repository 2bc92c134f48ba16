"""A generated three-page report for the browser tests of the viewer (test_browser_quote_viewer.py).

Section 2 starts on page 1 and runs over page 2, short enough to be one passage (one child); the
one sentence that answers QUESTION is printed low on page 2, so the viewer must scroll to reach it:
a viewer that opens the passage's first page lands a page above the quote. Page 3 holds a
payments table whose cells are the figures of TABLE_QUESTION's answer. Generated with PyMuPDF so
that where each text lies is known (PyMuPDF's search is the independent ruler)."""

from __future__ import annotations

from pathlib import Path

QUESTION = "Which cost-of-capital rate is applied to the projected capital requirements?"
ANSWER = "cost-of-capital rate of 6 %"
TABLE_QUESTION = "What were the amounts for motor liability?"
NUMBER = "2 020"
ROWS = [
    ["Line of business", "12 months", "24 months", "36 months"],
    ["Household", "1 200", "1 850", "2 105"],
    ["Motor liability", "1 310", "2 020", "2 290"],
    ["Marine cargo", "1 415", "2 240", ""],
]
_FILLER = [
    "Technical provisions are valued as the sum of a best estimate and a margin for the uncertainty of the "
    "liabilities. The best estimate is the probability-weighted average of future cash flows, discounted with "
    "the relevant risk-free interest rate term structure.",
    "Cash flow projections include all premiums, claims, expenses and other payments within the contract "
    "boundary. Expected future profits in premiums are disclosed separately in the annual report.",
    "Homogeneous risk groups are formed by line of business and by currency; the projections of each group "
    "are reviewed every quarter by the actuarial function and compared with the experience of the period.",
    "Simplified methods are allowed when the error they introduce is not material; the actuarial function "
    "documents each simplification, the reason for it and an estimate of its effect on the provisions.",
    "Reinsurance recoverables are computed separately and adjusted for the expected loss due to the default "
    "of the counterparty, with the probability of default taken from its credit quality step.",
]
TARGET = (
    "The risk margin uses a cost-of-capital rate of 6 % applied to the projected capital requirements of "
    "each future year until the run-off of the portfolio."
)


def make_pdf(path: Path) -> Path:
    import pymupdf

    doc = pymupdf.open()
    first = doc.new_page()
    first.insert_text((72, 72), "Solvency valuation report", fontsize=20, fontname="hebo")
    first.insert_text((72, 110), "1 Scope", fontsize=14, fontname="hebo")
    first.insert_textbox(
        pymupdf.Rect(72, 120, 520, 180),
        "This report describes how the company values its technical provisions at the end of the year.",
        fontsize=10,
    )
    first.insert_text((72, 210), "2 Valuation of technical provisions", fontsize=14, fontname="hebo")
    y = 220
    for text in _FILLER[:3]:
        first.insert_textbox(pymupdf.Rect(72, y, 520, y + 70), text, fontsize=10)
        y += 80
    second = doc.new_page()
    y = 72
    for text in _FILLER[3:] + _FILLER[:2]:
        second.insert_textbox(pymupdf.Rect(72, y, 520, y + 70), text, fontsize=10)
        y += 80
    second.insert_textbox(pymupdf.Rect(72, 700, 520, 760), TARGET, fontsize=10)
    third = doc.new_page()
    third.insert_text((72, 72), "3 Claims payments", fontsize=14, fontname="hebo")
    third.insert_text((72, 100), "Table 1: Cumulative payments (thousands)", fontsize=10, fontname="hebo")
    x0, width, height, top = 72.0, 90.0, 20.0, 108.0
    for r, row in enumerate(ROWS):
        for c, text in enumerate(row):
            rect = pymupdf.Rect(x0 + c * width, top + r * height, x0 + (c + 1) * width, top + (r + 1) * height)
            third.draw_rect(rect, color=(0, 0, 0), width=0.7)
            if text:
                third.insert_text((rect.x0 + 5, rect.y1 - 6), text, fontsize=10)
    third.insert_textbox(
        pymupdf.Rect(72, 220, 520, 300),
        "Development factors are computed as ratios of column sums of the triangle.",
        fontsize=10,
    )
    doc.save(path)
    return path
