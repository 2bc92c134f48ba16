"""From a user's question to a verified answer: rewrite, route, split, search, rerank, answer.

The question's language is detected once (`QuestionRun.language`) and handed to every step.
1. A follow-up is rewritten into a standalone question (`followups`).
2. The router gives the budget (3/5/7 parents) and, for a comparison, 1-3 sub-questions sharing it (`budget`).
3. The run says which searches it needs (`QuestionRun.searches`: `SearchRequest`s) and the façade runs them,
   all the sub-questions' at once, and hands the results back (`QuestionRun.searched`), which may ask for one
   more round: this module never searches.
4. With a reranker, the candidates' best children are reread and a minimum score applies; when nothing passes,
   one reformulation is searched (a second round), then the sub-question has "no source". With the term check
   (`answering.coverage`), terms the library mentions but the passages do not are searched once more (last round).
5. Each sub-question is answered from its own parents (`answering.AnswerRun`); the answer gives its paragraphs
   per sub-question and names the sub-questions that found nothing. A single question's answer streams
   (`QuestionRun.events`); `AskStream` is the façade's stream of it. Only this turn's sources are evidence;
   this module does not store conversations.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from rag_core import answering, messages, understanding
from rag_core.answering.coverage import Coverage, CoverageScope, coverage_retry, use_retry
from rag_core.config import Settings
from rag_core.llm import known_dialect, llm_configured, skipped_note
from rag_core.models import Answer, Language, SearchResult, Source, SubQuestion
from rag_core.pipeline.connection import open_store
from rag_core.reranking import Reranker, rerank, select_reranker
from rag_core.text import detect_language
from rag_core.understanding.budget import Plan, plan_question
from rag_core.understanding.followups import Message, key_terms, rewrite_followup
from rag_core.understanding.furniture import furniture_words
from rag_core.understanding.subquestions import share_budget
from rag_core.understanding.thesaurus import load_thesaurus

_POOL = ThreadPoolExecutor(max_workers=3, thread_name_prefix="subquestion")


@dataclass(frozen=True)
class SearchRequest:
    """One search a question needs: the query, how many parents, and the question's language."""

    query: str
    k: int
    language: Language


@dataclass(frozen=True)
class Retrieved:
    """What one (sub-)question's searches gave: its parents and what the term check found."""

    result: SearchResult
    sub: SubQuestion
    coverage: Coverage | None = None
    retried: tuple[str, ...] = ()


Steps = Generator[SearchRequest, SearchResult, Retrieved]  # asks for searches, ends with what they gave

NO_SOURCE = {
    "en": "No source was found for the sub-question “{q}”.",
    "fr": "Aucune source n'a été trouvée pour la sous-question « {q} ».",
}


def reformulate(question: str, settings: Settings) -> str:
    """The one reformulation tried when the reranker rejects every passage: the question's key
    terms plus the preferred labels of the concepts it names."""
    terms = key_terms(question)
    thesaurus = load_thesaurus(settings)
    if thesaurus is not None:
        for concept in thesaurus.recognise(question):
            terms.extend(label for label in concept.pref_labels if label not in terms)
    return " ".join(terms)


def _found(result: SearchResult, settings: Settings, reranked: bool) -> bool:
    if not result.parents:
        return False
    return reranked or max(h.fused_score for h in result.parents) >= answering.evidence_threshold(settings)


def retrieve(
    question: str, share: int, settings: Settings, reranker: Reranker | None, language: Language
) -> Generator[SearchRequest, SearchResult, tuple[SearchResult, SubQuestion]]:
    """The searches of one (sub-)question, asked for one at a time; reranked with one reformulation
    when a reranker is configured."""
    if reranker is None:
        result = yield SearchRequest(question, max(share, 10), language)
        return result, SubQuestion(
            question=question,
            parents=share,
            found=_found(result, settings, False),
            parent_ids=[h.parent.id for h in result.parents[:share]],
        )
    candidates = max(settings.reranker.candidates, share)
    keep = max(settings.reranker.keep, share)
    found = yield SearchRequest(question, candidates, language)
    result = rerank(question, found, reranker, keep, settings.reranker.min_score)
    tried = ""
    if not result.parents:
        tried = reformulate(question, settings)
        if tried and tried != question:
            found = yield SearchRequest(tried, candidates, language)
            result = rerank(question, found, reranker, keep, settings.reranker.min_score)
    return result, SubQuestion(
        question=question,
        parents=share,
        found=_found(result, settings, True),
        parent_ids=[h.parent.id for h in result.parents[:share]],
        reformulated=tried,
    )


