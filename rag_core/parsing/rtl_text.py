"""Right-to-left text (Arabic, Persian, Hebrew) of the text layer, in reading order.

The layout model's text lines come from a text page without ligatures preserved: MuPDF then
expands an Arabic lam-alef ligature in the reverse order ("اإلنتاجية" for "الإنتاجية"). Lines
holding right-to-left letters are read again here from a text page that keeps the ligatures
(PyMuPDF's default flags); `unicode_text.clean_text` then turns the presentation forms into
letters in logical order. The order of the spans of a right-to-left line, and the spaces
between them, are `layout_text.line_from_spans`'s work. It does not reorder the characters
inside a span: MuPDF gives them in logical order.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import pymupdf

_RTL_CLASSES = frozenset({"R", "AL"})


def has_rtl(text: str) -> bool:
    """Whether the text holds a right-to-left letter."""
    return any(not ch.isascii() and unicodedata.bidirectional(ch) in _RTL_CLASSES for ch in text)


class RtlSpans:
    """Spans of one page's text layer, ligatures kept, read once and only when asked for."""

    def __init__(self, page: pymupdf.Page) -> None:
        self._page = page
        self._spans: list[dict] | None = None

    def for_line(self, bbox: Sequence[float], spans: Sequence[dict]) -> Sequence[dict]:
        """The spans of the line at `bbox`, read again when `spans` hold right-to-left text."""
        if not any(has_rtl(s.get("text") or "") for s in spans):
            return spans
        if self._spans is None:
            self._spans = [
                s
                for blk in self._page.get_text("dict")["blocks"]
                for ln in blk.get("lines", [])
                for s in ln.get("spans", [])
            ]
        x0, y0, x1, y1 = bbox
        found = [
            s
            for s in self._spans
            if x0 - 1 <= (s["bbox"][0] + s["bbox"][2]) / 2 <= x1 + 1
            and y0 - 1 <= (s["bbox"][1] + s["bbox"][3]) / 2 <= y1 + 1
        ]
        return found or spans
