"""The pages of a search's parents, the answering page first (docs/method.md, "Search").

A parent (a section) may span several pages; only some of them hold the passage that matched. Read
in parent order with each parent's pages in page order, a long section found first puts all its
pages ahead of the next section's best page, and its first page is often a heading or an
overview, not the passage. Here each parent gives first its *best page*: the page of the passage
a channel over children chose for it (`best_child`), else the page its page-channel hit names;
all the parents' best pages come first, in the parents' fused order; then each parent's other
pages, those of its children that were searched first (the page channel's page), then the rest in
page order. So a long parent never pushes its other pages ahead of another parent's best page.
This module only orders what a search returned.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.models import PageChannelHit, RetrievedParent

PageRef = tuple[str, int]  # (doc id, 1-based page)


def best_pages(hit: RetrievedParent) -> list[int]:
    """The parent's pages best first: its passage's pages, the page channel's page, then the others."""
    first = list(hit.best_child.pages)
    first += [r.page for r in hit.ranks.values() if isinstance(r, PageChannelHit) and r.page in hit.parent.pages]
    rest = sorted(set(hit.parent.pages))
    return list(dict.fromkeys([*first, *rest]))


def answer_pages(parents: Sequence[RetrievedParent]) -> list[PageRef]:
    """(doc id, page) of the parents' pages, each parent's best page first (see the module docstring)."""
    ordered = [best_pages(hit) for hit in parents]
    out: list[PageRef] = [(hit.parent.doc_id, pages[0]) for hit, pages in zip(parents, ordered, strict=True) if pages]
    out += [(hit.parent.doc_id, p) for hit, pages in zip(parents, ordered, strict=True) for p in pages[1:]]
    return list(dict.fromkeys(out))


def parent_pages(parents: Sequence[RetrievedParent]) -> list[PageRef]:
    """The naive reading, for comparison: each parent's pages in page order, parent after parent."""
    return list(dict.fromkeys((hit.parent.doc_id, p) for hit in parents for p in sorted(set(hit.parent.pages))))
