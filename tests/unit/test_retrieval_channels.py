"""Search channels are data: the fusion's mechanics with the tests' own channels, and what a channel's
declaration must hold to register.

The store and the embedder are fakes (no LanceDB, no model; a channel from one file searching a real
LanceDB library is in tests/integration/test_channel_plugin.py). The mechanics run with the registry
holding only the tests' own channels (`retrieval.only`), so a new built-in channel changes none of them:
`FakeBm25Channel` finds what the fake store returns to BM25, `FakeConstantChannel` ranks two fixed
children whatever the question.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from rag_app.ui.strings import merged
from rag_core import retrieval
from rag_core.answering import evidence_threshold
from rag_core.config import Settings
from rag_core.evaluation.engines import channel_engines
from rag_core.models import ChannelHit, Child, DocumentRecord, HighlightBox, Parent
from rag_core.retrieval import ChannelQuery
from rag_core.retrieval.base import FullTextChannel, Group, Role, Unit
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


class FakeBm25Channel(FullTextChannel):
    """BM25 of the question over children, through the fake store; the question group's "lexical" role."""

    name = "fake_bm25"
    unit: Unit = "children"
    group: Group = "question"
    role: Role | None = "lexical"
    passage_priority = 0

    def request(self, query: ChannelQuery) -> FullText:
        return FullText("children", query.query, query.language, query.candidate_k)


class FakeConstantChannel:
    """Ranks p2 then p1, whatever the question."""

    name = "fake_constant"
    unit: Unit = "children"
    group: Group = "question"
    weight_setting: str | None = None  # weighs 1.0
    label_key = "search.channel.fake_constant"
    role: Role | None = None
    report_name = "fake_constant"
    passage_priority = 50
    abbreviation = "F"
    description = "fake constant"

    def applies(self, query: ChannelQuery) -> bool:
        return True

    def run(self, query: ChannelQuery) -> list[ChildHit]:
        return [ChildHit("c2", "p2", DOC, 0.9), ChildHit("c1", "p1", DOC, 0.5)]


def _constant(**declared: object) -> FakeConstantChannel:
    channel = FakeConstantChannel()
    for attribute, value in declared.items():
        setattr(channel, attribute, value)
    return channel


@pytest.fixture
def own_channels() -> Iterator[tuple[FakeBm25Channel, FakeConstantChannel]]:
    bm25, constant = FakeBm25Channel(), FakeConstantChannel()
    with retrieval.only(bm25, constant):
        yield bm25, constant


def _search(settings: Settings):  # type: ignore[no-untyped-def]
    return retrieval.search(QUESTION, FakeStore(), FakeEmbedder(), settings, [DOC])  # type: ignore[arg-type]


def test_a_registered_channel_votes_in_the_fusion_and_shows_in_each_parents_ranks(
    settings: Settings, own_channels: tuple[FakeBm25Channel, FakeConstantChannel]
) -> None:
    _, constant = own_channels
    assert isinstance(constant, retrieval.Channel) and retrieval.channels()[-1] is constant
    result = _search(settings)
    assert result.channels == ["fake_bm25", "fake_constant"]
    assert result.channel_labels == {"fake_bm25": "search.channel.fake_bm25", "fake_constant": constant.label_key}
    assert [(p.parent.id, p.fused_score) for p in result.parents] == [("p1", 1 / 61 + 1 / 62), ("p2", 1 / 61)]
    first, second = result.parents
    assert first.ranks == {
        "fake_bm25": ChannelHit(rank=1, score=4.0, child_id="c1"),
        "fake_constant": ChannelHit(rank=2, score=0.5, child_id="c1"),
    }
    assert second.ranks == {"fake_constant": ChannelHit(rank=1, score=0.9, child_id="c2")}
    assert second.best_child.id == "c2" and second.rank_in("fake_bm25") is None
    assert set(channel_engines()) == {"fake_bm25", "fake_constant"}  # the evaluation measures each on its own


def test_a_channel_weighs_the_setting_it_names(
    settings: Settings, own_channels: tuple[FakeBm25Channel, FakeConstantChannel]
) -> None:
    retrieval.register(_constant(weight_setting="dense_weight"))  # in its place, now weighing dense_weight
    result = _search(settings)
    w = settings.retrieval.dense_weight
    assert w != 1.0 and [(p.parent.id, p.fused_score) for p in result.parents] == [
        ("p1", pytest.approx(1 / 61 + w / 62)),
        ("p2", pytest.approx(w / 61)),
    ]


