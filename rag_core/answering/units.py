"""Whole units of a passage around a chosen sentence: what must be quoted together to be read right.

An extractive answer picks sentences; a sentence alone can mislead when it belongs to a larger
unit. Three units are kept whole here, read from the lines of the parent's text (the parser
writes one paragraph or list item per line, a list item with its marker):
- a numbered paragraph ("143. Insurance undertakings should ...", often written "- 143. ...")
  is quoted from its number to its end: its sentences, its list items and a line the page break
  cut off (a continuation starts in lower case after a line without final punctuation);
- a sentence that announces a list (it ends with a colon, or says "the following", "as follows",
  "suivants", or it ends its line without final punctuation right above a list item, as a slide's
  "Deux problèmes se posent néanmoins" or a heading does) is quoted with the items that follow it;
  one that ends with a colon above a paragraph (a formula, a rule) is quoted with that paragraph;
  one that ends its parent is quoted with the items the parents after it hold
  (`announced_items`, read by the question's search: `rag_core.question.announced`);
- a numbered title of a regulatory text ("Guideline 69 – ...", "Article 12", "Orientation 5")
  is quoted with its numbered paragraphs, up to `MAX_UNIT_CHARS` (the first paragraph always
  whole); a title cut there ends with `CUT_MARK` on a line of its own, so the reader knows that more
  of it follows in the document (the citation opens it).
- a fragment (a line of a few words without final punctuation: a table the layout set as lines of
  text, "Programme Full-Time" over "Leaders in Education Programme 7 months", or a heading inside
  the passage) is never quoted alone, since alone it says nothing: it is quoted with the run of such
  lines around it (`MAX_RUN` at most) when half of them hold a figure (a table's rows do; a slide's
  navigation bar does not), else with the paragraph below it (a heading over its text).
A chosen list item is quoted with the sentence that announces its list. Any other sentence is
quoted alone, as before. Nothing is generated: a unit is the document's own lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag_core.answering.evidence import is_code_like
from rag_core.models import Parent, RetrievedParent

MAX_UNIT_CHARS = 2000  # a title's paragraphs are cut (at a paragraph's end) past this length
CUT_MARK = "[…]"  # the last line of a title's quote that stops before its last paragraph

_NUMBERED = re.compile(r"^\s*(?:[-–•]\s+)?(\d{1,4})\.\s+(?=[^\W\d_])")
_MARKER = re.compile(r"^[-–•]\s+(?=\d)")  # "- 144. Two possible methods…": the bullet before a paragraph number
_ITEM = re.compile(r"^\s*(?:[-–—•▪●◦○■□➢►✓*]|\(?[a-zA-Z]\)|\(?[ivxIVX]{1,5}\)|\(?\d{1,2}\)|\d{1,2}\.(?=\s))\s+(?=\S)")
_TITLE = re.compile(
    r"^\s*(?:Guideline|Guidelines|Orientation|Orientations|Article|Recommendation|Recommandation|Principle|Principe)"
    r"\s+\d+[a-z]?\b",
    re.IGNORECASE,
)
_ANNOUNCES = re.compile(
    r"(?::\s*$|\b(?:the following|as follows|following (?:ones|items|steps|conditions|criteria))\b"
    r"|\b(?:suivant(?:e|s|es)?|ci-dessous|ci-après)\b\W*$)",
    re.IGNORECASE,
)
_FINAL = ".!?:;"


@dataclass(frozen=True)
class Unit:
    """Lines `start` to `end` (exclusive) of a parent, read from `first` (the whole first line unless
    the unit starts with the announcing sentence of that line)."""

    start: int
    end: int
    first: str
    cut: bool = False  # more of the unit follows `end` (a title past `MAX_UNIT_CHARS`)


def parent_lines(hit: RetrievedParent) -> list[str]:
    """The lines of the parent's text, child after child (the same lines the candidates are read from)."""
    return [line for child in (hit.children or [hit.best_child]) for line in child.text.splitlines()]


def _number(line: str) -> int | None:
    m = _NUMBERED.match(line)
    return int(m.group(1)) if m else None


def _is_item(line: str) -> bool:
    return bool(_ITEM.match(line)) and _number(line) is None


def _continues(prev: str, line: str) -> bool:
    """A line the page or column break cut off from the one before: no final punctuation before it,
    a lower-case start."""
    text = line.lstrip()
    return bool(text) and text[0].islower() and prev.rstrip()[-1:] not in _FINAL


def _items_end(lines: Sequence[str], start: int, number: int | None) -> int:
    """End of the block begun at `start`: its items and continuations; numbered lines are items when they
    count 1, 2, 3 ... (a list), a new paragraph when they follow `number` (the block's own number)."""
    end, next_item = start + 1, 1
    while end < len(lines):
        line, prev = lines[end], lines[end - 1]
        n = _number(line)
        if _TITLE.match(line):
            break
        if n is not None:
            if number is not None and n > number or n != next_item:
                break
            next_item += 1
        elif not (_is_item(line) or _continues(prev, line)):
            break
        end += 1
    return end


