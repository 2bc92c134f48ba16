"""What the reader decided, as the answer uses it: the passage to lead with, a near miss, a short first line.

The reader itself lives in `rag_core.reading` and runs in the question flow; the answer receives its
verdict through a callable (`AnswerRun(reader=...)`), so nothing here loads or calls a model. A verdict that
refuses gives a refusal naming what was looked for, with the closest passages listed as uncited sources; one
that chose a passage makes it the extractive answer's first piece (`extractive_paragraphs(lead=...)`),
preceded by the short answer when the reader copied one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag_core.models import Paragraph, ReadingSummary, RetrievedParent


@dataclass(frozen=True)
class Lead:
    """The passage the reader judged to state the answer: lines `start`..`end` of context parent `parent`
    (`units.parent_lines`), built around `sentence` on line `line`."""

    parent: int
    start: int
    end: int
    line: int
    sentence: str
    text: str


@dataclass(frozen=True)
class ReaderVerdict:
    summary: ReadingSummary
    refuses: bool
    lead: Lead | None = None
    short: str = ""  # copied verbatim from the lead's text


ReadContext = Callable[[Sequence[RetrievedParent], Sequence[str]], ReaderVerdict | None]

NEAR_MISS = {
    "en": "The closest passages do not state the answer to this question (looked for: {terms}). They are listed "
    "below; none was judged to answer it.",
    "fr": "Les passages les plus proches ne donnent pas la réponse à cette question (cherché : {terms}). Ils sont "
    "listés ci-dessous ; aucun n'a été jugé y répondre.",
}


def near_miss_message(terms: Sequence[str], question: str, language: str) -> str:
    """The refusal of a question no candidate answers, naming what was looked for (its terms, else itself)."""
    looked = ", ".join(f"« {t} »" if language == "fr" else f"'{t}'" for t in terms) or question.strip()
    return NEAR_MISS.get(language, NEAR_MISS["en"]).format(terms=looked)


def short_paragraph(
    verdict: ReaderVerdict, hits: Sequence[RetrievedParent], source_ids: Sequence[str], language: str
) -> Paragraph | None:
    """The answer's first line: the span the reader copied, citing the passage it was copied from, labelled
    with the passage's language when it is not the question's."""
    lead = verdict.lead
    if lead is None or not verdict.short or not 0 <= lead.parent < len(hits):
        return None
    written = hits[lead.parent].document.language
    other = bool(language) and written != language
    return Paragraph(
        text=verdict.short,
        source_ids=[source_ids[lead.parent]],
        quote=verdict.short,
        language=written if other else None,
    )
