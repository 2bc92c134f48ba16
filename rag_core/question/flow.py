"""From a question's context to a verified answer: rewrite, route, split, search, rerank, answer.

`QuestionFlow` is the one driver of a non-greeting question; everything it reads is in its
`QuestionContext` (language detected once, scope, earlier turns, word lists, searcher).
1. A follow-up is rewritten into a standalone question (`followups`).
2. The router gives the budget (3/5/7 parents) and, for a comparison, 1-3 sub-questions sharing it (`budget`).
3. Each sub-question's searches run in order (`retrieving.retrieve`: search, reranker and its one
   reformulation, the term check and its one more search), the sub-questions in parallel.
4. Each sub-question is answered from its own parents (`answering.AnswerRun`), after the reader stage
   (`rag_core.reading`: which candidate passage states the answer, a near miss refused); the answer gives its paragraphs
   per sub-question and names the sub-questions that found nothing (`merge`). A single question's answer
   streams. Only this turn's sources are evidence; this module neither stores nor audits.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

from rag_core import answering
from rag_core.answering.coverage import CoverageScope
from rag_core.config import Settings
from rag_core.llm import llm_configured, skipped_note
from rag_core.models import Answer, SearchResult, SubQuestion
from rag_core.question.context import QuestionContext, SearchRequest, question_language
from rag_core.question.events import Found, Searching
from rag_core.question.merge import merge_answers
from rag_core.question.retrieving import Retrieved, retrieve
from rag_core.reading import context_reader
from rag_core.reranking import Reranker, select_reranker
from rag_core.text import fold
from rag_core.understanding.budget import plan_question
from rag_core.understanding.followups import Message, rewrite_followup
from rag_core.understanding.reply_checks import checked_rewrite
from rag_core.understanding.subquestions import share_budget
from rag_core.understanding.thesaurus import load_thesaurus

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="subquestion")  # the question and up to 3 subs

FlowEvent = Searching | Found | answering.Event


def _pairs(history: Sequence[Message]) -> list[tuple[str, str]]:
    out = []
    for (role, text), (next_role, reply) in zip(history, history[1:]):
        if role == "user" and next_role == "assistant":
            out.append((text, reply))
    return out


def _with_budget(settings: Settings, parents: int) -> Settings:
    return settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update={"context_k": parents})})


class QuestionFlow:
    """Understand, retrieve, answer (see the module docstring): `events()` gives `Searching`, `Found`,
    then the answer's events (`Draft`, `Checked`, `Queued`) and its `Final`; `stop()` ends a streaming
    answer. A comparison's sub-questions are answered in parallel and give their merged answer as one `Final`."""

    def __init__(self, ctx: QuestionContext) -> None:
        self.ctx = ctx
        self.started = time.perf_counter()
        self._inner: answering.AnswerRun | None = None
        self._extra: dict = {}
        self._notes: list[str] = []
        self._subs: list[SubQuestion] = []
        self.reranker: Reranker | None = None

    def understand(self) -> list[tuple[str, int]]:
        """Rewrite, route and split the question: its (sub-)questions and each one's share of the budget."""
        ctx, settings = self.ctx, self.ctx.settings
        use_llm = llm_configured(settings)
        skip = [skipped_note(settings, c, ctx.language) if use_llm else None for c in ("rewrite", "router")]
        rewrite = rewrite_followup(ctx.question, list(ctx.history), settings, use_llm and not skip[0], ctx.language)
        rewrite, set_aside = checked_rewrite(rewrite, ctx.history, ctx.language)
        standalone = rewrite.standalone
        plan = plan_question(standalone, settings, use_llm and not skip[1], language=ctx.language)
        notes = (skip[0] if ctx.history else None, skip[1], set_aside, plan.note)
        self._notes = [n for n in notes if n]
        # the user's question is always searched (made standalone when it is a follow-up); sub-questions add searches
        subs = [standalone, *(s for s in plan.sub_questions if fold(s).strip(" ?") != fold(standalone).strip(" ?"))]
        self.reranker = select_reranker(settings)
        self._extra = {
            "question": ctx.question,
            "standalone_question": standalone if rewrite.changed else "",
            "budget": plan.parents,
            "budget_kind": plan.kind,
            "budget_reason": plan.reason,
        }
        return list(zip(subs, share_budget(plan.parents, len(subs))))

    def retrieve(self, plan: Sequence[tuple[str, int]]) -> list[Retrieved]:
        """Every sub-question's searches, the sub-questions in parallel."""
        return list(_POOL.map(lambda item: retrieve(self.ctx, item[0], item[1], self.reranker), plan))

    def _run_for(
        self, got: Retrieved, pairs: list[tuple[str, str]], started: float | None = None
    ) -> answering.AnswerRun:
        budget = _with_budget(self.ctx.settings, got.sub.parents)
        return answering.AnswerRun(
            got.sub.question,
            got.result,
            budget,
            pairs or None,
            got.coverage,
            got.retried,
            started,
            language=self.ctx.language,
            reader=context_reader(got.sub.question, budget, self.ctx.language),
        )

    def _dress(self, answer: Answer) -> Answer:
        update = {**self._extra, "elapsed_s": time.perf_counter() - self.started, "sub_questions": self._subs}
        return answer.model_copy(update={**update, "warnings": [*answer.warnings, *self._notes]})

    def answer(self, retrieved: Sequence[Retrieved]) -> Iterator[answering.Event]:
        """The answer from the searches' results: drafts and checked paragraphs, then `Final`."""
        pairs = _pairs(self.ctx.history)
        self._extra["expanded_terms"] = list(dict.fromkeys(t for got in retrieved for t in got.result.expanded_terms))
        if len(retrieved) == 1:
            self._subs = [retrieved[0].sub] if self.reranker is not None else []
            self._inner = self._run_for(retrieved[0], pairs, self.started)
            for event in self._inner.events():
                yield answering.Final(self._dress(event.answer)) if isinstance(event, answering.Final) else event
            return
        answers = list(_POOL.map(lambda got: answering.answer_from(self._run_for(got, pairs)), retrieved))
        subs = [got.sub for got in retrieved]
        merged = merge_answers(self.ctx.question, answers, subs, self._extra, self.ctx.language)
        done = {"elapsed_s": time.perf_counter() - self.started, "warnings": [*merged.warnings, *self._notes]}
        yield answering.Final(merged.model_copy(update=done))

    def events(self) -> Iterator[FlowEvent]:
        """The whole path, once: understand, retrieve, answer."""
        plan = self.understand()
        yield Searching(tuple(q for q, _ in plan))
        retrieved = self.retrieve(plan)
        yield Found.of([got.result for got in retrieved])
        yield from self.answer(retrieved)

    def stop(self) -> Answer | None:
        """Stop a streaming answer: the paragraphs verified so far (None when nothing streams)."""
        return self._dress(self._inner.stop()) if self._inner is not None else None


def answer_question(
    question: str,
    settings: Settings,
    search: Callable[[SearchRequest], SearchResult],
    history: Sequence[Message] = (),
    library: CoverageScope | None = None,
) -> Answer:
    """The question flow outside the façade, with `search` running each search it asks for (tests and
    benchmarks give their own). With `library`, each (sub-)question's terms are checked against it first."""
    ctx = QuestionContext(
        question, settings, question_language(question), search, tuple(history), library, load_thesaurus(settings)
    )
    for event in QuestionFlow(ctx).events():
        if isinstance(event, answering.Final):
            return event.answer
    raise AssertionError("a question run always ends with its final answer")  # pragma: no cover
