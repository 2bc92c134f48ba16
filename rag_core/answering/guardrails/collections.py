"""Check: a paragraph citing sources of two collections or more carries their names (shown to the reader)."""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.answering.guardrails.base import Evidence, Need, Outcome, with_mark
from rag_core.config import Settings
from rag_core.models import Mark, Paragraph, Source


def mark_collections(paragraphs: Sequence[Paragraph], sources: Sequence[Source]) -> list[Paragraph]:
    """Each paragraph citing several collections, with their names (`collections`) and its mark."""
    collection = {s.id: s.collection for s in sources}
    out = []
    for para in paragraphs:
        names = list(dict.fromkeys(collection[sid] for sid in para.source_ids if collection.get(sid)))
        if len(names) > 1:
            mark = Mark(
                name="collections", level="info", key="mark.collections.several", params={"names": ", ".join(names)}
            )
            para = with_mark(para.model_copy(update={"collections": names}), mark)
        out.append(para)
    return out


class CollectionsCheck:
    name = "collections"
    needs: frozenset[Need] = frozenset({"sources"})
    marks: tuple[str, ...] = ("mark.collections.several",)
    per_paragraph = True

    def enabled(self, settings: Settings) -> bool:
        return True

    def run(self, paragraphs: Sequence[Paragraph], evidence: Evidence) -> Outcome:
        return Outcome(mark_collections(paragraphs, evidence.cited))
