"""The page channel's first page leads the fused ranking (`retrieval.page_first`) when the fusion already
ranks it in its first five: RRF over three channels preferred a parent that every channel ranks well to
the one on the page BM25 over pages ranks first, but promoting that page from further down pushed out of
the first five an answer the fusion had there."""

from __future__ import annotations

import random

from rag_core.config import RetrievalSettings
from rag_core.models import ChannelHit, PageChannelHit
from rag_core.retrieval import PAGE_FIRST_WITHIN, fuse_group
from rag_core.retrieval.reduction import ParentRankings

PLAIN = RetrievalSettings(page_first=False)


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
    plain = [p for p, _ in fuse_group(reduced, "question", PLAIN)]
    assert plain[0] == "y" and {"x", "w"} <= set(plain[:PAGE_FIRST_WITHIN])  # RRF: 2nd everywhere beats 1st for pages
    led = fuse_group(reduced, "question", RetrievalSettings())
    assert [p for p, _ in led] == ["x", "w", *[p for p in plain if p not in ("x", "w")]]
    assert dict(led) == dict(fuse_group(reduced, "question", PLAIN))  # same scores


def test_a_first_page_the_fusion_ranks_below_its_first_five_does_not_lead() -> None:
    # "u" is on the page channel's first page and nowhere else; the six parents every channel ranks come first.
    others = ["a", "b", "c", "d", "e", "f"]
    lexical = {p: ChannelHit(rank=r, score=1.0, child_id=f"{p}c") for r, p in enumerate(others, 1)}
    dense = {p: ChannelHit(rank=r, score=0.5, child_id=f"{p}c") for r, p in enumerate(others, 1)}
    page = {"u": PageChannelHit(rank=1, score=9.0, page=1)}
    page |= {p: PageChannelHit(rank=r, score=1.0, page=r) for r, p in enumerate(others, 2)}
    reduced = ParentRankings({"lexical": lexical, "dense": dense, "page": page})
    plain = fuse_group(reduced, "question", PLAIN)
    assert [p for p, _ in plain].index("u") >= PAGE_FIRST_WITHIN
    assert fuse_group(reduced, "question", RetrievalSettings()) == plain  # the answer in the first five stays there


def test_the_first_five_hold_the_same_parents_with_the_rule_as_without() -> None:
    """By construction, whatever the channels rank: so no answer leaves the first five (hit@5 cannot fall)."""
    rng = random.Random(7)
    pool = [f"p{i}" for i in range(30)]
    moved = below = 0
    for _ in range(300):
        lexical = {p: ChannelHit(rank=r, score=1.0, child_id=f"{p}c") for r, p in enumerate(rng.sample(pool, 12), 1)}
        dense = {p: ChannelHit(rank=r, score=0.5, child_id=f"{p}c") for r, p in enumerate(rng.sample(pool, 12), 1)}
        on_pages = rng.sample(pool, 9)  # two parents per page: the first page holds two
        page = {p: PageChannelHit(rank=1 + i // 2, score=1.0, page=1 + i // 2) for i, p in enumerate(on_pages)}
        reduced = ParentRankings({"lexical": lexical, "dense": dense, "page": page})
        plain = [p for p, _ in fuse_group(reduced, "question", PLAIN)]
        led = [p for p, _ in fuse_group(reduced, "question", RetrievalSettings())]
        assert set(led[:PAGE_FIRST_WITHIN]) == set(plain[:PAGE_FIRST_WITHIN])
        assert sorted(led) == sorted(plain)
        moved += led != plain
        below += not set(on_pages[:2]) <= set(plain[:PAGE_FIRST_WITHIN])
    assert moved > 0 and below > 0  # the rule reordered some rankings; some first pages were further down


def test_without_a_page_channel_or_in_the_other_languages_ranking_nothing_moves() -> None:
    reduced = _rankings()
    no_pages = ParentRankings({k: v for k, v in reduced.by_channel.items() if k != "page"})
    settings = RetrievalSettings()
    assert fuse_group(no_pages, "question", settings) == fuse_group(no_pages, "question", PLAIN)
    assert fuse_group(reduced, "other_language", settings) == []  # none of these channels votes there
