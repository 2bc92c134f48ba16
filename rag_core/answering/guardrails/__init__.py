"""The guard-rails of an answer: an ordered list of checks, run the same way on every answer.

Before them, `answering.verification.verify_citations` decides which paragraphs remain (a paragraph
citing no retrieved source is dropped) and marks a quote it cannot find ("quote"). Then each check
of `CHECKS`, in order, on the model's answer and on the extractive one alike:

1. `numbers` — every figure traced to a cell, a sentence or a checked computation;
2. `support` — the optional second pass: a chat model judges each paragraph against its sources
   (`answer.support_check`); it needs the judge, so it is skipped, with the reason as a mark on the
   answer, for an extractive answer and after a stop;
3. `subject` — a model's paragraph whose quote names nothing the question asks about is only partially
   supported;
4. `collections` — a paragraph citing several collections names them.

While the model writes, each completed paragraph goes through the checks marked `per_paragraph`;
the final answer goes through all of them. A check puts `models.Mark`s on the paragraphs; the Ask
page shows every mark the same way, its message keyed by the mark's `key` in `ui/strings/marks.py`.

To add a check: write a module here with a class like `collections.CollectionsCheck` (its `name`,
what it `needs`, the `marks` it may put, `per_paragraph`, `enabled`, `run`), append an instance to
`CHECKS`, and add the messages of its marks to `ui/strings/marks.py` (French and English). No
field on `Answer` and no change to the pages is needed.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.answering.guardrails.base import Check, Evidence, Mode, Outcome, skipped, skipped_mark
from rag_core.answering.guardrails.collections import CollectionsCheck, mark_collections
from rag_core.answering.guardrails.numbers import NumbersCheck
from rag_core.answering.guardrails.subject import SubjectCheck
from rag_core.answering.guardrails.support import SupportCheck, judge_support
from rag_core.models import Paragraph

__all__ = ["CHECKS", "Check", "Evidence", "Mode", "Outcome", "apply", "judge_support", "mark_collections"]

CHECKS: tuple[Check, ...] = (NumbersCheck(), SupportCheck(), SubjectCheck(), CollectionsCheck())


def apply(
    paragraphs: Sequence[Paragraph], evidence: Evidence, *, whole: bool = True, checks: Sequence[Check] = CHECKS
) -> Outcome:
    """Run the enabled checks on verified paragraphs, in order: all of them on a whole answer, those
    marked `per_paragraph` on one paragraph while the model writes. A check that cannot run on this
    answer is skipped with a mark saying why (on the whole answer only)."""
    outcome = Outcome(list(paragraphs))
    for check in checks:
        if not check.enabled(evidence.settings) or not (whole or check.per_paragraph):
            continue
        why = skipped(check, evidence)
        if why:
            outcome = outcome.then(Outcome(outcome.paragraphs, marks=[skipped_mark(check, why)]))
            continue
        outcome = outcome.then(check.run(outcome.paragraphs, evidence))
    return outcome
