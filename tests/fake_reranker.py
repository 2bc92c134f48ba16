"""FakeOverlapReranker: a deterministic stand-in for bge-reranker-v2-m3, which cannot run here.

Named as a fake and registered by name (`fake-overlap`), like simonw/llm's demo models: the
score of a passage is the share of the question's folded words (3 letters or more) that it
contains, so tests can predict the order and set a minimum score. It also records the
questions it was asked, to check the reformulation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_core import reranking
from rag_core.text import fold

NAME = "fake-overlap"


class FakeOverlapReranker:
    name = NAME

    def __init__(self) -> None:
        self.questions: list[str] = []

    def score(self, question: str, passages: Sequence[str]) -> list[float]:
        self.questions.append(question)
        words = {w for w in re.findall(r"[0-9a-z]+", fold(question)) if len(w) >= 3}
        scores = []
        for passage in passages:
            present = set(re.findall(r"[0-9a-z]+", fold(passage)))
            scores.append(len(words & present) / len(words) if words else 0.0)
        return scores


def install() -> FakeOverlapReranker:
    """Register a fresh fake under its name and return it."""
    fake = FakeOverlapReranker()
    reranking.register(NAME, lambda settings: fake)
    return fake
