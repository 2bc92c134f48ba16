"""Headings the PDF itself declares: its outline (bookmarks) and labelled numbering.

The layout model misses headings printed in the body's size (EIOPA's "Guideline 12 – ..." in
italics), merges a heading into its paragraph, or takes a formula's "where" for one. Two
signals the PDF gives are trusted above the model:

- the outline (`get_toc`): each entry's title is looked for, line by line, on the page it
  points at (then the page after it: some outlines point at the page before); the lines that
  spell it become a heading block of their own, split from the block that held them;
- a labelled number at the start of a block ("Guideline 12 – Data quality", "Article 5",
  "Article L. 123-4", "Orientation 3", "Chapitre 2", "Annex I"): that line (and its
  continuation lines, while the title has not ended) is a heading, whatever its size.

Two more from the PDF's numbering: a labelled line that no layout block holds ("Section 3:
Assumptions" under EIOPA's logo, which the layout model left out) becomes a heading block of its
own, and in a text of labelled units, a one-line paragraph printed at the units' left edge just
above a unit's heading ("Treatment of financial guarantees and contractual options" above
"Guideline 35 – ...") is the topic heading that groups them.

And four rules the other way: a heading that is a piece of a sentence or a byline (`fragments`:
"puis", "Comme", "~ with", an author's name under the title) is text; a "heading" that opens with
a word that continues a sentence or a formula ("where", "with", "so that", "où", "avec") is text,
so is a displayed equation the layout took for a heading ("PSAP = (1 − pc) × Primes acquises",
under "on a calculé les PSAP en suivant cette formule :") unless it is numbered, labelled or an
outline entry ("2.4.3 Connaître la loi de N = M1 + M2" stays), and so is a logo's brand name
("Redpaper ™").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag_core.parsing.document_builder import Block
from rag_core.parsing.fragments import byline, sentence_fragment
from rag_core.parsing.heading_blocks import body_size
from rag_core.parsing.headings import labelled_heading, labelled_unit
from rag_core.parsing.layout_text import Line, fold_key, middle_in, union_bbox

MAX_LINES = 3  # an outline title or a labelled heading spans at most this many lines
MAX_LABELLED_WORDS = 25
BODY_TOLERANCE = 0.5  # points: a labelled line this much smaller than the body text is a margin's label
_HEADING_KINDS = ("heading", "title")
_SEARCHED_KINDS = ("heading", "title", "text", "list", "caption")
_CONTINUATION = re.compile(r"^(?:where|with|so that|such that|and|or|then|hence|thus|i\.e\.|où|avec|soit|donc|et|ou)\b")
_LEAD_IN = re.compile(r"^(?:where|with|so that|such that|où|avec|soit)\b", re.IGNORECASE)
# "2.3 ", "IV. ", "III Annexes" (a part number), "• 4.3 " (a bullet the layout read before a section number)
_LEADING_NUMBER = re.compile(
    r"^\s*(?:[•‣◦▪●○■□➢➤►▶]\s*)?(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.|[IVX]{1,5}(?=\s+[A-ZÀ-Ý])|[A-Z]\.)\s+"
)


def continues_sentence(text: str) -> bool:
    """A line that carries on the sentence or formula above it ("where", "with", "so that"), or
    leads into what follows ("Where", "With respect to premium provisions:")."""
    text = text.strip()
    if _CONTINUATION.match(text):
        return True
    return bool(_LEAD_IN.match(text)) and (len(text.split()) <= 2 or text.endswith(":"))


# an equals sign (or an order sign) between two operands: "Prime acquises_i = Prime acquises_i−1 × 1.04"
_EQUATION = re.compile(r"[\w)\]}|]\s*(?:=|≤|≥|≈|≠)\s*[\w(\[{|−-]")


def displayed_equation(text: str) -> bool:
    """A line that states an equation and carries no section number or label: a formula printed on a
    line of its own, which the layout may take for a heading (it is short and set apart)."""
    return bool(_EQUATION.search(text)) and not _LEADING_NUMBER.match(text) and not labelled_heading(text)


_MARK_SIGNS = ("™", "®", "℠")
MAX_WORDMARK_WORDS = 3


def wordmark(text: str) -> bool:
    """A brand name printed as a logo ("Redpaper ™", "Acme®"): a few words that end with a
    trademark sign. Large and bold, but it names a product, not a part of the document."""
    words = text.split()
    return 0 < len(words) <= MAX_WORDMARK_WORDS and text.rstrip().endswith(_MARK_SIGNS)


PageLines = Callable[[int], Sequence[Line]]  # a page's text-layer lines, in reading order


def apply_outline(blocks: Sequence[Block], toc: Sequence[Sequence], page_lines: PageLines | None = None) -> list[Block]:
    """The blocks with every outline entry found on its page, and every labelled line, a heading.

    An entry spelled by no block of its page is looked for in the page's text-layer lines
    (`page_lines`) that no body block holds: a heading the layout missed, or the section's name
    printed only in a slide's navigation bar. Those lines become a heading block of their own,
    placed before the first body block below them."""
    bodies: dict[int, float] = {}
    for page in {b.page_no for b in blocks}:
        bodies[page] = body_size([b for b in blocks if b.page_no == page])
    out = [b for block in blocks for b in _labelled_split(block, bodies.get(block.page_no, 0.0))]
    entry_keys = [_keys(str(e[1])) for e in toc if len(e) >= 3]
    for entry in toc:
        if len(entry) < 3 or not str(entry[1]).strip():
            continue
        title, page = str(entry[1]), int(entry[2])
        if any(_mark(out, title, candidate) for candidate in (page, page + 1)):
            continue
        if page_lines is not None:
            any(_mark_unboxed(out, title, candidate, page_lines, entry_keys) for candidate in (page, page + 1))
    if page_lines is not None and sum(_labelled_block(b) for b in out) >= MIN_LABELLED:
        _mark_unboxed_labelled(out, page_lines)
    _mark_topics(out)
    first_page = min((b.page_no for b in out), default=0)
    for index, block in enumerate(out):
        text = " ".join(line.text for line in block.lines)
        if block.kind != "heading":
            continue
        declared = any(_keys(text) & keys for keys in entry_keys)
        if continues_sentence(text) or wordmark(text):
            block.kind = "text"
        elif displayed_equation(text) and not declared:
            block.kind = "text"
        elif not declared and not _LEADING_NUMBER.match(text) and not labelled_heading(text):
            if sentence_fragment(text) or (block.page_no == first_page and _under_title(out, index) and byline(text)):
                block.kind = "text"
    return out


MIN_LABELLED = 2  # labelled headings in a document before its text layer is searched for those the layout missed
MAX_TOPIC_WORDS = 12
_LEFT_EDGE_PT = 2.0
_BODY_KINDS = ("text", "list")
MIN_PARAGRAPH_WORDS = 8


def _labelled_block(block: Block) -> bool:
    return block.kind in _HEADING_KINDS and bool(block.lines) and labelled_heading(block.lines[0].text)


def _mark_unboxed_labelled(blocks: list[Block], page_lines: PageLines) -> None:
    """A heading block for each labelled line ("Section 3: Assumptions") of the text layer that lies
    in no block of its page, outside the running header and footer."""
    for page in sorted({b.page_no for b in blocks}):
        on_page = [b for b in blocks if b.page_no == page]
        for line in page_lines(page):
            if not labelled_heading(line.text) or len(line.text.split()) > MAX_LABELLED_WORDS:
                continue
            if any(_holds(b, line) or middle_in(line.bbox, b.bbox) for b in on_page):
                continue
            heading = Block("heading", page, line.bbox, lines=[line])
            blocks.insert(_position(blocks, heading), heading)


def _mark_topics(blocks: list[Block]) -> None:
    """In a text of labelled units, a one-line paragraph at a unit heading's left edge just above
    it, shaped as a name (short, no final stop, not a fragment), becomes a heading."""
    if sum(b.kind in _HEADING_KINDS and bool(b.lines) and labelled_unit(b.lines[0].text) for b in blocks) < 3:
        return
    body = [b for b in blocks if b.kind not in _FURNITURE_KINDS]
    for block, after in zip(body, body[1:]):
        if block.kind != "text" or len(block.lines) != 1 or after.kind not in _HEADING_KINDS or not after.lines:
            continue
        text = block.lines[0].text.strip()
        if not labelled_unit(after.lines[0].text) or abs(block.bbox[0] - after.bbox[0]) > _LEFT_EDGE_PT:
            continue
        if len(text.split()) <= MAX_TOPIC_WORDS and not text.endswith((".", ":", ";", ",")):
            if not sentence_fragment(text):
                block.kind = "heading"


def _under_title(blocks: Sequence[Block], index: int) -> bool:
    """The block comes after its page's first heading, printed smaller than the headings above it
    (a byline is; a report's real title under its school's name is larger), no paragraph between."""
    page = blocks[index].page_no
    before = [b for b in blocks[:index] if b.page_no == page]
    first = next((i for i, b in enumerate(before) if b.kind in _HEADING_KINDS), None)
    if first is None:
        return False
    above = max((line.size for b in before if b.kind in _HEADING_KINDS for line in b.lines), default=0.0)
    if max((line.size for line in blocks[index].lines), default=0.0) > above - BODY_TOLERANCE:
        return False
    return not any(
        b.kind in _BODY_KINDS and sum(len(line.text.split()) for line in b.lines) >= MIN_PARAGRAPH_WORDS
        for b in before[first + 1 :]
    )


def without_number(title: str) -> str:
    """The title without its leading section or part number ("2.3 ", "IV. ", "III Annexes")."""
    return _LEADING_NUMBER.sub("", title)


def _keys(text: str) -> set[str]:
    """The title's loose keys: as printed, and without its leading number ("2.3 ", "IV.")."""
    if not without_number(f"{text} ").strip():
        return set()  # a section number alone ("3.1.1") is no title yet
    keys = {fold_key(text), fold_key(without_number(text))}
    return {k for k in keys if len(k) >= 2}


