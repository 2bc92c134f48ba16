"""One answer as it is written: events for each paragraph the model completes, checked at once.

`AnswerRun.events()` yields `Draft` (the paragraph being written, as far as it goes: not verified,
for display only), `Checked` (a completed paragraph after the citation, quote and number checks;
`paragraph` is None when the checks removed it) and, last, `Final` with the fully verified
`Answer`, which replaces everything shown before. A refusal, an extractive answer or a failed
model call gives `Final` only (the failure as a warning on an extractive answer: a broken stream
never leaves a half-verified answer). `stop()` ends the model's stream and returns the answer
made of the paragraphs completed before the stop, verified together like any final answer.
This module neither searches nor stores.
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from rag_core.answering import guardrails
from rag_core.answering.context_budget import CHARS_PER_TOKEN as CHARS_PER_TOKEN
from rag_core.answering.context_budget import context_parents, evidence_threshold
from rag_core.answering.coverage import Coverage, apart_message, coverage_notes, missing_message
from rag_core.answering.extractive import extractive_paragraphs
from rag_core.answering.fitting import fit_messages
from rag_core.answering.guardrails import Evidence, Mode
from rag_core.answering.lead import ReadContext, ReaderVerdict, near_miss_message, short_paragraph
from rag_core.answering.model_answer import FORMAT_ECHOES, LLMReply, ParagraphOut, split_paragraphs, stream_model
from rag_core.answering.number_trace import count
from rag_core.answering.prompts import number_sources
from rag_core.answering.run_messages import ALL_DROPPED, CUT_KEPT, NOTHING_FOUND, STOPPED, STOPPED_EMPTY
from rag_core.answering.verification import Verified, held_to_contract, verify_citations, without_denials
from rag_core.citations import build_sources, parent_source_id
from rag_core.config import Settings
from rag_core.errors import LLMError
from rag_core.llm import Retrying, Waiting, known_dialect, llm_configured
from rag_core.llm.shaping import estimate_tokens, message_chars
from rag_core.models import Answer, Computation, Paragraph, SearchResult, Source
from rag_core.text import detect_language


@dataclass(frozen=True)
class Draft:
    """The paragraph being written, as the model has written it so far: unverified, shown as a draft."""

    index: int
    text: str


@dataclass(frozen=True)
class Checked:
    """A completed paragraph after the checks (None when they removed it, with the reason)."""

    index: int
    paragraph: Paragraph | None
    sources: list[Source]
    dropped: str = ""


@dataclass(frozen=True)
class Queued:
    """The endpoint runs one generation at a time and is busy: this answer waits, `position` 1 being next."""

    index: int
    position: int


@dataclass(frozen=True)
class Final:
    """The fully verified answer: it replaces the drafts and the checked paragraphs shown before."""

    answer: Answer


Event = Draft | Checked | Queued | Final


def _paragraph(p: ParagraphOut) -> Paragraph:
    return Paragraph(
        text=p.text,
        source_ids=list(p.source_ids),
        quote=p.quote,
        computations=[Computation.model_validate(c.model_dump()) for c in p.computations],
    )


class AnswerRun:
    """The answer to one (sub-)question from its search result (see the module docstring)."""

    def __init__(
        self,
        question: str,
        result: SearchResult,
        settings: Settings,
        history: list[tuple[str, str]] | None = None,
        coverage: Coverage | None = None,
        retried: Sequence[str] = (),
        started: float | None = None,
        language: str | None = None,
        reader: ReadContext | None = None,
    ) -> None:
        self.question, self.result, self.settings = question, result, settings
        self.reader = reader  # the reader stage (`answering.lead`), asked once in events()
        self.verdict: ReaderVerdict | None = None
        translated = result.translated.forms if result.translated is not None else []
        self.search_terms = [*result.expanded_terms, *translated]  # the search's added terms and translations
        self.history, self.coverage, self.retried = history, coverage, list(retried)
        self.started = time.perf_counter() if started is None else started
        # the question's language as the caller detected it once; else the search's, else detected here
        self.language = language or result.language or detect_language(question)
        self.k = context_parents(result, settings)
        self.context = list(result.parents[: self.k])
        self.sources = build_sources(result, self.k)
        self.aliases: dict[str, str] = {}
        self.completed: list[Paragraph] = []  # every paragraph the model completed, as written
        self.first_paragraph_s = 0.0
        self.dialect = ""
        self._sent = ""  # the messages sent to the model, as text (what an estimate of its tokens reads)
        self._model: Generator[str | LLMReply | Waiting | Retrying, None, None] | None = None
        self.final: Answer | None = None
        absent = list(coverage.not_retrieved) if coverage is not None else []
        self.absent = absent
        self.term_fields = {"terms_not_in_passages": absent, "retried_terms": self.retried}
        read = coverage.read_as if coverage is not None else ()
        self.notes = coverage_notes(absent, self.retried, self.language, read)

    # ---- answers without a model
    def _refusal(self, missing_terms: Sequence[str] = (), message: str = "") -> Answer:
        return Answer(
            question=self.question,
            language=self.language,
            mode="refused",
            missing_information=message
            or (
                missing_message(missing_terms, self.language)
                if missing_terms
                else NOTHING_FOUND.get(self.language, NOTHING_FOUND["en"])
            ),
            missing_terms=list(missing_terms),
            uncited=[s for s in self.sources if s.kind == "parent"],
            parent_ids=[hit.parent.id for hit in self.context],
            elapsed_s=time.perf_counter() - self.started,
        )

    def _near_miss(self, verdict: ReaderVerdict) -> Answer:
        """No candidate passage was judged to state the answer: refused, naming what was looked for."""
        terms = [t.text for t in self.coverage.terms] if self.coverage is not None else []
        refusal = self._refusal(message=near_miss_message(terms, self.question, self.language))
        return refusal.model_copy(update={"reading": verdict.summary})

    def _refused_by(self, coverage: Coverage) -> Answer:
        """A term no document mentions, else constraints no one retrieved passage holds together."""
        if coverage.missing:
            return self._refusal(coverage.missing)
        return self._refusal(coverage.apart, apart_message(coverage.apart, coverage.together, self.language))

    def _evidence(self, mode: Mode, checked: Verified, stopped: bool = False) -> Evidence:
        return Evidence(
            mode,
            self.language,
            self.settings,
            self.sources,
            checked.sources,
            self.context,
            self.aliases if mode == "llm" else {},
            stopped,
            self.question,
            self.search_terms,
        )

    def _base(
        self, mode: str, checked: Verified, outcome: guardrails.Outcome, tokens: tuple[int, int], estimated: bool
    ) -> dict:
        """The fields both kinds of answer fill the same way (the guard-rails' marks and costs included)."""
        return dict(
            question=self.question,
            language=self.language,
            mode=mode,
            paragraphs=outcome.paragraphs,
            unsupported_numbers=count(outcome.paragraphs, "unsupported"),
            mismatched_numbers=count(outcome.paragraphs, "mismatch"),
            sources=checked.sources,
            uncited=checked.uncited,
            marks=outcome.marks,
            check_prompt_tokens=outcome.prompt_tokens,
            check_completion_tokens=outcome.completion_tokens,
            check_elapsed_s=outcome.elapsed_s,
            parent_ids=[hit.parent.id for hit in self.context],
            elapsed_s=time.perf_counter() - self.started,
            prompt_tokens=tokens[0],
            completion_tokens=tokens[1],
            tokens_estimated=estimated,
            dialect=self.dialect,
            **self.term_fields,
        )

    def extractive(
        self,
        warnings: Sequence[str] = (),
        dropped: Sequence[str] = (),
        tokens: tuple[int, int] = (0, 0),
        fallback: str = "",
        estimated: bool = False,
    ) -> Answer:
        """The documents' own sentences; `fallback`: why the model's answer could not be used, when one failed."""
        forms = self.result.translated.forms if self.result.translated is not None else []
        ids = [parent_source_id(h.parent) for h in self.context]
        verdict = self.verdict
        paragraphs = extractive_paragraphs(
            self.context,
            self.question,
            ids,
            self.language,
            [*self.result.expanded_terms, *forms],
            self.result.announced,
            verdict.lead if verdict is not None else None,
        )
        short = short_paragraph(verdict, self.context, ids, self.language) if verdict is not None else None
        paragraphs = [short, *paragraphs] if short is not None else paragraphs
        checked = verify_citations(paragraphs, self.sources, self.language)
        outcome = guardrails.apply(checked.paragraphs, self._evidence("extractive", checked))
        return Answer(
            **self._base("extractive", checked, outcome, tokens, estimated),
            fallback=fallback,
            dropped=[*dropped, *checked.dropped],
            warnings=[*warnings, *outcome.warnings],
            missing_information=" ".join(self.notes),
            reading=verdict.summary if verdict is not None else None,
        )

    # ---- the model's answer
    def _check(self, index: int, raw: dict[str, Any]) -> Checked | None:
        try:
            paragraph = _paragraph(ParagraphOut.model_validate(raw))
        except ValidationError:
            return None  # the final validation (and its repair request) decides
        held, over = held_to_contract([*self.completed, paragraph], self.settings.llm.max_paragraphs, self.language)
        if len(held) == len(self.completed):  # a repeat, or one past the limit: said in the final answer
            return Checked(index, None, [], "; ".join(over[-1:]))
        paragraph = held[-1]
        self.completed.append(paragraph)
        checked = verify_citations([paragraph], self.sources, self.language, self.aliases, FORMAT_ECHOES)
        if not self.first_paragraph_s:
            self.first_paragraph_s = time.perf_counter() - self.started
        if not checked.paragraphs:
            return Checked(index, None, [], "; ".join(checked.dropped))
        outcome = guardrails.apply(checked.paragraphs, self._evidence("llm", checked), whole=False)
        return Checked(index, outcome.paragraphs[0], checked.sources)

    def _verified(
        self, paragraphs: list[Paragraph], reply: LLMReply | None, stopped: bool, warnings: Sequence[str] = ()
    ) -> Answer:
        if reply is not None:
            tokens, estimated = (reply.prompt_tokens, reply.completion_tokens), reply.estimated
        else:  # cut or stopped: no usage came back, so the tokens sent and the ones written are estimated
            written = estimate_tokens(" ".join(p.text + " " + p.quote for p in paragraphs))
            tokens, estimated = (estimate_tokens(self._sent), written), True
        warnings = [*(reply.notes if reply else ()), *warnings]
        paragraphs, over = held_to_contract(paragraphs, self.settings.llm.max_paragraphs, self.language)
        said = reply.output.missing_information if reply else ""
        paragraphs, missing, denials = without_denials(paragraphs, said, self.language)
        over += denials
        checked = verify_citations(paragraphs, self.sources, self.language, self.aliases, FORMAT_ECHOES)
        if paragraphs and not checked.paragraphs:
            # Everything the model wrote was unsourced: the documents' own sentences are better; its reply is kept.
            fallback = ALL_DROPPED.get(self.language, ALL_DROPPED["en"])
            fallen = self.extractive([*warnings, fallback], [*over, *checked.dropped], tokens, fallback, estimated)
            raw = reply.output.model_dump_json() if reply else json.dumps([p.text for p in paragraphs])
            return fallen.model_copy(update={"fallback_reply": raw[:2000]})
        outcome = guardrails.apply(checked.paragraphs, self._evidence("llm", checked, stopped))
        return Answer(
            **self._base("llm", checked, outcome, tokens, estimated),
            model=self.settings.llm.model,
            missing_information=" ".join([*self.notes, missing]).strip(),
            warnings=[*warnings, *outcome.warnings],
            dropped=[*over, *checked.dropped],
            first_paragraph_s=self.first_paragraph_s or time.perf_counter() - self.started,
        )

    def _finish(self, answer: Answer) -> Final:
        self.final = answer
        return Final(answer)

    def _refused_first(self) -> Answer | None:
        """The refusal decided before any answer is written: a term or a constraint the library lacks, evidence
        too weak, or no candidate the reader judged to answer (it reads here, once); None: answer."""
        if self.coverage is not None and self.coverage.refuses:
            return self._refused_by(self.coverage)
        if not self.context or max(hit.fused_score for hit in self.result.parents) < evidence_threshold(self.settings):
            return self._refusal()
        self.verdict = self.reader(self.context, self.search_terms) if self.reader is not None else None
        return self._near_miss(self.verdict) if self.verdict is not None and self.verdict.refuses else None

    def _messages(self) -> list[dict[str, Any]]:
        """The model's messages, cut to the endpoint's context: a long first parent around its best children."""
        prompt_sources = number_sources(self.sources)
        self.aliases = {ps.alias: ps.source.id for ps in prompt_sources}
        fit = (self.settings, self.language, self.history, self.absent, self.search_terms)
        messages, _ = fit_messages(self.question, prompt_sources, self.context, *fit)
        return messages

    def events(self) -> Iterator[Event]:
        """Drafts and checked paragraphs while the model writes, then the final answer (see the module docstring)."""
        refused = self._refused_first()
        if refused is not None:
            yield self._finish(refused)
            return
        if not llm_configured(self.settings):
            yield self._finish(self.extractive())
            return
        messages = self._messages()
        self._sent = message_chars(messages)
        model = self._model = stream_model(messages, self.settings, self.language)
        reply: LLMReply | None = None
        done = 0
        try:
            for item in model:
                if isinstance(item, LLMReply):
                    reply = item
                    continue
                if isinstance(item, Waiting):
                    yield Queued(done, item.position)
                    continue
                if isinstance(item, Retrying):
                    if self.completed:  # what was completed before the cut is verified and kept; nothing re-asked
                        yield self._finish(self._cut_off(item.limit))
                        return
                    done = 0  # asked again shorter: its paragraphs start over
                    continue
                complete, current = split_paragraphs(item)
                while done < len(complete):
                    event = self._check(done, complete[done])
                    done += 1
                    if event is not None:
                        yield event
                if current:
                    yield Draft(done, current)
        except LLMError as err:
            self.dialect = known_dialect(self.settings) or ""  # accepted, even when its reply was unusable
            # a reply came (cut, or not the format): the model read the prompt and wrote it; estimated, said so
            spent = (estimate_tokens(self._sent), estimate_tokens(err.reply)) if err.reply else (0, 0)
            fallen = self.extractive([str(err)], (), spent, str(err), bool(err.reply))
            yield self._finish(fallen.model_copy(update={"fallback_reply": err.reply[:2000]}))
            return
        finally:
            self._model = None
        assert reply is not None
        self.dialect = reply.dialect
        paragraphs = [_paragraph(p) for p in reply.output.paragraphs]
        for index in range(done, len(paragraphs)):  # not streamed, or the last ones
            event = self._check(index, reply.output.paragraphs[index].model_dump())
            if event is not None:
                yield event
        yield self._finish(self._verified(paragraphs, reply, stopped=False))

    def _cut_off(self, limit: int) -> Answer:
        model, self._model = self._model, None
        if model is not None:
            model.close()  # ends the stream before any new request
        self.dialect = known_dialect(self.settings) or ""
        warning = CUT_KEPT.get(self.language, CUT_KEPT["en"]).format(n=len(self.completed), limit=limit or "?")
        return self._verified(list(self.completed), None, True, [warning])

    def stop(self) -> Answer:
        """End the model's stream; the paragraphs it completed become the answer, verified together."""
        if self.final is not None:
            return self.final
        model, self._model = self._model, None
        if model is not None:
            model.close()  # closes the HTTP stream
        self.dialect = known_dialect(self.settings) or ""
        if not self.completed:
            self.final = self.extractive([STOPPED_EMPTY.get(self.language, STOPPED_EMPTY["en"])])
            return self.final
        warning = STOPPED.get(self.language, STOPPED["en"]).format(n=len(self.completed))
        self.final = self._verified(list(self.completed), None, True, [warning])
        return self.final
