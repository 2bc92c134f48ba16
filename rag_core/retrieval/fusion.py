"""Weighted Reciprocal Rank Fusion: of any rankings (`fuse_rankings`), and of the channels of one
group reduced to parents (`fuse_group`). Raw scores are never added. This module does not search.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rag_core.config import RetrievalSettings
from rag_core.retrieval.base import Group, weight
from rag_core.retrieval.reduction import ParentRankings
from rag_core.retrieval.registry import channels
from rag_core.retrieval.running import Candidates
from rag_core.store import RRF_K


def fuse_rankings(
    rankings: Iterable[Sequence[str] | Mapping[str, int]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[str, float]]:
    """Reciprocal Rank Fusion: score(x) = Σ w/(k + rank(x)), ranks from 1 (w = 1 unless given); ties by id.

    A ranking is a list (ranks 1, 2, ...) or a mapping key -> rank (tied keys share a rank).
    """
    scores: dict[str, float] = {}
    for i, ranking in enumerate(rankings):
        weight_i = 1.0 if weights is None else weights[i]
        ranked = ranking.items() if isinstance(ranking, Mapping) else ((key, r) for r, key in enumerate(ranking, 1))
        for key, rank in ranked:
            scores[key] = scores.get(key, 0.0) + weight_i / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def fuse_group(reduced: ParentRankings, group: Group, settings: RetrievalSettings) -> list[tuple[str, float]]:
    """Weighted RRF on parents of the registered channels of `group` that ran, in registration order,
    each weighing its `weight_setting`; with `page_first`, the parents of the first page of the question's
    channel over pages that the fusion ranks in its first five lead (`lead_with_first_page`; the other
    language's ranking is not changed)."""
    voting = [c for c in channels() if c.group == group and c.name in reduced.by_channel]
    fused = fuse_rankings([reduced.ranking(c.name) for c in voting], weights=[weight(c, settings) for c in voting])
    return lead_with_first_page(fused, reduced, group) if settings.page_first and group == "question" else fused


# The page channel's first page leads only from within the fusion's first five: moving a page up inside
# them leaves the same pages in the first five, so hit@5 cannot fall (docs/refusals_and_pages.md).
PAGE_FIRST_WITHIN = 5


def lead_with_first_page(
    fused: list[tuple[str, float]], reduced: ParentRankings, group: Group
) -> list[tuple[str, float]]:
    """The parents on the first page of the group's first channel over pages that the fusion ranks within
    its first `PAGE_FIRST_WITHIN` come first, in their fused order; the others keep their place.

    RRF over three channels preferred a page that every channel ranks 2nd to 4th to the page that BM25
    over whole pages ranks first; the page channel's first page is the best single guess of the
    answering page (docs/refusals_and_pages.md), the other channels order the rest. Promoting it from
    further down cost questions whose answer the fusion had in its first five.
    """
    pages = [c for c in channels("pages") if c.group == group and c.name in reduced.by_channel]
    if not pages:
        return fused
    first = {pid for pid, hit in reduced.by_channel[pages[0].name].items() if hit.rank == 1}
    lead = [f for f in fused[:PAGE_FIRST_WITHIN] if f[0] in first]
    return lead + [f for f in fused if f not in lead]


def fuse_parents(candidates: Candidates, settings: RetrievalSettings | None = None) -> list[tuple[str, float]]:
    """The question's channels fused on parents, each weighing its setting in `settings` (None: all 1.0)."""
    reduced = ParentRankings.of(candidates)
    if settings is not None:
        return fuse_group(reduced, "question", settings)
    voting = [c for c in channels() if c.group == "question" and c.name in reduced.by_channel]
    return fuse_rankings([reduced.ranking(c.name) for c in voting])
