"""Which layout blocks of one page are headings (PyMuPDF backend), from their text and font sizes.

The layout model's "section-header" is right most of the time; here it is corrected with rules
that hold in any document:

- dropped: a "heading" without a letter or digit (a stray glyph such as a lone bullet);
- never a heading: one of a series of short text blocks printed alike (taglines), a list item,
  a formula, a line of code (a console prompt "R>", a call), a line that is only a number (a
  section number in its own box is joined to the heading on its right, else it is text), a
  sentence that ends with a full stop in the body's font size (a column's first line), a line
  in the body's size that starts in lower case (a sentence carried on from the column or slide
  before: "bilité au contrat. On peut démontrer que"), or more than a
  sentence;
- the lines at the end of a heading that are in the body's size and smaller than its first
  line are a paragraph (the layout model merged them);
- a heading: a line of a paragraph that is short and printed clearly larger than its other lines
  (a title merged into its paragraph), and a short line of text of two words or more printed far
  larger than the page's body text, outside the page's top and bottom margins;
- a chapter number printed alone and far larger than the body text (a 40-point "1" above a
  chapter's title) is part of the heading that comes next on its page, when nothing but
  pictures lies between them: "1 Securing and protecting data", not a stray "1";
- a heading wrapped over two lines that the layout boxed as two headings is one heading: the
  second comes right below the first (no wider gap than a line's spacing), in the same size,
  aligned with it (same left edge or same centre), and opens no numbered or labelled unit of
  its own ("THE ESTIMATION OF LOSS DEVELOPMENT TAIL" / "FACTORS: A SUMMARY REPORT").

The page's body size is the font size that holds most characters of its text and list blocks.
"""

from __future__ import annotations

import re
from collections import Counter

from rag_core.parsing.document_builder import Block
from rag_core.parsing.headings import labelled_heading, numbering_depth
from rag_core.parsing.layout_text import union_bbox

MAX_HEADING_WORDS = 20
SHORT_HEADING_WORDS = 10  # a promoted line is at most this long
FIRST_LINE_RATIO = 1.15  # a paragraph's first line this much larger than the rest is its title
LARGE_RATIO = 1.8  # a short line of text this much larger than the body text is a heading
WRAP_GAP_RATIO = 0.6  # of the font size: a wrapped heading's next line is no further below its first
ALIGN_CENTRE_SHARE = 0.05  # of the wider line: centred lines whose centres are this close are aligned
MARGIN_SHARE = 0.06  # of the page's height: the top and bottom bands where running titles are
SIZE_TOLERANCE = 0.25  # points: same size as the body
SERIES_EDGE_PT = 2.0  # blocks whose left edges are this close are aligned
_BULLET = re.compile(r"^[•‣◦▪●○■□➢➤►▶✓✔\-–—*·]\s")
_MATH = re.compile(r"[=+×∑∫√≤≥<>^_/]")
_NUMBER_ONLY = re.compile(r"^\(?(?:\d{1,3}(?:\.\d{1,3})*|[IVXivx]{1,5}|[A-Z])[.)]?$")
_CODE = re.compile(r"^(?:R?>|\$|>>>|In \[\d*\]:)\s|<-|^\w+\(.*\)$")  # a console prompt, R assignment, a call
_CHAPTER_NUMBER = re.compile(r"^\d{1,2}$")
_SENTENCE_END = re.compile(r"[.!?。…]$")
_ENUMERATION = re.compile(r"^\(?(?:[a-z]|[ivx]{1,4})[.)]\s")  # "a) Scope", "iv. Limits": a label, not a sentence
_LETTER = re.compile(r"[^\W\d_]")


def fix_headings(blocks: list[Block], page_height: float = 0.0) -> list[Block]:
    """The page's blocks with headings corrected (blocks may be split, joined or relabelled)."""
    body = body_size(blocks)
    out: list[Block] = []
    for block in blocks:
        if block.kind == "text" and body:
            out.extend(_split_title_line(block, body))
        elif block.kind in ("heading", "title") and body:
            out.extend(_split_body_lines(block, body))
        else:
            out.append(block)
    out = _join_numbers(out)
    for block in out:
        text = " ".join(line.text for line in block.lines)
        if block.kind == "heading" and not any(ch.isalnum() for ch in text):
            continue  # dropped below
        if block.kind == "heading":
            block.kind = "text" if _one_of_a_series(block, out, body) else heading_kind(text, block.font_size(), body)
        elif block.kind == "text" and body and _large_title(block, text, body, page_height):
            block.kind = "heading"
    out = _join_chapter_number(out, body, page_height)
    out = _join_wrapped(out)
    # a "heading" without a letter or digit is a stray glyph (a slide's lone bullet): nothing to keep
    return [b for b in out if b.kind != "heading" or any(ch.isalnum() for line in b.lines for ch in line.text)]


