"""One question of the façade as a stream of events (`events.py`), from the page's call to the stored answer.

`QuestionStream` builds the question's context once (`context.build_context`), runs the one
driver (`flow.QuestionFlow`) and, when the answer that ends the stream is known (final, or kept
by `stop()`), stores it in the principal's conversation and writes the audit record itself:
nothing calls back into the façade. A greeting is answered without a search. An error written
for the user (`RagError`) ends the stream as `Failed`; nothing is stored then.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from rag_core import answering
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.errors import RagError
from rag_core.models import Answer
from rag_core.question.context import QuestionContext, build_context, question_language, scope_fields
from rag_core.question.events import Done, Event, Failed, Refused
from rag_core.question.flow import QuestionFlow
from rag_core.question.sources import answer_sources
from rag_core.services import permissions as perm
from rag_core.services.conversations import store_answer
from rag_core.understanding.followups import Message


class QuestionStream:
    """Iterate for the events; `stop()` keeps the paragraphs verified so far; `result()` waits for the answer."""

    def __init__(
        self,
        question: str,
        settings: Settings,
        principal: Principal,
        conversation_id: str | None = None,
        collections: Sequence[str] | None = None,
        doc_ids: Sequence[str] | None = None,
        history: Sequence[Message] | None = None,
    ) -> None:
        self.question, self.settings, self.principal = question, settings, principal
        self.conversation_id, self.collections, self.doc_ids = conversation_id, collections, doc_ids
        self.history = history
        self.started = time.perf_counter()
        self.context: QuestionContext | None = None
        self._flow: QuestionFlow | None = None
        self.answer: Answer | None = None

    def __iter__(self) -> Iterator[Event]:
        return self.events()

    def events(self) -> Iterator[Event]:
        try:
            yield from self._events()
        except RagError as err:
            yield Failed(err)

    def _events(self) -> Iterator[Event]:
        reply = answering.greeting_reply(self.question)
        if reply is not None:
            greeting = Answer(
                question=self.question,
                language=question_language(self.question),
                mode="greeting",
                missing_information=reply,
                elapsed_s=time.perf_counter() - self.started,
            )
            yield self._done(greeting)
            return
        self.context = build_context(
            self.question,
            self.settings,
            self.principal,
            self.conversation_id,
            self.collections,
            self.doc_ids,
            self.history,
        )
        self._flow = QuestionFlow(self.context)
        for event in self._flow.events():
            if isinstance(event, answering.Final):
                yield self._done(event.answer)
                return
            yield event

    def _done(self, answer: Answer) -> Done:
        if self.answer is None:
            self.answer = answer
            self._record(answer)
        return Refused(self.answer) if self.answer.mode == "refused" else Done(self.answer)

    def _record(self, answer: Answer) -> None:
        """The principal's conversation gets the answer; the audit trail what was searched, given and cited."""
        if self.conversation_id:
            store_answer(self.settings, self.conversation_id, answer, self.principal)
        context, cited = answer_sources(answer)
        searched = list(self.context.searched) if self.context is not None else []
        perm.audit(
            self.settings,
            "question",
            self.principal,
            conversation_id=self.conversation_id,
            mode=answer.mode,
            context=context,
            cited=cited,
            **scope_fields(self.settings, searched, "question", self.question, self.collections, self.doc_ids),
        )

    def stop(self) -> Answer | None:
        """End the model's stream; the paragraphs verified before the stop are the answer (stored, audited)."""
        if self.answer is not None or self._flow is None:
            return self.answer
        stopped = self._flow.stop()
        return self._done(stopped).answer if stopped is not None else None

    def result(self) -> Answer:
        """Run the question to its end: the answer, or the error that ended it raised."""
        for event in self.events():
            if isinstance(event, Failed):
                raise event.error
            if isinstance(event, Done):
                return event.answer
        raise AssertionError("a question stream always ends with Done or Failed")  # pragma: no cover
