"""The page channel's first page leads the fused ranking (`retrieval.page_first`): RRF over three channels
preferred a parent that every channel ranks well to the one on the page BM25 over pages ranks first."""

from __future__ import annotations

from rag_core.config import RetrievalSettings
from rag_core.models import ChannelHit, PageChannelHit
from rag_core.retrieval import fuse_group
from rag_core.retrieval.reduction import ParentRankings


def _rankings() -> ParentRankings:
    # "y" is 2nd for the lexical, dense and page channels; "x" and "w" share the page channel's first page
    # (one page holds both parents), which the lexical channel ranks 4th and 5th and the dense channel not at all.
    lexical = {p: ChannelHit(rank=r, score=1.0, child_id=f"{p}c") for r, p in enumerate(["z", "y", "v", "x", "w"], 1)}
    dense = {p: ChannelHit(rank=r, score=0.5, child_id=f"{p}c") for r, p in enumerate(["v", "y", "z"], 1)}
    page = {
        "x": PageChannelHit(rank=1, score=9.0, page=3),
        "w": PageChannelHit(rank=1, score=9.0, page=3),
        "y": PageChannelHit(rank=2, score=5.0, page=7),
        "z": PageChannelHit(rank=3, score=4.0, page=8),
    }
    return ParentRankings({"lexical": lexical, "dense": dense, "page": page})


def test_the_parents_of_the_page_channels_first_page_lead() -> None:
    reduced = _rankings()
    plain = [p for p, _ in fuse_group(reduced, "question", RetrievalSettings(page_first=False))]
    assert plain[0] == "y"  # RRF: 2nd everywhere beats 1st for pages alone
    led = fuse_group(reduced, "question", RetrievalSettings())
    assert [p for p, _ in led] == ["x", "w", *[p for p in plain if p not in ("x", "w")]]
    assert dict(led) == dict(fuse_group(reduced, "question", RetrievalSettings(page_first=False)))  # same scores


def test_without_a_page_channel_or_in_the_other_languages_ranking_nothing_moves() -> None:
    reduced = _rankings()
    no_pages = ParentRankings({k: v for k, v in reduced.by_channel.items() if k != "page"})
    settings = RetrievalSettings()
    assert fuse_group(no_pages, "question", settings) == fuse_group(
        no_pages, "question", RetrievalSettings(page_first=False)
    )
    assert fuse_group(reduced, "other_language", settings) == []  # none of these channels votes there
