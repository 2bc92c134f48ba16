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
    each weighing its `weight_setting`."""
    voting = [c for c in channels() if c.group == group and c.name in reduced.by_channel]
    return fuse_rankings([reduced.ranking(c.name) for c in voting], weights=[weight(c, settings) for c in voting])


def fuse_parents(candidates: Candidates, settings: RetrievalSettings | None = None) -> list[tuple[str, float]]:
    """The question's channels fused on parents, each weighing its setting in `settings` (None: all 1.0)."""
    reduced = ParentRankings.of(candidates)
    if settings is not None:
        return fuse_group(reduced, "question", settings)
    voting = [c for c in channels() if c.group == "question" and c.name in reduced.by_channel]
    return fuse_rankings([reduced.ranking(c.name) for c in voting])
