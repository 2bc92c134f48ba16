"""Which of an answer's sources count as cited, decided here once: a source some paragraph cites.

The Ask page offers the cited sources to report a wrong citation; the audit records the
documents and pages given as context and those cited. Pure functions of the answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rag_core.models import Answer, Source


def cited_sources(answer: Answer) -> list[Source]:
    """The sources (given or left uncited) that a paragraph of the answer cites, in the answer's order."""
    cited_ids = {sid for p in answer.paragraphs for sid in p.source_ids}
    every: dict[str, Source] = {s.id: s for s in [*answer.sources, *answer.uncited]}
    return [s for sid, s in every.items() if sid in cited_ids]


def _by_document(sources: Iterable[Source]) -> list[dict[str, Any]]:
    """One entry per document with its sorted pages, in first-seen order."""
    out: dict[str, dict[str, Any]] = {}
    for s in sources:
        entry = out.setdefault(s.doc_id, {"doc_id": s.doc_id, "file_name": s.file_name, "pages": set()})
        entry["pages"].update(s.pages)
    return [{**e, "pages": sorted(e["pages"])} for e in out.values()]


def answer_sources(answer: Answer) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(documents and pages given as context, documents and pages cited by a paragraph)."""
    every = {s.id: s for s in [*answer.sources, *answer.uncited]}
    return _by_document(every.values()), _by_document(cited_sources(answer))