def _mark(blocks: list[Block], title: str, page: int) -> bool:
    """Make the lines spelling `title` on `page` a heading block; False when not found there."""
    targets = _keys(title)
    if not targets:
        return False
    for index, block in enumerate(blocks):
        if block.page_no != page or block.kind not in _SEARCHED_KINDS:
            continue
        for start in range(len(block.lines)):
            end = _spelled(block, start, targets)
            if end is not None:
                # a block the layout already took for a heading stays whole (its number may stand alone)
                if block.kind not in _HEADING_KINDS:
                    blocks[index : index + 1] = _split(block, start, end)
                return True
    return False


_FURNITURE_KINDS = ("header", "footer")
_SAME_BOX_PT = 3.0


def _mark_unboxed(
    blocks: list[Block], title: str, page: int, page_lines: PageLines, entry_keys: Sequence[set[str]] = ()
) -> bool:
    """A heading block made of the text-layer lines of `page` that spell `title` and lie in no
    body block; False when there are none. Lines in the page's running header or footer count
    only when they spell two entries or more (a slide's navigation bar): a running title that
    repeats the document's name (a paper's page header) is not where its section starts."""
    targets = _keys(title)
    held = [b for b in blocks if b.page_no == page and b.kind not in _FURNITURE_KINDS]
    free = [line for line in page_lines(page) if line.text and not any(_holds(b, line) for b in held)]
    furniture = [b for b in blocks if b.page_no == page and b.kind in _FURNITURE_KINDS]
    running = [line for line in free if any(middle_in(line.bbox, b.bbox) for b in furniture)]
    navigation = len({i for line in running for i, keys in enumerate(entry_keys) if _keys(line.text) & keys}) >= 2
    probe = Block("text", page, (0.0, 0.0, 0.0, 0.0), lines=free)
    for start in range(len(free)):
        end = _spelled(probe, start, targets) if targets else None
        if end is None:
            continue
        lines = free[start:end]
        if not navigation and all(line in running for line in lines):
            continue
        heading = Block("heading", page, union_bbox(line.bbox for line in lines) or lines[0].bbox, lines=lines)
        blocks.insert(_position(blocks, heading), heading)
        return True
    return False


