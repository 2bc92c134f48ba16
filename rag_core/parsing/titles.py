"""A document's title, in order of trust: the PDF's metadata title when it is meaningful, the
largest text of the first page (read in column order), the running header that names the
document, the heading the layout took for the title, the file name.

A metadata title is meaningful when it is not junk ("Microsoft Word - x.doc", "My title", a file
name: `base.clean_metadata_title`) and most of its words are printed on the first pages: a
template's leftover ("Internet Electronic Journal of" on a working party's report) is not.

A running header names the document when the first page has no title of its own (a course's
aide-mémoire whose first page is its list of contributors, its name printed small at the top
of every page): a line of the top band of the pages (TOP_BAND of their height) repeated on at
least RUNNING_SHARE of the first RUNNING_PAGES pages, that reads as a title: two words or more,
not a link (a "Liste des contributeurs" button, a slide's navigation bar), not an entry of the
PDF's outline (a chapter's name repeated over its pages), not a generic heading.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence

import pymupdf

from rag_core.parsing.base import clean_metadata_title
from rag_core.parsing.document_builder import Block, generic_heading
from rag_core.parsing.layout_text import fold_key

PAGES_CHECKED = 2  # the metadata title's words are looked for on this many first pages
WORDS_PRINTED = 0.6  # this share of its words must be printed there
SIZE_TOLERANCE = 0.5  # points: lines this close to the largest size are part of the title
MAX_TITLE_WORDS = 30
_WORD = re.compile(r"[^\W\d_]{3,}")
_SKIPPED_KINDS = ("header", "footer", "table", "contents", "picture", "formula")
RUNNING_PAGES = 30  # the running header is looked for on this many first pages
RUNNING_SHARE = 0.6  # it is printed on this share of them (and on two pages at least)
TOP_BAND = 0.1  # of the page's height: where running headers are
LINKED = 0.5  # a line this much inside a link's area is a link


def document_title(
    metadata_title: str | None,
    first_pages_text: str,
    blocks: Sequence[Block],
    fallback: str,
    running: Callable[[], str] = lambda: "",
) -> str:
    """The title to show in the library; the running header that names the document (`running`,
    read only when needed) when neither the metadata nor the first page gives one, else
    `fallback` (the layout's title, else the file name)."""
    meta = clean_metadata_title(metadata_title)
    if meta and _printed(meta, first_pages_text):
        return meta
    return largest_first_page_text(blocks) or running() or fallback


def running_title(doc: pymupdf.Document, toc: Sequence[Sequence]) -> str:
    """The running header that names the document (see the module's docstring), or ''."""
    pages = min(doc.page_count, RUNNING_PAGES)
    if pages < 2:
        return ""
    counts = Counter[str]()
    for page in doc.pages(0, pages):
        band = pymupdf.Rect(page.rect.x0, page.rect.y0, page.rect.x1, page.rect.y0 + TOP_BAND * page.rect.height)
        links = [pymupdf.Rect(link["from"]) for link in page.get_links()]
        seen: set[str] = set()
        for block in page.get_text("dict", clip=band)["blocks"]:
            for line in block.get("lines", []):
                text = " ".join(unicodedata.normalize("NFKC", "".join(s["text"] for s in line["spans"])).split())
                rect = pymupdf.Rect(line["bbox"])
                if (
                    text
                    and rect.y1 <= band.y1 + 1
                    and not any(abs(rect & link) >= LINKED * abs(rect) for link in links)
                ):
                    seen.add(text)
        counts.update(seen)
    entries = {fold_key(str(entry[1])) for entry in toc if len(entry) >= 2}
    for text, count in counts.most_common():
        if count < max(2, RUNNING_SHARE * pages):
            break
        if len(_WORD.findall(text)) >= 2 and len(text.split()) <= MAX_TITLE_WORDS and not generic_heading(text):
            if fold_key(text) not in entries:
                return text
    return ""


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
