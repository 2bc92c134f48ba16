"""The reader: a language model that reads the candidate passages of an answer and judges which one states it.

`stage.read` is the stage the answer runs between the search and the answer's composition
(`answering.run.AnswerRun`): the answer leads with the passage judged to answer, a question no candidate
answers is refused as a near miss, and a question that asks for one thing gets a first line copied from
the chosen passage. Backends (`base.register`): `embedded` (a GGUF model in process, `embedded.py`),
`endpoint` (the configured chat endpoint, `endpoint.py`); `reader.backend=none` turns the stage off.
"""

from __future__ import annotations

from rag_core.reading import embedded as embedded
from rag_core.reading import endpoint as endpoint
from rag_core.reading.base import Reader, backends, chosen_backend, forget_readers, reader_for, register
from rag_core.reading.candidates import Window, candidate_windows
from rag_core.reading.stage import Reading, asks_one_thing, context_reader, read, verbatim_span

__all__ = [
    "Reader",
    "Reading",
    "Window",
    "asks_one_thing",
    "backends",
    "candidate_windows",
    "chosen_backend",
    "context_reader",
    "forget_readers",
    "read",
    "reader_for",
    "register",
    "verbatim_span",
]