def _announcement(line: str, sentence: str, following: str = "") -> bool:
    """The chosen sentence ends its line and announces what follows: it says so (a colon, "the
    following", "suivants"), or it ends without final punctuation right above a list item (a slide's
    "Deux problèmes se posent néanmoins" over its bullets, a heading over its items)."""
    if not line.rstrip().endswith(sentence.rstrip()):
        return False
    if _ANNOUNCES.search(sentence):
        return True
    words = re.findall(r"[^\W\d_]{2,}", sentence)  # a heading or a sentence, not a page number or a formula
    return (
        sentence.rstrip()[-1:] not in _FINAL + ",)"
        and _is_item(following)
        and len(words) >= 2
        and not is_code_like(sentence)
    )


_COUNT_WORDS = {
    w: n
    for n, words in enumerate(
        [(), (), ("two", "deux"), ("three", "trois"), ("four", "quatre"), ("five", "cinq"), ("six",),
         ("seven", "sept"), ("eight", "huit"), ("nine", "neuf"), ("ten", "dix"), ("eleven", "onze"),
         ("twelve", "douze")]
    )
    for w in words
}  # fmt: skip
# a count before the plural noun it counts, maybe after one adjective: "4 areas", "two possible methods"
_COUNT = re.compile(r"\b(\d{1,2}|" + "|".join(_COUNT_WORDS) + r")\s+(?:[^\W\d_]+\s+)?[^\W\d_]+[sx]\b", re.IGNORECASE)
MAX_ANNOUNCED_ITEMS = 12  # a list longer than this is not read from the parents after its announcement


def closing_announcement(text: str, split: Callable[[str], list[str]]) -> str | None:
    """The sentence that ends `text` (a parent's) when it announces what follows in so many words (a
    colon, "the following", "suivants"): the list it announces is not in `text`. None otherwise."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or _is_item(lines[-1]) or _number(lines[-1]) is not None:
        return None
    sentence = (split(lines[-1]) or [""])[-1]
    if not sentence or is_code_like(sentence) or not _ANNOUNCES.search(sentence):
        return None
    return sentence.strip()


def announced_count(sentence: str) -> int | None:
    """How many items the sentence announces, when it says ("across 4 areas:", "deux méthodes :")."""
    found = [m.group(1).lower() for m in _COUNT.finditer(sentence)]
    counts = [int(w) if w.isdigit() else _COUNT_WORDS[w] for w in found]
    counts = [n for n in counts if 2 <= n <= MAX_ANNOUNCED_ITEMS]
    return counts[-1] if len(counts) == 1 else None


def announced_items(announcing: Parent, following: Sequence[Parent], sentence: str) -> list[Parent]:
    """The parents after `announcing` that hold the items of the list its last `sentence` announces:
    its subsections (their heading path extends its own; two at least, none a numbered section of the
    document), consecutive from the next parent; else, when
    the sentence says how many items there are, that many next parents under headings of one level (a
    layout that set each item as a heading beside the announcement). Nothing when neither holds."""
    path = announcing.heading_path
    subsections = []
    for parent in following[:MAX_ANNOUNCED_ITEMS]:
        if len(parent.heading_path) <= len(path) or parent.heading_path[: len(path)] != path or _sectioned(parent):
            break
        subsections.append(parent)
    if len(subsections) >= 2:
        return subsections
    count = announced_count(sentence)
    if count is None or len(following) < count:
        return []
    chosen = list(following[:count])
    depth = len(chosen[0].heading_path)
    if depth == 0 or any(
        len(p.heading_path) != depth or p.heading_path[:-1] != chosen[0].heading_path[:-1] or _sectioned(p)
        for p in chosen
    ):
        return []
    return chosen


_SECTION_NUMBER = re.compile(r"^\s*(?:\d{1,2}(?:\.\d{1,2})+\.?|\d{1,2}\.|[IVX]{1,5}\.|[A-Z]\.)\s")


def _sectioned(parent: Parent) -> bool:
    """The parent opens a numbered section of the document ("5.3.2.1 Exact fitting", "Guideline 12 – …"),
    not an item of a list: the document's own sections are never read as the items announced before them."""
    heading = parent.heading_path[-1] if parent.heading_path else ""
    return bool(_SECTION_NUMBER.match(heading) or _TITLE.match(heading))


def _title_end(lines: Sequence[str], start: int) -> tuple[int, bool]:
    """A numbered title with the numbered paragraphs under it, cut past `MAX_UNIT_CHARS`: the end, and
    whether a paragraph of it was left out there."""
    end, size = start + 1, len(lines[start])
    while end < len(lines):
        n = _number(lines[end])
        if n is None:
            break
        stop = _items_end(lines, end, n)
        size += sum(len(x) for x in lines[end:stop])
        if size > MAX_UNIT_CHARS and end > start + 1:
            return end, True
        end = stop
    return end, False