def _holds(block: Block, line: Line) -> bool:
    """The block has this very line (same box), as a line of its own, of a child, or a table
    cell. Not a box drawn over it: the layout may draw a table's box over the paragraphs and
    headings around it, or join a slide's navigation bar into one block whose lines run
    across its columns."""
    boxes = [ln.bbox for ln in block.lines] + [ln.bbox for child in block.children for ln in child.lines]
    boxes += [cell.bbox for cell in block.cells if cell.text]
    return any(all(abs(a - b) <= _SAME_BOX_PT for a, b in zip(box, line.bbox)) for box in boxes)


def _position(blocks: list[Block], heading: Block) -> int:
    """Before the first body block of the heading's page that starts below it in its column,
    else after the page's last block."""
    top, left, right = heading.bbox[1], heading.bbox[0], heading.bbox[2]
    after = None
    for index, block in enumerate(blocks):
        if block.page_no < heading.page_no:
            after = index + 1
            continue
        if block.page_no > heading.page_no:
            return after if after is not None else index
        after = index + 1
        overlaps = block.bbox[0] < right and left < block.bbox[2]
        if block.kind not in _FURNITURE_KINDS and block.bbox[1] >= top - 1 and overlaps:
            return index
    return after if after is not None else len(blocks)


def _spelled(block: Block, start: int, targets: set[str]) -> int | None:
    """The end (exclusive) of the lines from `start` whose text is one of `targets`."""
    text = ""
    for end in range(start, min(start + MAX_LINES, len(block.lines))):
        text = f"{text} {block.lines[end].text}"
        keys = _keys(text)
        if keys & targets:
            return end + 1
        if keys and not any(t.startswith(k) for t in targets for k in keys):
            return None  # (a section number alone on its line has no key yet: read on)
    return None


