"""The `Reranker` protocol: score (question, passage) pairs; higher is more relevant.

A reranker rereads the best child of each candidate parent (docs/method.md, "Search: channels and
fusion"). Scores are on the reranker's own scale (bge-reranker-v2-m3: logits, or 0-1 after a sigmoid
when normalised); `settings.reranker.min_score` is on that scale. This module holds no model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Reranker(Protocol):
    name: str

    def score(self, question: str, passages: Sequence[str]) -> list[float]:
        """One score per passage, in the passages' order."""
        ...
