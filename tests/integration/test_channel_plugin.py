"""A channel added by one file (tests/plugins/identifier_channel.py) and its registration takes part in a
search of a real LanceDB library (temp dir, the offline embedder): it votes in the fusion with its weight,
shows in each parent's ranks and in the result's channels, and changes nothing where it does not apply."""

from __future__ import annotations

import pytest

from rag_core import retrieval
from rag_core.config import Settings
from rag_core.embedding import select_embedder
from rag_core.store import Store
from tests.plugins import identifier_channel
from tests.store_support import DOCS, build_store


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, Settings]:
    return build_store(Settings(data_dir=tmp_path_factory.mktemp("kb")))


def _search(library: tuple[Store, Settings], question: str):  # type: ignore[no-untyped-def]
    store, settings = library
    return retrieval.search(question, store, select_embedder(settings), settings, list(DOCS), language="en")


def test_a_channel_from_one_file_takes_part_in_a_search(library: tuple[Store, Settings]) -> None:
    question = "which assumption is BF2"
    without = _search(library, question)
    with retrieval.only(*retrieval.channels(), identifier_channel.CHANNEL):
        with_it = _search(library, question)
    assert with_it.channels == [*without.channels, "identifiers"]
    assert with_it.channel_labels["identifiers"] == "search.channel.identifiers"
    top = with_it.parents[0]
    assert top.parent.heading_path == ["Stochastic BF"] and top.ranks["identifiers"].rank == 1
    before = {p.parent.id: p.fused_score for p in without.parents}
    assert top.fused_score == pytest.approx(before[top.parent.id] + 1 / 61)  # its vote, weighing 1.0
    assert retrieval.channel("identifiers") is None  # the registry is as it was


def test_where_it_does_not_apply_the_search_is_unchanged(library: tuple[Store, Settings]) -> None:
    question = "mortality tables for annuities"
    without = _search(library, question)
    with retrieval.only(*retrieval.channels(), identifier_channel.CHANNEL):
        with_it = _search(library, question)
    assert with_it.parents and [(p.parent.id, p.fused_score, p.ranks) for p in with_it.parents] == [
        (p.parent.id, p.fused_score, p.ranks) for p in without.parents
    ]