def test_an_unregistered_channel_is_gone(
    settings: Settings, own_channels: tuple[FakeBm25Channel, FakeConstantChannel]
) -> None:
    retrieval.unregister("fake_constant")
    result = _search(settings)
    assert result.channels == ["fake_bm25"]
    assert [(p.parent.id, p.fused_score, list(p.ranks)) for p in result.parents] == [("p1", 1 / 61, ["fake_bm25"])]


def test_only_restores_the_registry_it_replaced() -> None:
    before = retrieval.channels()
    with retrieval.only(FakeConstantChannel()):
        assert [c.name for c in retrieval.channels()] == ["fake_constant"]
    assert retrieval.channels() == before and retrieval.channel("fake_constant") is None


def test_a_misspelt_weight_setting_is_refused_when_the_channel_registers() -> None:
    before = retrieval.channels()
    misspelt = r"'dense_weigth' is not a float field.*did you mean 'dense_weight'"
    with pytest.raises(retrieval.ChannelError, match=misspelt):
        retrieval.register(_constant(weight_setting="dense_weigth"))
    with pytest.raises(retrieval.ChannelError, match="'candidate_k' is not a float field"):  # a count, not a weight
        retrieval.register(_constant(weight_setting="candidate_k"))
    assert retrieval.channels() == before


@pytest.mark.parametrize(
    ("declared", "refusal"),
    [
        ({"unit": "sentences"}, "unknown unit 'sentences'"),
        ({"group": "other"}, "unknown group 'other'"),
        ({"role": "sparse"}, "unknown role 'sparse'"),
        ({"label_key": ""}, "label_key must be a non-empty string"),
        ({"name": "Fake Constant"}, "lower-case letters"),
        ({"name": "placed"}, "a field of RetrievedParent"),
    ],
)
def test_a_wrong_declaration_is_refused_when_the_channel_registers(declared: dict, refusal: str) -> None:
    before = retrieval.channels()
    with pytest.raises(retrieval.ChannelError, match=refusal):
        retrieval.register(_constant(**declared))
    assert retrieval.channels() == before


def test_a_channel_missing_a_declaration_is_refused() -> None:
    class Undeclared:
        name = "undeclared"
        unit = "children"
        group = "question"

        def applies(self, query: ChannelQuery) -> bool:
            return True

        def run(self, query: ChannelQuery) -> list[ChildHit]:
            return []

    with pytest.raises(retrieval.ChannelError, match="does not declare weight_setting, label_key, role"):
        retrieval.register(Undeclared())  # type: ignore[arg-type]


def test_one_channel_per_role_and_group(own_channels: tuple[FakeBm25Channel, FakeConstantChannel]) -> None:
    with pytest.raises(retrieval.ChannelError, match="already has a 'lexical' channel \\('fake_bm25'\\)"):
        retrieval.register(_constant(role="lexical"))
    retrieval.register(_constant(role="lexical", group="other_language"))  # another group's role is its own
    assert retrieval.with_role("lexical", "other_language") is retrieval.channel("fake_constant")
    assert retrieval.with_role("lexical") is own_channels[0] and retrieval.with_role("dense") is None


def test_the_refusal_threshold_scales_with_the_weight_of_the_dense_role(
    settings: Settings, own_channels: tuple[FakeBm25Channel, FakeConstantChannel]
) -> None:
    unscaled = settings.answer.min_evidence_score
    assert evidence_threshold(settings) == unscaled  # no channel has the "dense" role
    retrieval.register(_constant(role="dense", weight_setting="translated_weight"))
    halved = settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update={"translated_weight": 0.5})})
    assert evidence_threshold(halved) == pytest.approx(unscaled * 0.5)


def test_every_registered_channel_is_named_in_both_languages() -> None:
    strings = merged()
    for channel in retrieval.channels():
        assert set(strings.get(channel.label_key, {})) >= {"fr", "en"}, channel.name
        retrieval.weight(channel, Settings().retrieval)  # its setting resolves
