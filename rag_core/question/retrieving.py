"""The searches of one (sub-)question, run in order: search, rerank (one reformulation when the
reranker keeps nothing), the term check and the one more search it may ask for.

Every search goes through `QuestionContext.search` (the question's scope, language and word
lists); this module decides which searches, not how they run.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag_core import answering
from rag_core.answering.coverage import Coverage, coverage_retry, use_retry
from rag_core.models import SearchResult, SubQuestion
from rag_core.question.context import QuestionContext, SearchRequest
from rag_core.reranking import Reranker, rerank
from rag_core.understanding.followups import key_terms


@dataclass(frozen=True)
class Retrieved:
    """What one (sub-)question's searches gave: its parents and what the term check found."""

    result: SearchResult
    sub: SubQuestion
    coverage: Coverage | None = None
    retried: tuple[str, ...] = ()


def reformulate(question: str, ctx: QuestionContext) -> str:
    """The one reformulation tried when the reranker rejects every passage: the question's key
    terms plus the preferred labels of the concepts it names."""
    terms = key_terms(question)
    if ctx.thesaurus is not None:
        for concept in ctx.thesaurus.recognise(question):
            terms.extend(label for label in concept.pref_labels if label not in terms)
    return " ".join(terms)


def _found(result: SearchResult, ctx: QuestionContext, reranked: bool) -> bool:
    if not result.parents:
        return False
    return reranked or max(h.fused_score for h in result.parents) >= answering.evidence_threshold(ctx.settings)


def _sub(question: str, share: int, result: SearchResult, found: bool, tried: str = "") -> SubQuestion:
    return SubQuestion(
        question=question,
        parents=share,
        found=found,
        parent_ids=[h.parent.id for h in result.parents[:share]],
        reformulated=tried,
    )


def searched(ctx: QuestionContext, question: str, share: int, reranker: Reranker | None) -> Retrieved:
    """The parents of one (sub-)question; reranked with one reformulation when a reranker is configured."""
    if reranker is None:
        result = ctx.search(SearchRequest(question, max(share, 10), ctx.language))
        return Retrieved(result, _sub(question, share, result, _found(result, ctx, False)))
    settings = ctx.settings
    candidates = max(settings.reranker.candidates, share)
    keep = max(settings.reranker.keep, share)
    found = ctx.search(SearchRequest(question, candidates, ctx.language))
    result = rerank(question, found, reranker, keep, settings.reranker.min_score)
    tried = ""
    if not result.parents:
        tried = reformulate(question, ctx)
        if tried and tried != question:
            found = ctx.search(SearchRequest(tried, candidates, ctx.language))
            result = rerank(question, found, reranker, keep, settings.reranker.min_score)
    return Retrieved(result, _sub(question, share, result, _found(result, ctx, True), tried))


def retrieve(ctx: QuestionContext, question: str, share: int, reranker: Reranker | None) -> Retrieved:
    """`searched`, then the term check of its parents, with the one more search it may ask for."""
    got = searched(ctx, question, share, reranker)
    if ctx.library is None:
        return got
    parents = got.sub.parents
    coverage = ctx.library.check(question, got.result.parents[:parents], ctx.language)
    retry = coverage_retry(question, coverage, parents)
    if retry is None:
        return Retrieved(got.result, got.sub, coverage)
    again = ctx.search(SearchRequest(retry.query, retry.k, ctx.language))
    kept, checked, retried = use_retry(question, got.result, coverage, retry, again, parents, ctx.library, ctx.language)
    return Retrieved(kept, got.sub, checked, retried)