def _split(block: Block, start: int, end: int) -> list[Block]:
    """[lines before, the heading, lines after], each part that has lines."""
    if block.kind in _HEADING_KINDS and (start, end) == (0, len(block.lines)):
        return [block]
    kind = "text" if block.kind in _HEADING_KINDS else block.kind
    parts = [(kind, block.lines[:start]), ("heading", block.lines[start:end]), (kind, block.lines[end:])]
    return [
        Block(part_kind, block.page_no, union_bbox(line.bbox for line in lines) or block.bbox, lines=lines)
        for part_kind, lines in parts
        if lines
    ]


def _labelled_split(block: Block, body: float = 0.0) -> list[Block]:
    """A block that opens with a labelled heading line: [heading, rest]. The heading takes the
    lines after the first while the title has not ended (no full stop, same size, few words).
    A labelled line printed smaller than the page's body text (`body`) is a margin's label
    ("Chapter 1." in 7 points beside a chapter's title), not a heading."""
    if block.kind not in _SEARCHED_KINDS or not block.lines or not labelled_heading(block.lines[0].text):
        return [block]
    if body and block.lines[0].size < body - BODY_TOLERANCE and block.kind not in _HEADING_KINDS:
        return [block]
    end, words = 1, len(block.lines[0].text.split())
    first_size = block.lines[0].size
    while end < min(len(block.lines), MAX_LINES) and not block.lines[end - 1].text.rstrip().endswith((".", ":", ";")):
        line = block.lines[end]
        words += len(line.text.split())
        if abs(line.size - first_size) > 0.25 or words > MAX_LABELLED_WORDS or not line.text[:1].islower():
            break
        end += 1
    if len(" ".join(line.text for line in block.lines[:end]).split()) > MAX_LABELLED_WORDS:
        return [block]
    return _split(block, 0, end)
