"""Answers whose every paragraph cites a source that the code has checked (METHOD.md §4).

`answer()` takes the question and the search result, builds the source registry from the
context parents, and answers with the configured chat model (structured output) or, with
no model or when the model fails, with an extractive answer made of the documents' own
sentences. Both are verified the same way (`verification.verify_citations`), and every
number of every paragraph is traced to a cell, a sentence or a checked computation
(`number_trace.trace_numbers`). Too weak a
search result gives a refusal instead of an answer. `greeting_reply()` answers greetings
without any search. This package does not search and does not store answers.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from rag_core.answering.coverage import Coverage, coverage_notes, missing_message
from rag_core.answering.evidence import mark_stated
from rag_core.answering.extractive import extractive_paragraphs
from rag_core.answering.greetings import greeting_reply
from rag_core.answering.model_answer import build_messages, call_model
from rag_core.llm import llm_configured
from rag_core.answering.number_trace import count, trace_numbers
from rag_core.answering.prompts import number_sources
from rag_core.answering.support_check import judge_support, mark_collections
from rag_core.answering.verification import verify_citations
from rag_core.citations import build_sources, parent_source_id
from rag_core.config import Settings
from rag_core.errors import LLMError
from rag_core.models import Answer, Computation, Paragraph, RetrievedParent, SearchResult, Source
from rag_core.text import detect_language

__all__ = ["answer", "evidence_threshold", "greeting_reply"]

NOTHING_FOUND = {
    "en": "Nothing in the accessible documents answers this question.",
    "fr": "Aucun des documents accessibles ne répond à cette question.",
}
ALL_DROPPED = {
    "en": "No paragraph of the model's answer cited a retrieved source; showing an extractive answer.",
    "fr": "Aucun paragraphe de la réponse du modèle ne citait une source retrouvée ; voici une réponse extractive.",
}


def evidence_threshold(settings: Settings) -> float:
    """`answer.min_evidence_score` on the fused scale: a parent found by one channel at rank 1 scores
    1/61 with equal weights, but only dense_weight/61 when the dense channel is down-weighted; the
    threshold scales with it so that a weighted fusion refuses exactly what an equal one refused."""
    return settings.answer.min_evidence_score * min(1.0, settings.retrieval.dense_weight)


def _refusal(question: str, language: str, context: Sequence[RetrievedParent], sources: list[Source], started: float,
             missing_terms: Sequence[str] = ()) -> Answer:
    return Answer(
        question=question,
        language=language,  # type: ignore[arg-type]
        mode="refused",
        missing_information=missing_message(missing_terms, language) if missing_terms
        else NOTHING_FOUND.get(language, NOTHING_FOUND["en"]),
        missing_terms=list(missing_terms),
        uncited=[s for s in sources if s.kind == "parent"],
        parent_ids=[hit.parent.id for hit in context],
        elapsed_s=time.perf_counter() - started,
    )


def _extractive(
    question: str,
    language: str,
    context: Sequence[RetrievedParent],
    sources: list[Source],
    started: float,
    warnings: Sequence[str] = (),
    dropped: Sequence[str] = (),
    tokens: tuple[int, int] = (0, 0),
    extra_terms: Sequence[str] = (),
) -> Answer:
    paragraphs = extractive_paragraphs(context, question, [parent_source_id(hit.parent) for hit in context],
                                       language, extra_terms)
    checked = verify_citations(paragraphs, sources, language)
    traced = mark_stated(trace_numbers(checked.paragraphs, sources, context, language))  # as the document writes them
    return Answer(
        question=question,
        language=language,  # type: ignore[arg-type]
        mode="extractive",
        paragraphs=traced,
        unsupported_numbers=count(traced, "unsupported"),
        mismatched_numbers=count(traced, "mismatch"),
        sources=checked.sources,
        uncited=checked.uncited,
        dropped=[*dropped, *checked.dropped],
        warnings=list(warnings),
        parent_ids=[hit.parent.id for hit in context],
        elapsed_s=time.perf_counter() - started,
        prompt_tokens=tokens[0],
        completion_tokens=tokens[1],
    )


def answer(
    question: str,
    result: SearchResult,
    settings: Settings,
    history: list[tuple[str, str]] | None = None,
    coverage: Coverage | None = None,
    retried: Sequence[str] = (),
) -> Answer:
    """Answer from the first `context_k` parents of `result`; never raises for an endpoint failure.

    `history` holds earlier (question, answer) turns of the conversation; they are shown to
    the model as context only: only this turn's sources can be cited. `coverage` is the check
    of the question's terms (`coverage.check_coverage`): a term no accessible document mentions
    refuses before any model call; terms missing from the passages are told to the model and
    marked on the answer (`retried`: the terms the search was repeated with).
    """
    started = time.perf_counter()
    language = result.language or detect_language(question)
    forms = result.translated.forms if result.translated is not None else []
    context = list(result.parents[: max(settings.retrieval.context_k, 0)])
    sources = build_sources(result, settings.retrieval.context_k)
    if coverage is not None and coverage.refuses:
        return _refusal(question, language, context, sources, started, coverage.missing)
    if not context or max(hit.fused_score for hit in result.parents) < evidence_threshold(settings):
        return _refusal(question, language, context, sources, started)
    absent = list(coverage.not_retrieved) if coverage is not None else []
    marks = {"terms_not_in_passages": absent, "retried_terms": list(retried)}
    notes = coverage_notes(absent, retried, language)

    def extractive(warnings: Sequence[str] = (), dropped: Sequence[str] = (), tokens: tuple[int, int] = (0, 0)) -> Answer:
        return _extractive(question, language, context, sources, started, warnings, dropped, tokens,
                           [*result.expanded_terms, *forms]).model_copy(
            update={**marks, "missing_information": " ".join(notes)})

    if not llm_configured(settings):
        return extractive()

    prompt_sources = number_sources(sources)
    aliases = {ps.alias: ps.source.id for ps in prompt_sources}
    messages = build_messages(question, prompt_sources, context, settings, language, history, absent)
    try:
        reply = call_model(messages, settings, language)
    except LLMError as err:
        return extractive(warnings=[str(err)])

    paragraphs = [
        Paragraph(text=p.text, source_ids=list(p.source_ids), quote=p.quote,
                  computations=[Computation.model_validate(c.model_dump()) for c in p.computations])
        for p in reply.output.paragraphs
    ]
    checked = verify_citations(paragraphs, sources, language, aliases)
    tokens = (reply.prompt_tokens, reply.completion_tokens)
    if paragraphs and not checked.paragraphs:
        # Everything the model wrote was unsourced: the documents' own sentences are better.
        warning = ALL_DROPPED.get(language, ALL_DROPPED["en"])
        return extractive([warning], checked.dropped, tokens)
    traced = mark_stated(trace_numbers(checked.paragraphs, sources, context, language, aliases, reading=language))
    traced = mark_collections(traced, checked.sources)
    judged = judge_support(traced, checked.sources, settings, language) if settings.answer.support_check else None
    return Answer(
        question=question,
        language=language,  # type: ignore[arg-type]
        mode="llm",
        model=settings.llm.model,
        paragraphs=judged.paragraphs if judged else traced,
        unsupported_numbers=count(traced, "unsupported"),
        mismatched_numbers=count(traced, "mismatch"),
        missing_information=" ".join([*notes, reply.output.missing_information.strip()]).strip(),
        **marks,
        warnings=judged.warnings if judged else [],
        check_prompt_tokens=judged.prompt_tokens if judged else 0,
        check_completion_tokens=judged.completion_tokens if judged else 0,
        check_elapsed_s=judged.elapsed_s if judged else 0.0,
        sources=checked.sources,
        uncited=checked.uncited,
        dropped=checked.dropped,
        parent_ids=[hit.parent.id for hit in context],
        elapsed_s=time.perf_counter() - started,
        prompt_tokens=tokens[0],
        completion_tokens=tokens[1],
    )
