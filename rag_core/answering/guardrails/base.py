"""What a guard-rail check is: what it needs, what it marks, where it runs (see the package docstring).

A check reads the `Evidence` of one answer and returns an `Outcome`: the paragraphs, marked, and what
the check cost. It declares in `needs` what it reads ("sources", "context", "aliases", "judge": a
chat model that judges) and in `marks` the message keys of the marks it may put (`models.Mark`).
A check that needs the judge cannot run on an extractive answer (no model is at hand, or it just
failed) nor after the reader stopped the model: it is skipped there, with the reason as a mark on
the answer. `per_paragraph`: also run on each paragraph while the model writes (else on the whole
answer only). Nothing here calls a model or searches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from rag_core.config import Settings
from rag_core.models import Mark, Paragraph, RetrievedParent, Source

Mode = Literal["llm", "extractive"]
Need = Literal["sources", "context", "aliases", "judge"]


@dataclass(frozen=True)
class Evidence:
    """What the checks of one answer may read."""

    mode: Mode
    language: str
    settings: Settings
    sources: Sequence[Source]  # the registry of this turn's citable sources
    cited: Sequence[Source]  # those the verified paragraphs cite, in order
    context: Sequence[RetrievedParent]  # the context parents the sources come from
    aliases: Mapping[str, str] = field(default_factory=dict)  # prompt alias -> source id (model answers)
    stopped: bool = False  # the reader stopped the model: no more model calls
    question: str = ""  # the (sub-)question answered
    terms: Sequence[str] = ()  # the search's added terms: thesaurus labels, glossary translations

    @property
    def reading(self) -> str | None:
        """The language figures are read in: the question's for a model's answer; None (each cited
        document's own) for an extractive answer, which quotes the documents verbatim."""
        return self.language if self.mode == "llm" else None


@dataclass(frozen=True)
class Outcome:
    """The paragraphs after a check (or all of them), with its warnings and what it cost."""

    paragraphs: list[Paragraph]
    warnings: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    elapsed_s: float = 0.0
    marks: list[Mark] = field(default_factory=list)  # on the whole answer (checks skipped)

    def then(self, other: Outcome) -> Outcome:
        """`other` (a check run on these paragraphs) added to what was spent before it."""
        return Outcome(
            other.paragraphs,
            [*self.warnings, *other.warnings],
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.elapsed_s + other.elapsed_s,
            [*self.marks, *other.marks],
        )


class Check(Protocol):
    name: str
    needs: frozenset[Need]
    marks: tuple[str, ...]
    per_paragraph: bool

    def enabled(self, settings: Settings) -> bool: ...

    def run(self, paragraphs: Sequence[Paragraph], evidence: Evidence) -> Outcome: ...


def with_mark(paragraph: Paragraph, mark: Mark) -> Paragraph:
    """The paragraph with `mark` instead of any earlier mark of the same check."""
    kept = [m for m in paragraph.marks if m.name != mark.name]
    return paragraph.model_copy(update={"marks": [*kept, mark]})


def skipped(check: Check, evidence: Evidence) -> str:
    """Why `check` cannot run on this answer ('' when it can)."""
    if "judge" not in check.needs:
        return ""
    if evidence.mode == "extractive":
        return "extractive"
    return "stopped" if evidence.stopped else ""


def skipped_mark(check: Check, why: str) -> Mark:
    """The answer's mark for a check skipped: its message is `mark.<check>.skipped_<why>` in ui/strings."""
    return Mark(name=check.name, level="info", key=f"mark.{check.name}.skipped_{why}")