MAX_CHAINED = 4  # an announcement above a paragraph that announces a formula: at most this many lines


def _plain(line: str) -> bool:
    """A paragraph of prose: not a numbered title nor a numbered paragraph (a unit of its own), not a table
    row (the table answers through its cells) and not code or console output."""
    text = line.strip()
    return (
        bool(text)
        and not text.startswith("|")
        and not is_code_like(text)
        and not _TITLE.match(line)
        and _number(line) is None
    )


MAX_FRAGMENT_WORDS = 12  # a line of more words is a sentence even without its final punctuation
MAX_RUN = 10  # lines of a run of fragments quoted together (a table set as text: its header and rows)
MAX_RUN_BEFORE = 2  # of them, lines above the chosen one (a header row)
_WORD = re.compile(r"[^\W\d_]{2,}")  # a word of two letters or more (a fragment holds one)
_DIGIT = re.compile(r"\d")


def _fragment(line: str) -> bool:
    """A line of a few words that ends without final punctuation and is nothing else: no list item,
    numbered paragraph, title, table row or code (each of those is a unit or a row of its own)."""
    text = line.strip()
    return (
        _plain(line)
        and not _is_item(line)
        and text[-1:] not in _FINAL + ","
        and len(text.split()) <= MAX_FRAGMENT_WORDS
        and bool(_WORD.search(text))
    )


def _fragment_unit(lines: Sequence[str], line_no: int) -> Unit | None:
    """A chosen fragment with the run of fragments around it; alone in its run, with the prose paragraph
    below it (a heading over its text). None when there is nothing to quote it with."""
    start = line_no
    while start > max(0, line_no - MAX_RUN_BEFORE) and _fragment(lines[start - 1]):
        start -= 1
    end = line_no + 1
    while end < len(lines) and end - start < MAX_RUN and _fragment(lines[end]):
        end += 1
    if sum(bool(_DIGIT.search(x)) for x in lines[start:end]) * 2 < end - start:
        # a run of words only (a slide's navigation bar, a title page) is no table: the fragment alone
        start, end = line_no, line_no + 1
    if end - start == 1:
        if end < len(lines) and _plain(lines[end]) and not _is_item(lines[end]) and not _fragment(lines[end]):
            end += 1  # a heading with its paragraph (a list below it is an announcement's, handled before)
        else:
            return None
    if sum(len(x) for x in lines[start:end]) > MAX_UNIT_CHARS:
        return None
    return Unit(start, end, lines[start].strip())


def unit_of(lines: Sequence[str], line_no: int, sentence: str, split: Callable[[str], list[str]]) -> Unit | None:
    """The unit the chosen `sentence` (on line `line_no`) must be quoted with; None: the sentence alone.
    `split` cuts a line into sentences (as the candidates were cut), to find a list's announcing one."""
    if not 0 <= line_no < len(lines):
        return None
    start = line_no
    while start > 0 and (_is_item(lines[start]) or _continues(lines[start - 1], lines[start])):
        start -= 1
    head = lines[start]
    number = _number(head)
    if number is not None:  # quoted from its number: a list marker the layout set before it is no text of it
        return Unit(start, _items_end(lines, start, number), _MARKER.sub("", head.strip(), count=1))
    if start == line_no and _TITLE.match(head):
        end, cut = _title_end(lines, start)
        return Unit(start, end, head.strip(), cut) if end > start + 1 else None
    if start == line_no:
        if line_no + 1 < len(lines) and _announcement(head, sentence, lines[line_no + 1]):
            end = _items_end(lines, start, None)
            if end > start + 1:
                return Unit(start, end, sentence.strip())
            following = lines[line_no + 1]
            if sentence.rstrip().endswith(":") and _plain(following):
                end = start + 2  # what it announces is the paragraph after it (and what that one announces)
                while end < min(len(lines), start + MAX_CHAINED) and lines[end - 1].rstrip().endswith(":"):
                    if not _plain(lines[end]):
                        break
                    end += 1
                return Unit(start, end, sentence.strip())
        if sentence.strip() == head.strip() and _fragment(head):
            return _fragment_unit(lines, line_no)
        return None
    announcer = (split(head) or [""])[-1]
    if announcer and _announcement(
        head, announcer, lines[start + 1]
    ):  # a chosen item: with the sentence that announces it
        return Unit(start, _items_end(lines, start, None), announcer.strip())
    return None


def unit_text(lines: Sequence[str], unit: Unit) -> str:
    """The unit as quoted: its first sentence (or line), then its lines as written, one a line (a line the
    page break cut off joins the one before), and `CUT_MARK` when it stops before its end."""
    out = [unit.first]
    for i in range(unit.start + 1, unit.end):
        line = lines[i].strip()
        if not line:
            continue
        if _continues(lines[i - 1], line) and not _is_item(line):
            out[-1] += " " + line
        else:
            out.append(line)
    if unit.cut:
        out.append(CUT_MARK)
    return "\n".join(out)
