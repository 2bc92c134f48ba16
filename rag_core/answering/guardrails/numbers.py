"""Check: every figure of a paragraph traced to a cell, a sentence or a checked computation.

It marks the numbers themselves (`Paragraph.numbers`, shown in the text); figures of quoted code or console
output stay traced but are not stated as facts (`evidence.mark_stated`). A model's paragraph stating a figure
that no source supports, or a computation the code does not reproduce, is no longer "supported": it is marked
partially supported, saying how many figures (an extractive paragraph is the documents' own sentence).
"""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.answering.evidence import mark_stated
from rag_core.answering.guardrails.base import Evidence, Need, Outcome, with_mark
from rag_core.answering.number_trace import trace_numbers
from rag_core.config import Settings
from rag_core.models import Mark, Paragraph


def mark_unsupported(paragraphs: Sequence[Paragraph]) -> list[Paragraph]:
    """Each paragraph stating a figure no source supports (or a mismatched computation), partially supported."""
    out = []
    for para in paragraphs:
        wrong = [n for n in para.numbers if n.stated and n.status in ("unsupported", "mismatch")]
        if wrong and para.status == "supported":
            mark = Mark(name="numbers", level="caution", key="mark.numbers.unsupported", params={"n": str(len(wrong))})
            para = with_mark(para.model_copy(update={"status": "partially_supported"}), mark)
        out.append(para)
    return out


class NumbersCheck:
    name = "numbers"
    needs: frozenset[Need] = frozenset({"sources", "context", "aliases"})
    marks: tuple[str, ...] = ("mark.numbers.unsupported",)  # and each number carries its own status
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
        stated = mark_stated(traced)
        return Outcome(mark_unsupported(stated) if evidence.mode == "llm" else stated)
