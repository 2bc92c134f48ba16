"""A document's title, in order of trust: the PDF's metadata title when it is meaningful, the
largest text of the first page (read in column order), the heading the layout took for the title,
the file name.

A metadata title is meaningful when it is not junk ("Microsoft Word - x.doc", "My title", a file
name: `base.clean_metadata_title`) and most of its words are printed on the first pages: a
template's leftover ("Internet Electronic Journal of" on a working party's report) is not.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rag_core.parsing.base import clean_metadata_title
from rag_core.parsing.document_builder import Block, generic_heading

PAGES_CHECKED = 2  # the metadata title's words are looked for on this many first pages
WORDS_PRINTED = 0.6  # this share of its words must be printed there
SIZE_TOLERANCE = 0.5  # points: lines this close to the largest size are part of the title
MAX_TITLE_WORDS = 30
_WORD = re.compile(r"[^\W\d_]{3,}")
_SKIPPED_KINDS = ("header", "footer", "table", "contents", "picture", "formula")


def document_title(metadata_title: str | None, first_pages_text: str, blocks: Sequence[Block], fallback: str) -> str:
    """The title to show in the library; `fallback` (the layout's title, else the file name) when
    neither the metadata nor the first page gives one."""
    meta = clean_metadata_title(metadata_title)
    if meta and _printed(meta, first_pages_text):
        return meta
    return largest_first_page_text(blocks) or fallback


def _printed(title: str, text: str) -> bool:
    words = [w.lower() for w in _WORD.findall(title)]
    if not words:
        return False
    printed = set(w.lower() for w in _WORD.findall(text))
    return sum(w in printed for w in words) >= WORDS_PRINTED * len(words)


def largest_first_page_text(blocks: Sequence[Block]) -> str:
    """The lines of the first page printed in its largest size above its body text, in reading
    (column) order, when they read as a title (letters, a few words, not "Contents"); the next
    size down when the largest is such a generic heading or has hardly a letter; '' otherwise."""
    first = min((b.page_no for b in blocks), default=0)
    lines = [
        line for b in blocks if b.page_no == first and b.kind not in _SKIPPED_KINDS for line in b.lines if line.text
    ]
    if not lines:
        return ""
    sizes = Counter[float]()
    for line in lines:
        sizes[round(line.size * 2) / 2] += len(line.text)
    body = sizes.most_common(1)[0][0]
    largest = max(sizes)  # a cover whose title holds most of its characters: its body is its title
    for top in sorted((s for s in sizes if s > body + SIZE_TOLERANCE or s == largest), reverse=True):
        title = " ".join(" ".join(ln.text for ln in lines if abs(ln.size - top) <= SIZE_TOLERANCE).split())
        if generic_heading(title) or sum(ch.isalpha() for ch in title) < 4:
            continue  # "CONTRIBUTEURS", a big page number or logo: not the document's name
        if len(title.split()) > MAX_TITLE_WORDS:
            return ""
        return title
    return ""
