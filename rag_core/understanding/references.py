"""Numbered parts of a document that a question names: "Guideline 37C", « la ligne directrice 37C »,
"Article 58", "Annex IV", "paragraph 89".

A regulatory text is read by its numbered parts, and a reader who names one asks for that part, whatever
words the part itself uses: the question's words for it ("say", « que dit ») are no guide to its text.
`named` reads the references of a question (kind and label, the kind's French and English words taken as
one: a French guideline is an « orientation » or a « ligne directrice »); `names` tells whether a parent
is that part: a heading of its path opens with the reference ("Guideline 37C – Option to pay ..."), or,
for a paragraph, one of its lines opens with the number ("89. Insurance undertakings ..."). A label is
read whole: "Guideline 37" is not "Guideline 37C". Nothing here searches.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.text import fold

# The kinds of numbered parts, each with its words in English and French (folded, singular and plural).
KINDS: dict[str, tuple[str, ...]] = {
    "guideline": ("guideline", "guidelines", "orientation", "orientations", "ligne directrice", "lignes directrices"),
    "article": ("article", "articles", "art"),
    "paragraph": ("paragraph", "paragraphs", "paragraphe", "paragraphes", "para"),
    "section": ("section", "sections"),
    "chapter": ("chapter", "chapters", "chapitre", "chapitres"),
    "annex": ("annex", "annexes", "annexe", "technical annex", "annexe technique"),
    "appendix": ("appendix", "appendices", "appendice"),
    "recommendation": ("recommendation", "recommendations", "recommandation", "recommandations"),
    "principle": ("principle", "principles", "principe", "principes"),
}
_WORD_KIND = {w: kind for kind, words in KINDS.items() for w in words}
_KIND_WORDS = "|".join(sorted((re.escape(w).replace(r"\ ", r"\s+") for w in _WORD_KIND), key=len, reverse=True))
# a kind's word, then its label: a number with maybe one letter ("37C", "12a"), or a Roman numeral
# (written in capitals in the text: "Annex IV"; matched on the folded text, so checked again below)
_MENTION = re.compile(rf"\b({_KIND_WORDS})\.?\s+(\d{{1,4}}[a-z]?|[ivxlc]{{1,6}})\b(?![.,]\d)")
_OPENING = re.compile(rf"^\s*(?:[-–•]\s+)?({_KIND_WORDS})\.?\s+(\d{{1,4}}[a-z]?|[ivxlc]{{1,6}})\b(?![.,]\d)")
_PARAGRAPH_LINE = re.compile(r"^\s*(?:[-–•]\s+)?(\d{1,4})\.\s+\S")
_ROMAN = re.compile(r"^[ivxlc]+$")


@dataclass(frozen=True)
class Reference:
    kind: str  # a key of `KINDS`
    label: str  # folded: "37c", "iv", "58"
    mention: str  # the question's own words for it ("ligne directrice 37C")


def _kind(words: str) -> str:
    return _WORD_KIND[re.sub(r"\s+", " ", words)]


def named(question: str) -> tuple[Reference, ...]:
    """The numbered parts the question names, in its order, each once."""
    folded = fold(question)
    if len(folded) != len(question):  # folding changed the length (ligatures): positions would not map back
        question = folded
    out: list[Reference] = []
    for m in _MENTION.finditer(folded):
        label = m.group(2)
        original = question[m.start(2) : m.end(2)]
        if _ROMAN.match(label) and not original.isupper():
            continue  # "article iv" in lower case is no numbered part; "Annex IV" is
        ref = Reference(_kind(m.group(1)), label, question[m.start() : m.end()])
        if all((r.kind, r.label) != (ref.kind, ref.label) for r in out):
            out.append(ref)
    return tuple(out)


def opening(text: str) -> tuple[str, str] | None:
    """(kind, label) of the numbered part a heading opens with ("Guideline 37C – Option ..."), else None."""
    m = _OPENING.match(fold(text))
    return (_kind(m.group(1)), m.group(2)) if m else None


def names(heading_path: Sequence[str], text: str, references: Sequence[Reference]) -> bool:
    """A parent (its heading path and text) is one of the named parts: a heading of its path opens with it,
    or, for a paragraph, a line of its text opens with the paragraph's number."""
    if not references:
        return False
    wanted = {(r.kind, r.label) for r in references}
    if any(opening(h) in wanted for h in heading_path):
        return True
    paragraphs = {r.label for r in references if r.kind == "paragraph"}
    return bool(paragraphs) and any(
        (m := _PARAGRAPH_LINE.match(line)) is not None and m.group(1) in paragraphs for line in text.splitlines()
    )


__all__ = ["KINDS", "Reference", "named", "names", "opening"]
