"""A running job's progress and time left, as the queue panel shows them.

`progress_of` weights the four stages by their measured shares of a job's time (`STAGE_SHARE`).
`TimeLeft` is the estimate the panel keeps for one job between its refreshes: fed the job row at
each refresh, it measures the seconds per unit (page, passage) of the stage running now, robustly
(a slow OCR page counts at most three times the typical unit: one such page is not the rest of
the document), counts the time already spent on the unit in progress, predicts the later stages
from the measured ones and their shares, and smooths what it shows: the figure counts down with
the clock and never rises while work advances, except slowly (10 % a reading) when the
measurement says the job is well behind it. Without history (`remaining_of` on one row) the
estimate is linear in the weighted progress.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from rag_core.ingestion import STAGES
from rag_core.store import Job

# Each stage's share of a job's time, from the seconds per page the stages took over the corpus
# (benchmarks/ingest.py and the corpus library's manifests: parse ~55 %, embed ~35 % with the torch
# passage path, chunk and write the rest). Equal quarters made the time left jump at each stage.
STAGE_SHARE = {"parse": 0.55, "chunk": 0.05, "embed": 0.35, "write": 0.05}
OUTLIER = 3.0  # a unit slower than this many typical units counts as this many
IN_UNIT_CREDIT = 0.9  # at most this share of a typical unit is taken off for the unit in progress
PULL = 0.3  # share of the gap between the countdown and the new measurement closed at each reading
RISE = 1.1  # the most the shown figure grows between two readings, when the job is well behind it
BEHIND = 1.5  # ... which it does only when the measurement exceeds the countdown by this factor


def progress_of(job: Job) -> float:
    """0..1 over the four stages, each weighted by its share of the time (`STAGE_SHARE`); 1 for an ended job."""
    if job.state not in ("running", "queued"):
        return 1.0
    if job.stage not in STAGES:
        return 0.0
    within = job.done / job.total if job.total else 0.0
    before = sum(STAGE_SHARE[s] for s in STAGES[: STAGES.index(job.stage)])
    return min(1.0, before + STAGE_SHARE[job.stage] * within)


def elapsed_of(job: Job, now: float | None = None) -> float:
    """Seconds since the job started running (or until it ended); 0 while queued."""
    if not job.started_at:
        return 0.0
    end = job.finished_at or (time.time() if now is None else now)
    return max(0.0, end - job.started_at)


def _linear(job: Job, now: float) -> float | None:
    done = progress_of(job)
    if job.state != "running" or done <= 0.02:
        return None
    elapsed = elapsed_of(job, now)
    return max(0.0, elapsed / done - elapsed)


def _robust_rate(segments: list[tuple[float, int]]) -> float:
    """Seconds per unit over (seconds, units) segments, each segment's rate capped at `OUTLIER`
    times the median one: the mean of typical units, with an odd slow one counted but bounded."""
    rates = [seconds / units for seconds, units in segments]
    cap = OUTLIER * statistics.median(rates)
    units = sum(u for _, u in segments)
    return sum(min(r, cap) * u for r, (_, u) in zip(rates, segments, strict=True)) / units


@dataclass
class TimeLeft:
    """The time-left estimate of one job across refreshes (see the module's docstring)."""

    stage: str = ""
    since: float | None = None  # when the current stage began (None: it was running before we looked)
    marks: list[tuple[float, int]] = field(default_factory=list)  # (time, done) at each change seen
    typical: dict[str, float] = field(default_factory=dict)  # finished stage -> its typical length, s
    total: int = 0  # units of the current stage
    shown: float | None = None
    shown_at: float = 0.0

    def _rate(self) -> float | None:
        segments = [(t1 - t0, d1 - d0) for (t0, d0), (t1, d1) in zip(self.marks, self.marks[1:]) if d1 > d0 and t1 > t0]
        return _robust_rate(segments) if segments else None

    def _observe(self, job: Job, now: float) -> None:
        if self.stage in STAGE_SHARE and STAGES.index(job.stage) < STAGES.index(self.stage):
            # the job started over (retried, requeued): measure afresh
            self.stage, self.since, self.marks, self.typical, self.total = "", None, [], {}, 0
            self.shown, self.shown_at = None, 0.0
        if job.stage != self.stage:
            if self.stage in STAGE_SHARE and self.since is not None:  # the stage that ended: its typical length
                rate = self._rate()
                self.typical[self.stage] = rate * max(self.total, 1) if rate is not None else max(0.0, now - self.since)
            first = not self.stage
            self.stage = job.stage
            # the first stage seen began when the job did, if it is the first stage; a later one just now
            self.since = (job.started_at or None) if first and job.stage == STAGES[0] else (None if first else now)
            self.marks = [(self.since, 0)] if self.since is not None else []
        self.total = job.total
        if not self.marks or job.done != self.marks[-1][1]:
            self.marks.append((now, job.done))

    def _measured(self, job: Job, now: float) -> float | None:
        rate = self._rate()
        known = dict(self.typical)
        if rate is not None:
            known[job.stage] = rate * max(job.total, 1)
        if not known or sum(known.values()) <= 0:
            return None
        whole = sum(known.values()) / sum(STAGE_SHARE[s] for s in known)  # the job's typical length
        later = sum(STAGE_SHARE[s] for s in STAGES[STAGES.index(job.stage) + 1 :]) * whole
        per_unit = rate if rate is not None else STAGE_SHARE[job.stage] * whole / max(job.total, 1)
        in_unit = now - (self.marks[-1][0] if self.marks else now)
        left_units = max(0, job.total - job.done)
        current = max(0.0, left_units * per_unit - min(in_unit, IN_UNIT_CREDIT * per_unit)) if left_units else 0.0
        return current + later

    def update(self, job: Job, now: float | None = None) -> float | None:
        """The seconds left to show for `job` at `now` (None: no estimate yet, or the job is not running)."""
        now = time.time() if now is None else now
        if job.state != "running" or job.stage not in STAGE_SHARE:
            return None
        self._observe(job, now)
        raw = self._measured(job, now)
        if raw is None:
            raw = _linear(job, now)
        if raw is None:
            return None
        if self.shown is None:
            self.shown, self.shown_at = raw, now
            return raw
        countdown = max(0.0, self.shown - max(0.0, now - self.shown_at))
        target = countdown + PULL * (raw - countdown)
        ceiling = self.shown * RISE if raw > BEHIND * max(countdown, 1.0) else self.shown
        self.shown, self.shown_at = max(0.0, min(target, ceiling)), now
        return self.shown


def remaining_of(job: Job, now: float | None = None, estimate: TimeLeft | None = None) -> float | None:
    """The seconds left for a running job, None before there is progress: `estimate` (kept by the
    caller between refreshes) measures and smooths; without it, a linear estimate from this row alone."""
    now = time.time() if now is None else now
    if estimate is not None:
        return estimate.update(job, now)
    return _linear(job, now)
