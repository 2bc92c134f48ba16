"""Each channel's hits reduced to parents, the unit the fusion ranks.

A channel over children keeps each parent's best child (ranks restart at 1); a channel over
pages gives each parent the rank of its best page (the parents of one page share its rank).
This module does not fuse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rag_core.models import ChannelHit, PageChannelHit
from rag_core.retrieval.registry import channel as registered
from rag_core.retrieval.running import Candidates
from rag_core.store import ChildHit, PageHit


def best_child_per_parent(hits: Sequence[ChildHit]) -> list[ChildHit]:
    """Keep each parent's first (best) child, in order: the channel's parent ranking."""
    seen: set[str] = set()
    out = []
    for hit in hits:
        if hit.parent_id not in seen:
            seen.add(hit.parent_id)
            out.append(hit)
    return out


def page_ranks(hits: Sequence[PageHit]) -> dict[str, tuple[int, PageHit]]:
    """The page channel's parent ranking: each parent takes the rank of its best page."""
    out: dict[str, tuple[int, PageHit]] = {}
    for rank, hit in enumerate(hits, start=1):
        for pid in hit.parent_ids:
            out.setdefault(pid, (rank, hit))
    return out


@dataclass(frozen=True)
class ParentRankings:
    """Each channel that ran, reduced to parents: parent id -> its hit there, best first."""

    by_channel: dict[str, dict[str, ChannelHit | PageChannelHit]] = field(default_factory=dict)

    @classmethod
    def of(cls, candidates: Candidates) -> ParentRankings:
        out: dict[str, dict[str, ChannelHit | PageChannelHit]] = {}
        for name, hits in candidates.hits.items():
            channel = registered(name)
            if channel is not None and channel.unit == "pages":
                out[name] = {
                    pid: PageChannelHit(rank=rank, score=hit.score, page=hit.page)
                    for pid, (rank, hit) in page_ranks(candidates.pages(name)).items()
                }
            else:
                out[name] = {
                    h.parent_id: ChannelHit(rank=i, score=h.score, child_id=h.child_id)
                    for i, h in enumerate(best_child_per_parent(candidates.children(name)), 1)
                }
        return cls(out)

    def ranking(self, name: str) -> dict[str, int]:
        """Parent id -> rank in channel `name` (empty when it did not run)."""
        return {pid: hit.rank for pid, hit in self.by_channel.get(name, {}).items()}

    def hits_of(self, parent_id: str) -> dict[str, ChannelHit | PageChannelHit]:
        """The parent's hit in each channel that found it, in the channels' order."""
        return {name: hits[parent_id] for name, hits in self.by_channel.items() if parent_id in hits}
