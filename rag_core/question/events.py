"""The events of one question, in the order a caller sees them.

`Searching` (the (sub-)questions being searched), `Found` (how many passages and which documents
the searches gave), then the answer's own events from `rag_core.answering`: `Draft` (the paragraph
being written, unverified), `Checked` (a paragraph once verified), `Queued` (the endpoint is busy).
The stream ends with exactly one of `Done` (the final or stopped answer, stored and audited),
`Refused` (a `Done` whose answer refuses) or `Failed` (an error written for the user; nothing is
stored). A greeting gives `Done` only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.answering import Checked, Draft, Queued
from rag_core.errors import RagError
from rag_core.models import Answer, SearchResult


@dataclass(frozen=True)
class Searching:
    """The question is understood; these (sub-)questions are being searched."""

    queries: tuple[str, ...]


@dataclass(frozen=True)
class Found:
    """What the searches gave, before any answer: passages (parents) and the documents they lie in."""

    parents: int
    documents: tuple[str, ...]  # file names, in rank order, each once

    @classmethod
    def of(cls, results: Sequence[SearchResult]) -> Found:
        hits = [h for r in results for h in r.parents]
        return cls(len(hits), tuple(dict.fromkeys(h.document.file_name for h in hits)))


@dataclass(frozen=True)
class Done:
    """The answer that ends the stream: the final one, or the one a stop kept. Stored and audited."""

    answer: Answer


@dataclass(frozen=True)
class Refused(Done):
    """A `Done` whose answer refuses: nothing readable answers the question (the answer says why)."""


@dataclass(frozen=True)
class Failed:
    """The question could not be answered: `error` says why, for the user. Nothing is stored."""

    error: RagError


Event = Searching | Found | Draft | Checked | Queued | Done | Failed

__all__ = ["Checked", "Done", "Draft", "Event", "Failed", "Found", "Queued", "Refused", "Searching"]
