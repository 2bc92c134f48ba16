"""Text of layout boxes: spans into lines, lines into one item text with one charspan per line.

Pure functions over plain tuples: no PyMuPDF or Docling import, so they are easy to test.
Invariant: for every `(start, end, bbox)` returned, `text[start:end]` is that line's text
(without the hyphen removed by de-hyphenation).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rag_core.parsing.unicode_text import clean_text

BBox = tuple[float, float, float, float]  # x0, y0, x1, y1; top-left origin, points

# PyMuPDF sometimes drops the space between two spans; a horizontal gap wider than this
# share of the font size is a word break (NOTES.md, "Parsing").
SPACE_GAP_RATIO = 0.15

_WS = re.compile(r"\s+")
_BULLET = re.compile(r"^([•‣◦▪▫●○■□➢➤►▶✓✔–—\-\*·o])\s+")


@dataclass(frozen=True)
class Line:
    text: str
    bbox: BBox
    size: float = 0.0


@dataclass(frozen=True)
class Joined:
    text: str
    spans: list[tuple[int, int, BBox]]  # (start, end, line bbox)


def line_from_spans(spans: Sequence[dict], bbox: Iterable[float]) -> Line:
    """Concatenate PyMuPDF spans of one line, re-inserting lost spaces.

    A line whose letters are mostly right-to-left (Arabic, Hebrew) is read from its rightmost
    span to its leftmost; the gap between two spans is measured whichever side they are on.
    """
    parts: list[str] = []
    prev: tuple[float, float] | None = None
    max_size = 0.0
    spans = [s for s in spans if s.get("text")]
    if _right_to_left("".join(s["text"] for s in spans)):
        spans = sorted(spans, key=lambda s: -float(s["bbox"][2]))
    for span in spans:
        text = span["text"]
        size = float(span.get("size") or 0.0)
        max_size = max(max_size, size)
        x0, _, x1, _ = tuple(span["bbox"])
        if parts and prev is not None:
            gap = max(x0 - prev[1], prev[0] - x1)
            if gap > SPACE_GAP_RATIO * max(size, 1.0) and not parts[-1][-1:].isspace() and not text[:1].isspace():
                parts.append(" ")
        parts.append(text)
        prev = (x0, x1)
    text = _WS.sub(" ", clean_text("".join(parts))).strip()
    x0, y0, x1, y1 = tuple(bbox)
    return Line(text=text, bbox=(x0, y0, x1, y1), size=max_size)


def _right_to_left(text: str) -> bool:
    """More right-to-left letters than left-to-right ones."""
    rtl = ltr = 0
    for ch in text:
        if ch.isascii():
            ltr += ch.isalpha()
            continue
        kind = unicodedata.bidirectional(ch)
        rtl += kind in ("R", "AL")
        ltr += kind == "L"
    return rtl > ltr


def join_lines(lines: Sequence[Line]) -> Joined:
    """Join the lines of one paragraph with spaces; de-hyphenate 'actu-' + 'ariel'."""
    text = ""
    spans: list[tuple[int, int, BBox]] = []
    for line in lines:
        piece = line.text
        if not piece:
            continue
        if text:
            if _hyphenated(text, piece):
                text = text[:-1]
                start, _, box = spans[-1]
                spans[-1] = (start, len(text), box)
            else:
                text += " "
        start = len(text)
        text += piece
        spans.append((start, len(text), line.bbox))
    return Joined(text=text, spans=spans)


def _hyphenated(text: str, nxt: str) -> bool:
    return len(text) >= 2 and text.endswith("-") and text[-2].isalpha() and nxt[:1].islower()


def split_bullet(lines: list[Line]) -> tuple[str | None, list[Line]]:
    """Remove a leading bullet glyph from a list item's first line; return (marker, lines)."""
    for i, line in enumerate(lines):
        if not line.text:
            continue
        if len(line.text) == 1 and _BULLET.match(line.text + " "):  # the bullet alone on its line
            return line.text, lines[:i] + lines[i + 1 :]
        match = _BULLET.match(line.text)
        if not match or match.group(1) == "o" and not line.text.startswith("o "):
            return None, lines
        rest = line.text[match.end() :]
        return match.group(1), lines[:i] + [Line(rest, line.bbox, line.size)] + lines[i + 1 :]
    return None, lines


def clamp_bbox(bbox: Iterable[float], width: float, height: float) -> BBox:
    """Clip a box to the page so that every provenance box lies inside it."""
    x0, y0, x1, y1 = tuple(bbox)
    x0, x1 = sorted((min(max(x0, 0.0), width), min(max(x1, 0.0), width)))
    y0, y1 = sorted((min(max(y0, 0.0), height), min(max(y1, 0.0), height)))
    return (x0, y0, x1, y1)


def middle_in(bbox: Iterable[float], rect: Iterable[float]) -> bool:
    """The middle of `bbox` lies inside `rect` (edges included)."""
    x0, y0, x1, y1 = tuple(bbox)
    r0, r1, r2, r3 = tuple(rect)
    x, y = (x0 + x1) / 2, (y0 + y1) / 2
    return r0 <= x <= r2 and r1 <= y <= r3


def union_bbox(boxes: Iterable[BBox]) -> BBox | None:
    boxes = list(boxes)
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def fold_key(text: str) -> str:
    """Loose key to match a heading with a table-of-contents entry (ligatures as their letters)."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text).lower())
