"""The reader stage of the question flow: which candidate passage states the answer, if any.

`read` builds the candidate windows (`candidates.py`), has the process's reader judge each one, and returns
a `Reading`: the windows with their judged probabilities, the one the answer leads with (the best judged,
ties to the better ranked) and whether the question is a near miss (no candidate reaches
`reader.threshold`: refused, naming what was looked for). When the question asks for one thing (a figure, a
formula, a name, a count: `asks_one_thing`), the reader copies the shortest answering span of the chosen
window; the copy is kept only when it is found verbatim in the window (and, for a figure, holds one), so the
first line of the answer is the document's own words, which the number and quote checks then trace.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.answering.lead import Lead, ReadContext, ReaderVerdict
from rag_core.config import Settings
from rag_core.models import ReadingSummary, RetrievedParent
from rag_core.reading.base import Reader, chosen_backend, reader_for
from rag_core.reading.candidates import Window, candidate_windows

MAX_SHORT_CHARS = 200
_SPACES = re.compile(r"\s+")
_FIGURE_ASK = re.compile(
    r"\b(how\s+(many|much)|what\s+(is|was|were|are)\s+the\s+(total\s+|net\s+|gross\s+)?(value|amount|number|figure|"
    r"rate|ratio|percentage|share|count|level|size|cost|price|sum)|combien|quel(le)?s?\s+(est|sont|était|etait)\s+"
    r"(le|la|les|l')\s*(montant|valeur|nombre|taux|ratio|pourcentage|part|coût|cout|total|niveau))\b",
    re.IGNORECASE,
)
_ONE_THING = re.compile(
    r"^\s*(who\b|which\s+\w+\s+(is|was)\b|what\s+(is|was)\s+the\s+(name|formula|title|date|year)\b|qui\b|"
    r"quel(le)?\s+(est|était|etait)\s+(le|la|l')\s*(nom|formule|titre|date|année|annee)\b)",
    re.IGNORECASE,
)


def asks_for_figure(question: str) -> bool:
    return bool(_FIGURE_ASK.search(question))


def asks_one_thing(question: str) -> bool:
    """The question asks for one thing: a figure with its unit and period, a formula, a name, a count."""
    return asks_for_figure(question) or bool(_ONE_THING.search(question))


def _squeeze(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def verbatim_span(reply: str, passage: str, figure: bool) -> str:
    """The reader's copy as the passage writes it: found in the passage (spaces aside, case kept), short,
    and holding a figure when one is asked for; '' otherwise."""
    span = _squeeze(reply.strip().strip("\"'«»“”`").rstrip("."))
    if not span or len(span) > MAX_SHORT_CHARS or (figure and not re.search(r"\d", span)):
        return ""
    return span if span in _squeeze(passage) else ""


@dataclass
class Reading:
    backend: str
    model: str
    windows: list[Window]
    scores: list[float]
    threshold: float
    chosen: Window | None = None
    short: str = ""
    elapsed_s: float = 0.0

    @property
    def best(self) -> float:
        return max(self.scores, default=0.0)

    @property
    def refuses(self) -> bool:
        """No candidate reaches the threshold: a near miss."""
        return bool(self.windows) and self.best < self.threshold

    def verdict(self) -> ReaderVerdict:
        """What the answer uses of this reading (`answering.lead`)."""
        c = self.chosen
        lead = Lead(c.parent, c.start, c.end, c.line, c.sentence, c.text) if c is not None else None
        summary = ReadingSummary(
            backend=self.backend,
            model=self.model,
            judged=len(self.windows),
            best=round(self.best, 4),
            threshold=self.threshold,
            chosen=c.text if c is not None and not self.refuses else "",
            short_answer=self.short,
            elapsed_s=round(self.elapsed_s, 3),
        )
        return ReaderVerdict(summary, self.refuses, lead if not self.refuses else None, self.short)


def _choose(windows: Sequence[Window], scores: Sequence[float]) -> Window | None:
    if not windows:
        return None
    best = max(range(len(windows)), key=lambda i: (scores[i], -windows[i].rank))
    return windows[best]


def read(
    question: str,
    hits: Sequence[RetrievedParent],
    settings: Settings,
    language: str,
    extra_terms: Sequence[str] = (),
    reader: Reader | None = None,
) -> Reading | None:
    """The reader's judgement of this question's candidates (see the module docstring); None when no reader
    is configured. `reader`: the process's by default (tests give their own)."""
    started = time.perf_counter()
    reader = reader if reader is not None else reader_for(settings)
    if reader is None:
        return None
    r = settings.reader
    windows = candidate_windows(hits, question, language, extra_terms, r.candidate_chars, r.candidates)
    scores = reader.judge(question, [w.text for w in windows], language) if windows else []
    reading = Reading(
        reader.name, str(getattr(reader, "model", "")), windows, list(scores), r.threshold, _choose(windows, scores)
    )
    if reading.chosen is not None and not reading.refuses and r.short_answer and asks_one_thing(question):
        reply = reader.copy(question, reading.chosen.text, language)
        reading.short = verbatim_span(reply, reading.chosen.text, asks_for_figure(question))
    reading.elapsed_s = time.perf_counter() - started
    return reading


def context_reader(
    question: str, settings: Settings, language: str, reader: Reader | None = None
) -> ReadContext | None:
    """The reader stage as the answer calls it (`AnswerRun(reader=...)`), on its context parents and the
    search's extra terms; None when reading is off."""
    if reader is None and chosen_backend(settings) == "none":
        return None

    def run(hits: Sequence[RetrievedParent], terms: Sequence[str]) -> ReaderVerdict | None:
        got = read(question, hits, settings, language, terms, reader)
        return got.verdict() if got is not None else None

    return run


__all__ = ["Reading", "asks_one_thing", "context_reader", "read", "verbatim_span"]
