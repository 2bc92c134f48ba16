"""The question flow: from the page's question to the stored, audited answer, as typed events.

`QuestionStream` (`stream.py`) is what the façade's `ask` and `ask_stream` return the work of: it
builds one `QuestionContext` (`context.py`: principal and scope, the language detected once, the
earlier turns, store, embedder, thesaurus and glossary, settings), runs the one driver
`QuestionFlow` (`flow.py`: rewrite, route, split, each sub-question's searches and retries in
`retrieving.py`, the answer from `rag_core.answering`, a comparison merged in `merge.py`), and
stores and audits the answer that ends it. Its events are in `events.py`; which sources count as
cited is decided once in `sources.py`. The flow never renders and never calls the façade.
"""

from __future__ import annotations

from rag_core.question.context import QuestionContext, SearchRequest, build_context, coverage_scope
from rag_core.question.events import Checked, Done, Draft, Event, Failed, Found, Queued, Refused, Searching
from rag_core.question.flow import QuestionFlow, answer_question
from rag_core.question.sources import answer_sources, cited_sources
from rag_core.question.stream import QuestionStream

__all__ = [
    "Checked",
    "Done",
    "Draft",
    "Event",
    "Failed",
    "Found",
    "QuestionContext",
    "QuestionFlow",
    "QuestionStream",
    "Queued",
    "Refused",
    "SearchRequest",
    "Searching",
    "answer_question",
    "answer_sources",
    "build_context",
    "cited_sources",
    "coverage_scope",
]