def checked(
    question: str,
    share: int,
    settings: Settings,
    reranker: Reranker | None,
    library: CoverageScope | None,
    language: Language,
) -> Steps:
    """`retrieve`, then the term check of its parents, with the one more search it may ask for."""
    result, sub = yield from retrieve(question, share, settings, reranker, language)
    if library is None:
        return Retrieved(result, sub)
    coverage = library.check(question, result.parents[: sub.parents], language)
    retry = coverage_retry(question, coverage, sub.parents)
    if retry is None:
        return Retrieved(result, sub, coverage)
    again = yield SearchRequest(retry.query, retry.k, language)
    kept, checked, retried = use_retry(question, result, coverage, retry, again, sub.parents, library, language)
    return Retrieved(kept, sub, checked, retried)


def _pairs(history: Sequence[Message]) -> list[tuple[str, str]]:
    out = []
    for (role, text), (next_role, reply) in zip(history, history[1:]):
        if role == "user" and next_role == "assistant":
            out.append((text, reply))
    return out


def _with_budget(settings: Settings, parents: int) -> Settings:
    return settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update={"context_k": parents})})


class QuestionRun:
    """The full question path for a non-greeting question (see the module docstring): `searches()`
    then `searched(results)` until it asks for none, then `events()`.

    A single (sub-)question streams its answer (`answering.AnswerRun`); a comparison's
    sub-questions are answered in parallel and give their merged answer as one `Final`."""

    def __init__(
        self,
        question: str,
        settings: Settings,
        history: Sequence[Message] = (),
        library: CoverageScope | None = None,
        language: Language | None = None,
    ) -> None:
        self.question, self.settings = question, settings
        self.history, self.library = list(history), library
        self.language: Language = language or detect_language(question)  # type: ignore[assignment]
        self.started = time.perf_counter()
        self._inner: answering.AnswerRun | None = None
        self._extra: dict = {}
        self._subs: list[SubQuestion] = []
        self._steps: list[Steps] = []
        self._waiting: list[tuple[int, SearchRequest]] = []  # (sub-question, its request) of this round
        self.retrieved: list[Retrieved | None] = []
        self.reranked = False

    # ---- the searches, run by the caller
    def searches(self) -> list[SearchRequest]:
        """Rewrite, route and split the question; the first round of searches it needs (one per sub-question)."""
        settings = self.settings
        use_llm = llm_configured(settings)
        skip = [skipped_note(settings, c, self.language) if use_llm else None for c in ("rewrite", "router")]
        rewrite = rewrite_followup(self.question, self.history, settings, use_llm and not skip[0], self.language)
        standalone = rewrite.standalone
        plan: Plan = plan_question(standalone, settings, use_llm and not skip[1], language=self.language)
        self._notes: list[str] = [n for n in (skip[0] if self.history else None, skip[1]) if n]
        subs = plan.sub_questions or [standalone]
        reranker = select_reranker(settings)
        self.reranked = reranker is not None
        self._extra = {
            "question": self.question,
            "standalone_question": standalone if rewrite.changed else "",
            "budget": plan.parents,
            "budget_kind": plan.kind,
            "budget_reason": plan.reason,
        }
        self._steps = [
            checked(q, share, settings, reranker, self.library, self.language)
            for q, share in zip(subs, share_budget(plan.parents, len(subs)))
        ]
        self.retrieved = [None] * len(subs)
        return self._advance([(i, None) for i in range(len(subs))])

    def searched(self, results: Sequence[SearchResult]) -> list[SearchRequest]:
        """The results of the last round's searches, in their order; the next round ([]: all done)."""
        if len(results) != len(self._waiting):
            raise ValueError(f"{len(self._waiting)} search results expected, {len(results)} given")
        return self._advance([(i, result) for (i, _), result in zip(self._waiting, results)])

    def _advance(self, given: list[tuple[int, SearchResult | None]]) -> list[SearchRequest]:
        def step(item: tuple[int, SearchResult | None]) -> SearchRequest | None:
            i, result = item
            try:
                return next(self._steps[i]) if result is None else self._steps[i].send(result)
            except StopIteration as done:
                self.retrieved[i] = done.value
                return None

        asked = list(_POOL.map(step, given))  # the sub-questions' reranking runs in parallel
        self._waiting = [(i, request) for (i, _), request in zip(given, asked) if request is not None]
        return [request for _, request in self._waiting]

    # ---- the answer
    def _run_for(
        self, got: Retrieved, pairs: list[tuple[str, str]], started: float | None = None
    ) -> answering.AnswerRun:
        budget = _with_budget(self.settings, got.sub.parents)
        return answering.AnswerRun(
            got.sub.question,
            got.result,
            budget,
            pairs or None,
            got.coverage,
            got.retried,
            started,
            language=self.language,
        )

    def _dress(self, answer: Answer) -> Answer:
        update = {**self._extra, "elapsed_s": time.perf_counter() - self.started, "sub_questions": self._subs}
        return answer.model_copy(update={**update, "warnings": [*answer.warnings, *self._notes]})

    def events(self) -> Iterator[answering.Event]:
        """The answer from the searches' results: drafts and checked paragraphs, then `Final`."""
        retrieved = [got for got in self.retrieved if got is not None]
        if not retrieved or len(retrieved) != len(self.retrieved) or self._waiting:
            raise RuntimeError("QuestionRun.events() before every search it asked for was given")
        pairs = _pairs(self.history)
        self._extra["expanded_terms"] = list(dict.fromkeys(t for got in retrieved for t in got.result.expanded_terms))
        if len(retrieved) == 1:
            self._subs = [retrieved[0].sub] if self.reranked else []
            self._inner = self._run_for(retrieved[0], pairs, self.started)
            for event in self._inner.events():
                yield answering.Final(self._dress(event.answer)) if isinstance(event, answering.Final) else event
            return
        answers = list(_POOL.map(lambda got: answering.answer_from(self._run_for(got, pairs)), retrieved))
        merged = _merge(self.question, answers, [got.sub for got in retrieved], self._extra, self.language)
        done = {"elapsed_s": time.perf_counter() - self.started, "warnings": [*merged.warnings, *self._notes]}
        yield answering.Final(merged.model_copy(update=done))

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
    """The full question path for a non-greeting question with `search` running each search it asks
    for (tests and benchmarks; the façade runs them itself). With `library`, each (sub-)question's
    terms are checked against it first (`answering.coverage`)."""
    run = QuestionRun(question, settings, history, library)
    requests = run.searches()
    while requests:
        requests = run.searched([search(request) for request in requests])
    return _final(run.events())


