"""Check: every figure of a paragraph traced to a cell, a sentence or a checked computation.

It marks the numbers themselves (`Paragraph.numbers`, shown in the text), not the paragraph; figures
of quoted code or console output stay traced but are not stated as facts (`evidence.mark_stated`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.answering.evidence import mark_stated
from rag_core.answering.guardrails.base import Evidence, Need, Outcome
from rag_core.answering.number_trace import trace_numbers
from rag_core.config import Settings
from rag_core.models import Paragraph


class NumbersCheck:
    name = "numbers"
    needs: frozenset[Need] = frozenset({"sources", "context", "aliases"})
    marks: tuple[str, ...] = ()  # the numbers carry their own status
    per_paragraph = True

    def enabled(self, settings: Settings) -> bool:
        return True

    def run(self, paragraphs: Sequence[Paragraph], evidence: Evidence) -> Outcome:
        traced = trace_numbers(
            paragraphs,
            evidence.sources,
            evidence.context,
            evidence.language,
            evidence.aliases or None,
            reading=evidence.reading,
        )
        return Outcome(mark_stated(traced))
