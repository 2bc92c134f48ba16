"""Does one retrieved passage hold the question's constraints together? (docs/method.md, answers)

The term check (`coverage`) asks whether the library mentions each term of a question. An
unanswerable question worded in the document's own vocabulary passes it: "What prediction error did
Mack report for accident year 2005?" asked of a paper whose tables stop at 1999 names a method, an
author and a year that each occur somewhere. What such a question lacks is evidence: one passage
where the things it pins down occur together. Its *constraints* are the terms that say which entity,
document part or period it asks about: identifiers ("Guideline 37", "IFRS 17"), proper names and
periods (a year that is no citation's: "accident year 2005", not "Mack (2006)"). Plain words never
count: a paraphrase uses its own ("edited", "simplest"), and on the dev sets a missing content word
was as common in answerable questions as in unanswerable ones (benchmarks/refusal_evidence.py).

The constraints the library mentions must all occur in ONE of the retrieved passages (a parent: a
section's text with its headings and captions). When none holds them all, the question is refused,
naming the constraints that the passage holding most of them lacks, and what that passage does hold.
Formula symbols (`F_S`, `r_i`) are no constraint: the text layer writes them in many ways.
A question that coordinates what it asks about ("the Executive Leadership and the Prosecution Services
Staff", "Mack or Merz", "en 2019 et en 2020") asks about each conjunct: the constraints of one
conjunct must occur together, those of two conjuncts may be in two passages. So does a question that
names two parts of a document ("the papers in Table 2 ... not mentioned in Section 3.4"): a passage
is one place, so each part named after the first opens a conjunct of its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rag_core.answering.coverage_terms import REFERENCE_WORDS, Term

CONSTRAINT_KINDS = ("identifier", "name", "period")

# what joins two things a question asks about (its conjuncts), in English and French
_COORDINATOR = re.compile(
    r"\s(?:and|or|nor|as well as|versus|vs\.?|compared (?:with|to)|et|ou|ni|ainsi que|par rapport (?:à|aux?))\s",
    re.IGNORECASE,
)


def _conjunct(question: str, term: str, parts: Sequence[int] = ()) -> int:
    """The index of the conjunct of `question` where `term` is first written (0 when not found); `parts`:
    where the question names a part of a document after its first ("Section 3.4" after "Table 2")."""
    at = question.lower().find(term.lower())
    return len(_COORDINATOR.findall(question[:at])) + sum(1 for p in parts if p <= at) if at >= 0 else 0


def _parts(question: str, terms: Sequence[Term]) -> list[int]:
    """Where the question names a part of a document ("Table 2", "Section 3"), the first one excepted."""
    found = sorted(
        at
        for t in terms
        if t.kind == "identifier" and t.words and t.words[0] in REFERENCE_WORDS
        if (at := question.lower().find(t.text.lower())) >= 0
    )
    return found[1:]


def constraints(terms: Sequence[Term], library_counts: Mapping[str, int]) -> list[Term]:
    """The terms that pin the question down and that the library mentions (`library_counts` > 0)."""
    return [t for t in terms if t.kind in CONSTRAINT_KINDS and library_counts.get(t.text, 0) > 0 and "_" not in t.text]


def apart(
    terms: Sequence[Term], library_counts: Mapping[str, int], held: Sequence[set[str]], question: str = ""
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(constraints no single passage holds with the others of their conjunct, those the best passages
    hold); `held[i]` is the set of term texts passage i mentions; `question` says which conjunct each
    constraint belongs to (one conjunct without it). ((), ()) when each conjunct is held by one passage."""
    wanted = [t.text for t in constraints(terms, library_counts)]
    if not wanted or not held:
        return (), ()
    groups: dict[int, list[str]] = {}
    parts = _parts(question, constraints(terms, library_counts))
    for text in wanted:
        groups.setdefault(_conjunct(question, text, parts), []).append(text)
    lacking: list[str] = []
    together: list[str] = []
    for group in groups.values():
        best = max(held, key=lambda h: sum(1 for w in group if w in h))
        lacking += [w for w in group if w not in best]
        together += [w for w in group if w in best]
    return (tuple(lacking), tuple(together)) if lacking else ((), ())