def body_size(blocks: list[Block]) -> float:
    """The font size of most characters of the page's paragraphs and list items (0 when none)."""
    chars: Counter[float] = Counter()
    for block in blocks:
        if block.kind in ("text", "list"):
            for line in block.lines:
                chars[round(line.size * 2) / 2] += len(line.text)
    return chars.most_common(1)[0][0] if chars else 0.0


def heading_kind(text: str, size: float = 0.0, body: float = 0.0) -> str:
    """ "heading", or what a false heading really is: "list", "formula" or "text"."""
    text = text.strip()
    if _BULLET.match(text):
        return "list"
    letters = sum(ch.isalpha() for ch in text)
    if _MATH.search(text) and letters < 0.6 * len(text.replace(" ", "")):
        return "formula"
    if _NUMBER_ONLY.match(text) or not _LETTER.search(text) or _CODE.search(text):
        return "text"
    words = len(text.split())
    if words > MAX_HEADING_WORDS or re.search(r"[.!?]\s+\S+.*[.!?]$", text) and words > 12:
        return "text"
    if body and size <= body + SIZE_TOLERANCE and numbering_depth(text) is None:
        if _SENTENCE_END.search(text):
            return "text"  # a sentence in the body's size: the first line of a column, not a title
        if text[:1].islower() and not _ENUMERATION.match(text):
            return "text"  # a sentence carried on from the column or slide before ("bilité au contrat…")
    return "heading"


def _short_title(text: str) -> bool:
    return (
        0 < len(text.split()) <= SHORT_HEADING_WORDS
        and not _SENTENCE_END.search(text)
        and bool(_LETTER.search(text))
        and not _BULLET.match(text)
    )


def _split_title_line(block: Block, body: float) -> list[Block]:
    """A paragraph holding a title line (short, clearly larger than its other lines): the lines
    before it, the title as a heading, and the lines after it."""
    if len(block.lines) < 2:
        return [block]
    for i, line in enumerate(block.lines):
        others = max(other.size for k, other in enumerate(block.lines) if k != i)
        if line.size >= FIRST_LINE_RATIO * others and line.size >= body - SIZE_TOLERANCE and _short_title(line.text):
            parts = [(block.kind, block.lines[:i]), ("heading", [line]), (block.kind, block.lines[i + 1 :])]
            out = [
                Block(kind, block.page_no, union_bbox(ln.bbox for ln in lines) or block.bbox, lines=lines)
                for kind, lines in parts
                if lines
            ]
            return out[:-1] + _split_title_line(out[-1], body) if out[-1].kind != "heading" else out
    return [block]


def _split_body_lines(block: Block, body: float) -> list[Block]:
    """A heading whose last lines are smaller than its first, and in the body's size or clearly
    smaller (authors under a title, a paragraph's first line): [heading, paragraph]."""
    first = block.lines[0].size if block.lines else 0.0

    def smaller(size: float) -> bool:
        return size < first - SIZE_TOLERANCE and (size <= body + SIZE_TOLERANCE or size * FIRST_LINE_RATIO <= first)

    cut = len(block.lines)
    while cut > 1 and smaller(block.lines[cut - 1].size):
        cut -= 1
    if cut == len(block.lines):
        return [block]
    head, rest = block.lines[:cut], block.lines[cut:]
    return [
        Block(block.kind, block.page_no, union_bbox(line.bbox for line in head) or block.bbox, lines=head),
        Block("text", block.page_no, union_bbox(line.bbox for line in rest) or block.bbox, lines=rest),
    ]


def _large_title(block: Block, text: str, body: float, page_height: float) -> bool:
    """A short line or two of text, of two words or more, printed far larger than the body text,
    away from the page's top and bottom margins (running titles, a publisher's name)."""
    margin = MARGIN_SHARE * page_height
    return (
        len(block.lines) <= 2
        and block.font_size() >= LARGE_RATIO * body
        and _short_title(text)
        and len(text.split()) >= 2
        and (not page_height or margin <= block.bbox[1] and block.bbox[3] <= page_height - margin)
    )


def _one_of_a_series(block: Block, blocks: list[Block], body: float) -> bool:
    """A "heading" larger than the body text printed like two or more short text blocks of its page
    (same size, same left edge): one of a series of taglines, like them. (Headings in the body's
    size, told apart by weight only, are left alone.)"""

    def short(b: Block) -> bool:
        return len(b.lines) <= 2 and len(" ".join(line.text for line in b.lines).split()) <= SHORT_HEADING_WORDS

    if not body or block.font_size() <= body + SIZE_TOLERANCE or not short(block):
        return False
    alike = [
        b
        for b in blocks
        if b is not block
        and b.kind == "text"
        and short(b)
        and abs(b.bbox[0] - block.bbox[0]) <= SERIES_EDGE_PT
        and abs(b.font_size() - block.font_size()) <= SIZE_TOLERANCE
    ]
    return len(alike) >= 2


