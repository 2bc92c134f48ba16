"""How much of a search result an answer may use: the evidence floor under which nothing answers, and how many of the
first parents are given as context."""

from __future__ import annotations

from rag_core import retrieval
from rag_core.answering.model_answer import sources_budget
from rag_core.config import Settings
from rag_core.models import SearchResult

CHARS_PER_TOKEN = 4  # a conservative estimate for French and English prose; no tokenizer is bundled


def evidence_threshold(settings: Settings) -> float:
    """`answer.min_evidence_score` on the fused scale: a parent found by one channel at rank 1 scores
    1/61 with equal weights, but only w/61 when that channel weighs w < 1; the threshold scales with the
    weight of the question's "dense" channel (`retrieval.base.ROLES`: it ranks every child, so a parent it
    alone ranks first is the weakest evidence) so that a weighted fusion refuses exactly what an equal one
    refused."""
    dense = retrieval.with_role("dense", "question")
    scale = retrieval.weight(dense, settings.retrieval) if dense is not None else 1.0
    return settings.answer.min_evidence_score * min(1.0, scale)


def estimated_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def context_parents(result: SearchResult, settings: Settings) -> int:
    """How many of the first parents are given as context: the parent budget (`context_k`), cut so
    that their estimated tokens stay within `llm.context_tokens`, or what the endpoint's context size leaves for
    them (`model_answer.sources_budget`), when either is set (the first is always kept)."""
    k = max(settings.retrieval.context_k, 0)
    budget = sources_budget(settings)
    if not budget:
        return k
    used = 0
    for i, hit in enumerate(result.parents[:k]):
        used += estimated_tokens(hit.parent.text)
        if used > budget:
            return max(i, 1)
    return k
