"""Search channels are data: a channel registered from outside the product takes part in every search.

The store and the embedder are fakes (no LanceDB, no model): the built-in channels find what the
fake store returns, and `FakeConstantChannel` ranks two fixed children whatever the question.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from rag_core import retrieval
from rag_core.config import Settings
from rag_core.evaluation.engines import channel_engines
from rag_core.models import ChannelHit, Child, DocumentRecord, HighlightBox, Parent
from rag_core.retrieval import ChannelQuery
from rag_core.retrieval.base import Group, Unit
from rag_core.store import ChildHit, FullText, PageHit

DOC = "d" * 64
QUESTION = "mortality tables"


def _child(n: int) -> Child:
    return Child(
        id=f"c{n}",
        parent_id=f"p{n}",
        doc_id=DOC,
        index=n,
        text=f"text {n}",
        context_text=f"text {n}",
        start=0,
        end=6,
        tokens=2,
        pages=[n],
        boxes=[HighlightBox(page=n, x0=0, y0=0, x1=1, y1=1)],
    )


class FakeStore:
    """Three one-child parents; BM25 of the question over children finds p1 only, nothing else finds anything."""

    def check_embedder(self, name: str, dim: int) -> None:
        pass

    def documents(self) -> list[DocumentRecord]:
        return [
            DocumentRecord(
                doc_id=DOC,
                file_name="fake.pdf",
                title="fake",
                collection="c",
                language="en",
                pages=3,
                parents=3,
                children=3,
                tables=0,
                parser="test",
                embedder="fake",
                ingested_at="2026-12-01T00:00:00+00:00",
                elapsed_s=0.0,
            )
        ]

    def full_text(self, requests: Sequence[FullText], scope: Sequence[str]) -> list[list[ChildHit] | list[PageHit]]:
        return [
            [ChildHit("c1", "p1", DOC, 4.0)] if r.table == "children" and r.query == QUESTION else [] for r in requests
        ]

    def dense(self, vector: np.ndarray, scope: Sequence[str], k: int) -> list[ChildHit]:
        return []

    def pages_version(self) -> tuple[int, int] | None:
        return None  # no pages table: the page channel keeps what `full_text` found (nothing)

    def parents(self, ids: Sequence[str]) -> dict[str, Parent]:
        return {
            pid: Parent(
                id=pid,
                doc_id=DOC,
                index=int(pid[1:]),
                heading_path=[pid],
                text=f"text {pid[1:]}",
                tokens=2,
                pages=[int(pid[1:])],
                child_ids=[f"c{pid[1:]}"],
            )
            for pid in ids
        }

    def children_of_parents(self, ids: Sequence[str]) -> dict[str, list[Child]]:
        return {pid: [_child(int(pid[1:]))] for pid in ids}


class FakeEmbedder:
    name = "fake"
    dim = 3

    def embed_query(self, text: str) -> np.ndarray:
        return np.ones(3, dtype=np.float32)


class FakeConstantChannel:
    """Ranks p2 then p1, whatever the question."""

    name = "fake_constant"
    unit: Unit = "children"
    group: Group = "question"
    weight_setting = None  # weighs 1.0, as the lexical channel
    passage_priority = 50
    abbreviation = "F"
    description = "fake constant"

    def applies(self, query: ChannelQuery) -> bool:
        return True

    def run(self, query: ChannelQuery) -> list[ChildHit]:
        return [ChildHit("c2", "p2", DOC, 0.9), ChildHit("c1", "p1", DOC, 0.5)]


@pytest.fixture
def fake_channel() -> Iterator[FakeConstantChannel]:
    channel = retrieval.register(FakeConstantChannel())
    yield channel  # type: ignore[misc]
    retrieval.unregister(channel.name)


def _search(settings: Settings):  # type: ignore[no-untyped-def]
    return retrieval.search(QUESTION, FakeStore(), FakeEmbedder(), settings, [DOC])  # type: ignore[arg-type]


def test_a_registered_channel_votes_in_the_fusion_and_shows_in_each_parents_ranks(
    settings: Settings, fake_channel: FakeConstantChannel
) -> None:
    assert isinstance(fake_channel, retrieval.Channel) and retrieval.channels()[-1] is fake_channel
    result = _search(settings)
    assert result.channels[-1] == "fake_constant"
    assert [(p.parent.id, p.fused_score) for p in result.parents] == [("p1", 1 / 61 + 1 / 62), ("p2", 1 / 61)]
    first, second = result.parents
    assert first.ranks == {
        "lexical": ChannelHit(rank=1, score=4.0, child_id="c1"),
        "fake_constant": ChannelHit(rank=2, score=0.5, child_id="c1"),
    }
    assert second.ranks == {"fake_constant": ChannelHit(rank=1, score=0.9, child_id="c2")}
    assert second.best_child.id == "c2" and second.rank_in("lexical") is None
    assert "fake_constant" in channel_engines()  # the evaluation measures it on its own too


def test_an_unregistered_channel_is_gone(settings: Settings) -> None:
    channel = retrieval.register(FakeConstantChannel())
    retrieval.unregister(channel.name)
    result = _search(settings)
    assert "fake_constant" not in result.channels
    assert [(p.parent.id, p.fused_score, list(p.ranks)) for p in result.parents] == [("p1", 1 / 61, ["lexical"])]


def test_the_registry_lists_the_built_in_channels_in_their_fusion_order() -> None:
    assert [c.name for c in retrieval.channels()] == [
        "lexical",
        "dense",
        "page",
        "dense_other",
        "translated",
        "translated_page",
    ]
    assert [c.name for c in retrieval.channels("pages")] == ["page", "translated_page"]
    weights = Settings().retrieval
    assert [retrieval.weight(c, weights) for c in retrieval.channels("children")] == [
        1.0,
        weights.dense_weight,
        weights.other_language_weight,
        weights.translated_weight,
    ]


def test_a_channel_cannot_take_the_name_of_a_result_field() -> None:
    clash = FakeConstantChannel()
    clash.name = "placed"
    with pytest.raises(ValueError, match="placed"):
        retrieval.register(clash)
    assert retrieval.channel("placed") is None