def _final(events: Iterator[answering.Event]) -> Answer:
    for event in events:
        if isinstance(event, answering.Final):
            return event.answer
    raise AssertionError("a question run always ends with its final answer")  # pragma: no cover


class AskStream:
    """One question of the façade as events (`answering.Draft`, `Checked`, then `Final`).

    `start` gives a finished answer (a greeting) or the `QuestionRun` to follow; `finish` stores
    and audits the answer that ends the stream: the final one, or the one `stop()` keeps."""

    def __init__(self, start: Callable[[], Answer | QuestionRun], finish: Callable[[Answer], None]) -> None:
        self._start, self._finish = start, finish
        self._run: QuestionRun | None = None
        self.answer: Answer | None = None

    def __iter__(self) -> Iterator[answering.Event]:
        return self.events()

    def _done(self, answer: Answer) -> Answer:
        if self.answer is None:
            self.answer = answer
            self._finish(answer)
        return self.answer

    def events(self) -> Iterator[answering.Event]:
        begun = self._start()
        if isinstance(begun, Answer):
            yield answering.Final(self._done(begun))
            return
        self._run = begun
        for event in begun.events():
            if isinstance(event, answering.Final):
                yield answering.Final(self._done(event.answer))
                return
            yield event

    def stop(self) -> Answer | None:
        """End the model's stream; the paragraphs verified before the stop are the answer (stored, audited)."""
        if self.answer is not None or self._run is None:
            return self.answer
        stopped = self._run.stop()
        return self._done(stopped) if stopped is not None else None

    def result(self) -> Answer:
        """Wait for the final answer."""
        return _final(self.events())