def _join_numbers(blocks: list[Block]) -> list[Block]:
    """A section number in its own box ("1") joined to the heading on the same line to its right."""
    out: list[Block] = []
    used: set[int] = set()
    for i, block in enumerate(blocks):
        if i in used:
            continue
        text = " ".join(line.text for line in block.lines).strip()
        if block.kind == "heading" and len(block.lines) == 1 and _NUMBER_ONLY.match(text):
            partner = next(
                (
                    j
                    for j, other in enumerate(blocks)
                    if j != i and j not in used and other.kind == "heading" and _same_line_right(block, other)
                ),
                None,
            )
            if partner is not None:
                other = blocks[partner]
                used.add(partner)
                other.lines = [block.lines[0], *other.lines]
                other.bbox = union_bbox([block.bbox, other.bbox]) or other.bbox
                if partner < i:
                    continue  # already placed
                out.append(other)
                continue
        out.append(block)
    return out


def _same_line_right(number: Block, heading: Block) -> bool:
    n0, n_top, n1, n_bottom = number.bbox
    h0, h_top, _, h_bottom = heading.bbox
    first = heading.lines[0].bbox if heading.lines else heading.bbox
    overlap = min(n_bottom, first[3]) - max(n_top, first[1])
    return n1 <= h0 + 1 and h0 - n1 <= 60 and overlap >= 0.5 * min(n_bottom - n_top, first[3] - first[1])


def _join_chapter_number(blocks: list[Block], body: float, page_height: float) -> list[Block]:
    """A chapter number alone on its line, printed far larger than the body text and outside the
    page's margins, put at the start of the first heading below it when no text lies between
    them (see the module's docstring); the blocks otherwise unchanged."""
    margin = MARGIN_SHARE * page_height
    for number in blocks:
        text = " ".join(line.text for line in number.lines).strip()
        if (
            number.kind not in ("text", "heading")
            or len(number.lines) != 1
            or not _CHAPTER_NUMBER.match(text)
            or not body
            or number.font_size() < LARGE_RATIO * body
            or (page_height and not margin <= number.bbox[1] <= page_height - margin)
        ):
            continue
        below = sorted(
            (b for b in blocks if b is not number and b.bbox[1] >= number.bbox[3] - 1), key=lambda b: b.bbox[1]
        )
        first = next((b for b in below if b.kind not in ("picture", "header")), None)
        if first is None or first.kind != "heading" or numbering_depth(" ".join(ln.text for ln in first.lines)):
            continue
        first.lines = [number.lines[0], *first.lines]
        first.bbox = union_bbox([number.bbox, first.bbox]) or first.bbox
        return [b for b in blocks if b is not number]
    return blocks


def _join_wrapped(blocks: list[Block]) -> list[Block]:
    """Consecutive headings that are one heading wrapped over two boxes, joined (see the module's
    docstring); the blocks otherwise unchanged."""
    out: list[Block] = []
    for block in blocks:
        prev = out[-1] if out else None
        text = " ".join(line.text for line in block.lines).strip()
        if (
            prev is not None
            and block.kind == prev.kind
            and block.kind in ("heading", "title")
            and prev.page_no == block.page_no
            and prev.lines
            and block.lines
            and _wraps_onto(prev, block)
            and numbering_depth(text) is None
            and not labelled_heading(text)
            and not _SENTENCE_END.search(prev.lines[-1].text)
        ):
            prev.lines = [*prev.lines, *block.lines]
            prev.bbox = union_bbox([prev.bbox, block.bbox]) or prev.bbox
            continue
        out.append(block)
    return out


def _wraps_onto(first: Block, second: Block) -> bool:
    """`second` reads as the next line of `first`: same size, right below it, aligned with it."""
    last, nxt = first.lines[-1], second.lines[0]
    size = max(last.size, nxt.size)
    if not size or abs(last.size - nxt.size) > SIZE_TOLERANCE:
        return False
    gap = nxt.bbox[1] - last.bbox[3]
    if not -0.5 * size <= gap <= WRAP_GAP_RATIO * size:
        return False
    (l0, _, l1, _), (n0, _, n1, _) = last.bbox, nxt.bbox
    wider = max(l1 - l0, n1 - n0)
    same_left = abs(l0 - n0) <= SERIES_EDGE_PT
    same_centre = abs((l0 + l1) - (n0 + n1)) / 2 <= ALIGN_CENTRE_SHARE * wider
    return same_left or same_centre
