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
  (`answering.announcements`, read by the question's search: `rag_core.question.announced`);
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
from rag_core.models import RetrievedParent

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
# a list item that names its place in the list with a word and a count: "- Method 3) To approximate ...",
# "Étape 2 : ...", "Level 1:"; the word is the list's own, so "Method 3" continues "Method 2"
_LABELLED = re.compile(r"^\s*(?:[-–•]\s+)?([^\W\d_]{3,})\s+(\d{1,2})\s*[):.–-]\s")


@dataclass(frozen=True)
class Unit:
    """Lines `start` to `end` (exclusive) of a parent, read from `first` (the whole first line unless
    the unit starts with the announcing sentence of that line)."""

    start: int
    end: int
    first: str
    cut: bool = False  # more of the unit follows `end` (a title past `MAX_UNIT_CHARS`)
    skipped: tuple[tuple[int, int], ...] = ()  # line ranges inside it quoted as `CUT_MARK` (a list's asides)


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
    return _block(lines, start, number)[0]


def _block(lines: Sequence[str], start: int, number: int | None) -> tuple[int, tuple[tuple[int, int], ...]]:
    """`_items_end`, and a list of labelled items ("Method 1)", "Method 2)") that goes on after an aside:
    the block runs on to the item whose label continues the count ("Method 3)" further down, before the
    next numbered paragraph or title), the aside's lines being returned as skipped ranges."""
    end, next_item = start + 1, 1
    labels: dict[str, int] = {}
    skipped: list[tuple[int, int]] = []
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
            resumed = _resumes(lines, end, labels, number)
            if resumed is None:
                break
            skipped.append((end, resumed))
            end = resumed
            line = lines[end]
        label = _LABELLED.match(line)
        if label:
            labels[label.group(1).lower()] = int(label.group(2))
        end += 1
    while skipped and skipped[-1][1] >= end:  # never end on an aside
        end = skipped.pop()[0]
    return end, tuple(skipped)


MAX_ASIDE_LINES = 40  # the most lines between two labelled items of one list


def _resumes(lines: Sequence[str], at: int, labels: dict[str, int], number: int | None) -> int | None:
    """The line after `at` that holds the next labelled item of the block's list (its label's count plus
    one), when no numbered paragraph after `number` nor a title comes first; None otherwise."""
    if not labels:
        return None
    for i in range(at, min(len(lines), at + MAX_ASIDE_LINES)):
        n = _number(lines[i])
        if _TITLE.match(lines[i]) or (n is not None and (number is None or n > number)):
            return None
        label = _LABELLED.match(lines[i])
        if label and labels.get(label.group(1).lower()) == int(label.group(2)) - 1:
            return i
    return None


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
    `split` cuts a line into sentences (as the candidates were cut), to find a list's announcing one.
    A unit never ends on an announcement: what its last line announces comes with it (`_announced`)."""
    if not 0 <= line_no < len(lines):
        return None
    unit = _unit_of(lines, line_no, sentence, split)
    alone = unit is None
    if alone and sentence.rstrip().endswith(":") and lines[line_no].rstrip().endswith(sentence.rstrip()):
        unit = Unit(line_no, line_no + 1, sentence.strip())
    if unit is None or unit.cut:
        return unit
    end, notes = _announced(lines, unit.end)
    if end == unit.end:
        return None if alone else unit
    return Unit(unit.start, end, unit.first, unit.cut, unit.skipped + notes)


def _announced(lines: Sequence[str], end: int) -> tuple[int, tuple[tuple[int, int], ...]]:
    """`end`, moved past what the line before it announces (it ends with a colon): the paragraph, formula or
    list items that follow, chained over at most `MAX_CHAINED` lines; and the page's footnotes set between
    the announcement and the items or formula it announces, as skipped ranges (quoted as `CUT_MARK`, never
    as the items)."""
    added, notes = 0, []
    while end < len(lines) and lines[end - 1].rstrip().endswith(":") and added < MAX_CHAINED:
        past = _past_notes(lines, end)
        if past > end and (_is_item(lines[past]) or _DISPLAY_MATH.match(lines[past])):
            if any(line.strip() for line in lines[end:past]):  # blank lines are left out of a quote anyway
                notes.append((end, past))  # notes, then items or a formula: what the announcement announces
        else:
            past = end  # notes, then prose: nothing says the prose is what was announced
        following = lines[past] if past < len(lines) else ""
        if _is_item(following):
            return _before_sibling(lines, end - 1, past, _items_end(lines, past - 1, None)), tuple(notes)
        if not following or _FOOTNOTE.match(following) or not (_plain(following) or _DISPLAY_MATH.match(following)):
            break  # a footnote the page set below the announcement ("4 An example ...") is not what it announces
        end, added = past + 1, added + 1
    return end, tuple(notes)


_DOTTED = re.compile(r"^\s*(?:[-–•]\s+)?\d{1,2}\.\d{1,3}\.?\s+(?=[^\W\d_])")  # "- 1.10. If ...": a paragraph's number


def _before_sibling(lines: Sequence[str], announcing: int, start: int, end: int) -> int:
    """`end`, or the first line from `start` that opens the next paragraph of the announcing line's own
    numbering ("- 1.9. ... as follows:" then items, then "- 1.10."): the items stop there."""
    if not _DOTTED.match(lines[announcing]):
        return end
    return next((i for i in range(start, end) if _DOTTED.match(lines[i])), end)


def _past_notes(lines: Sequence[str], at: int) -> int:
    """The first line from `at` that is not a footnote of the page's foot nor blank ("1 OJ L 331, ..."
    between an announcement and its items, where the page break fell), looking over at most
    `MAX_NOTE_LINES`; `at` itself when no such run of notes ends there."""
    end = at
    while end < len(lines) and end - at < MAX_NOTE_LINES and (_FOOTNOTE.match(lines[end]) or not lines[end].strip()):
        end += 1
    if end == at or end == len(lines) or end - at >= MAX_NOTE_LINES:
        return at
    return end


_FOOTNOTE = re.compile(r"^\s*\d{1,2}\s+[^\W\d_]")  # "4 An example ...": a note's number, no list marker
MAX_NOTE_LINES = 8  # footnotes between an announcement and what it announces: at most this many lines
_DISPLAY_MATH = re.compile(r"^\s*\$\$.+\$\$\s*$")  # a formula set on a line of its own ("$$z = n n + K$$")


def _list_start(lines: Sequence[str], line_no: int) -> int:
    """The first line of the block `line_no` belongs to: back over items and cut lines, and over an aside
    between two labelled items of one list ("Method 2)" ... an aside ... "Method 3)")."""
    start = line_no
    while True:
        while start > 0 and (_is_item(lines[start]) or _continues(lines[start - 1], lines[start])):
            start -= 1
        label = next((m for i in range(start + 1, line_no + 1) if (m := _LABELLED.match(lines[i]))), None)
        if label is None or start == line_no:
            return start
        word, count = label.group(1).lower(), int(label.group(2))
        for i in range(start, max(-1, start - MAX_ASIDE_LINES), -1):
            if _TITLE.match(lines[i]) or _number(lines[i]) is not None:
                return start
            m = _LABELLED.match(lines[i])
            if m and m.group(1).lower() == word and int(m.group(2)) == count - 1:
                if i == start:
                    return start
                start = i
                break
        else:
            return start


def _unit_of(lines: Sequence[str], line_no: int, sentence: str, split: Callable[[str], list[str]]) -> Unit | None:
    start = _list_start(lines, line_no)
    head = lines[start]
    number = _number(head)
    if number is not None:  # quoted from its number: a list marker the layout set before it is no text of it
        end, skipped = _block(lines, start, number)
        return Unit(start, end, _MARKER.sub("", head.strip(), count=1), skipped=skipped)
    if start == line_no and _TITLE.match(head):
        end, cut = _title_end(lines, start)
        return Unit(start, end, head.strip(), cut) if end > start + 1 else None
    if start == line_no:
        if line_no + 1 < len(lines) and _announcement(head, sentence, lines[line_no + 1]):
            end, skipped = _block(lines, start, None)
            if end > start + 1:
                return Unit(start, end, sentence.strip(), skipped=skipped)
        if sentence.strip() == head.strip() and _fragment(head):
            return _fragment_unit(lines, line_no)
        return None
    announcer = (split(head) or [""])[-1]
    if announcer and _announcement(
        head, announcer, lines[start + 1]
    ):  # a chosen item: with the sentence that announces it
        end, skipped = _block(lines, start, None)
        return Unit(start, end, announcer.strip(), skipped=skipped)
    return None


def unit_text(lines: Sequence[str], unit: Unit) -> str:
    """The unit as quoted: its first sentence (or line), then its lines as written, one a line (a line the
    page break cut off joins the one before), and `CUT_MARK` when it stops before its end."""
    out = [unit.first]
    for i in range(unit.start + 1, unit.end):
        if any(a <= i < b for a, b in unit.skipped):
            if any(a == i for a, _ in unit.skipped):
                out.append(CUT_MARK)
            continue
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