def coverage_scope(settings: Settings, scope: Sequence[str]) -> CoverageScope:
    """What the question's term check may look up: the same scope as the search (readable documents only)."""
    store = open_store(settings)
    records = [r for r in store.documents() if r.doc_id in set(scope)]
    thesaurus = understanding.load_thesaurus(settings)
    return CoverageScope(
        lambda words, limit: store.passages_with(words, scope, limit),
        frozenset(r.language for r in records),
        thesaurus,
        sum(r.children for r in records),
        understanding.load_glossary(settings),
        furniture_words(settings, records),
    )


def answers_backend(settings: Settings) -> str:
    """The answer backend as the home page's backends table says it: endpoint, model, dialect, streaming."""
    where = "Azure OpenAI" if settings.llm.provider == "azure" else "LLM"
    dialect = known_dialect(settings)
    key = f"engines.llm_{'' if dialect else 'probe_'}{'' if settings.llm.stream else 'not_'}streamed"
    return messages.message(key, where=where, model=settings.llm.model, dialect=dialect)


def _merge(question: str, answers: list[Answer], subs: list[SubQuestion], extra: dict, language: str) -> Answer:
    """One answer with a paragraph (or more) per sub-question; a sub-question with no source is named."""
    paragraphs, uncited, dropped, warnings, missing, parent_ids = [], [], [], [], [], []
    sources: list[Source] = []
    marked, marks = [], []
    for ans, sub in zip(answers, subs, strict=True):
        found = sub.found and ans.mode != "refused" and bool(ans.paragraphs)
        marked.append(sub.model_copy(update={"found": found}))
        if not found:
            missing.append(NO_SOURCE.get(language, NO_SOURCE["en"]).format(q=sub.question))
            continue
        paragraphs += [p.model_copy(update={"sub_question": sub.question}) for p in ans.paragraphs]
        sources += [s for s in ans.sources if s.id not in {x.id for x in sources}]
        uncited += ans.uncited
        dropped += ans.dropped
        warnings += [w for w in ans.warnings if w not in warnings]
        marks += [m for m in ans.marks if m not in marks]
        if ans.missing_information:
            missing.append(ans.missing_information)
        parent_ids += [p for p in ans.parent_ids if p not in parent_ids]
    cited = {s.id for s in sources}
    uncited = list({s.id: s for s in uncited if s.id not in cited}.values())
    modes = {a.mode for a, s in zip(answers, marked) if s.found}
    mode = "llm" if "llm" in modes else "extractive" if modes else "refused"
    return Answer(
        language=language,
        mode=mode,
        model=next((a.model for a in answers if a.model), ""),
        paragraphs=paragraphs,
        missing_information="\n".join(missing),
        sources=sources,
        uncited=uncited,
        dropped=dropped,
        warnings=warnings,
        marks=marks,
        parent_ids=parent_ids,
        sub_questions=marked,
        prompt_tokens=sum(a.prompt_tokens for a in answers),
        completion_tokens=sum(a.completion_tokens for a in answers),
        unsupported_numbers=sum(a.unsupported_numbers for a, s in zip(answers, marked) if s.found),
        mismatched_numbers=sum(a.mismatched_numbers for a, s in zip(answers, marked) if s.found),
        **extra,
    )
