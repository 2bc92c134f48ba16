"""Hybrid retrieval: search channels, fused by weighted Reciprocal Rank Fusion on parents.

The channels are data: each is a `Channel` (`base.py`) registered by name (`registry.py`); the
package's own live in `builtin/`, one module each: BM25 over children ("lexical"), dense
vectors over children ("dense"), BM25 over whole pages ("page"), and for the documents written in
another language than the question the dense channel over them ("dense_other") and BM25 of the
question's translated terms over their children and pages ("translated", "translated_page").
`running.py` runs them for a question, `reduction.py` reduces each to parents, `fusion.py` fuses
a group of channels, `crosslingual.py` places the other language's best passage, `search.py`
chains the steps. A search result carries each parent's hit in every channel that found it,
keyed by channel name (`RetrievedParent.ranks`). Method and measures: docs/method.md.

A new channel: a module in `builtin/` added to `BUILT_IN` (or any module that calls `register`);
it declares its weight setting (checked when it registers), its UI string (`label_key`) and its
role (`base.ROLES`). Nothing else names a channel: the rules that read one kind of evidence find
it by its role (`with_role`).
"""

from rag_core.retrieval import builtin as _builtin  # noqa: F401  (registers the package's own channels)
from rag_core.retrieval.base import Channel, ChannelQuery, FullTextChannel, OtherLanguage, weight
from rag_core.retrieval.crosslingual import (
    evidence_ratio,
    fuse_with_other_language,
    only_in_other_language,
    other_language,
    place,
    placed_key,
    placement,
)
from rag_core.retrieval.fusion import PAGE_FIRST_WITHIN, fuse_group, fuse_parents, fuse_rankings
from rag_core.retrieval.pages import answer_pages, parent_pages
from rag_core.retrieval.reduction import ParentRankings, best_child_per_parent, page_ranks
from rag_core.retrieval.registry import ChannelError, channel, channels, only, register, unregister, with_role
from rag_core.retrieval.running import Candidates, run_all, run_channels
from rag_core.retrieval.search import search

__all__ = [
    "PAGE_FIRST_WITHIN",
    "answer_pages",
    "parent_pages",
    "Candidates",
    "Channel",
    "ChannelError",
    "ChannelQuery",
    "FullTextChannel",
    "OtherLanguage",
    "ParentRankings",
    "best_child_per_parent",
    "channel",
    "channels",
    "evidence_ratio",
    "fuse_group",
    "fuse_parents",
    "fuse_rankings",
    "fuse_with_other_language",
    "only_in_other_language",
    "other_language",
    "page_ranks",
    "place",
    "placed_key",
    "only",
    "placement",
    "register",
    "run_all",
    "run_channels",
    "search",
    "unregister",
    "weight",
    "with_role",
]
