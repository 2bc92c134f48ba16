"""The times a job's row shows: `pipeline.elapsed_of`, `pipeline.remaining_of` (a linear estimate
from the stage progress) and the Library page's `ui.jobs.duration`, on crafted jobs and a fixed `now`."""

from __future__ import annotations

import pytest

from rag_core import pipeline
from rag_core.store import Job
from ui.jobs import duration

STARTED = 1_000_000.0


def _job(**values: object) -> Job:
    return Job(id="j", file_name="f.pdf", collection="c", submitter="u", **values)  # type: ignore[arg-type]


def test_a_queued_job_has_no_elapsed_time_nor_estimate() -> None:
    job = _job()
    assert pipeline.progress_of(job) == 0.0
    assert pipeline.elapsed_of(job, now=STARTED) == 0.0
    assert pipeline.remaining_of(job, now=STARTED) is None


def test_a_running_job_gets_an_estimate_weighted_by_the_stages_measured_shares() -> None:
    # embed 1/2: parse (0.55) and chunk (0.05) done and half of embed (0.35): 0.775 in 100 s
    job = _job(state="running", stage="embed", done=1, total=2, started_at=STARTED)
    assert pipeline.progress_of(job) == pytest.approx(0.775)
    assert pipeline.elapsed_of(job, now=STARTED + 100) == pytest.approx(100.0)
    assert pipeline.remaining_of(job, now=STARTED + 100) == pytest.approx(100 / 0.775 - 100)
    # parse 1/4 after 10 s: 0.1375 done
    early = _job(state="running", stage="parse", done=1, total=4, started_at=STARTED)
    assert pipeline.remaining_of(early, now=STARTED + 10) == pytest.approx(10 / 0.1375 - 10)


@pytest.mark.parametrize("mix", [(0.55, 0.05, 0.35, 0.05), (0.5, 0.04, 0.42, 0.04), (0.62, 0.05, 0.3, 0.03)])
def test_the_time_left_does_not_jump_at_the_stages_and_stays_near_the_truth(mix: tuple[float, ...]) -> None:
    """A 200 s job of 20 pages and 60 passages whose stages take `mix` of its time (the measured
    shares, and two plausible documents around them), read every 2 s by a fake clock: from 20 %
    of the job on, the time shown stays within a factor 1.5 of the truth (or 10 s of it, at the
    very end) and never rises by more than 10 % between two readings (equal quarters per stage
    showed 3.7 times the truth at the end of the parse)."""
    total_s, counts = 200.0, {"parse": 20, "chunk": 60, "embed": 60, "write": 1}
    shown: list[float] = []
    for step in range(1, 100):
        now = step * 2.0
        start = 0.0
        for stage, share in zip(("parse", "chunk", "embed", "write"), mix, strict=True):
            length = share * total_s
            if now < start + length:
                done = int(counts[stage] * (now - start) / length)
                break
            start += length
        job = _job(state="running", stage=stage, done=done, total=counts[stage], started_at=STARTED)
        left = pipeline.remaining_of(job, now=STARTED + now)
        if now < 0.2 * total_s or left is None:
            continue
        truth = total_s - now
        assert truth / 1.5 - 10 <= left <= truth * 1.5 + 10, (now, stage, left, truth)
        if shown:
            assert left <= shown[-1] * 1.1, (now, stage, left, shown[-1])  # whole pages: a small sawtooth
        shown.append(left)
    assert len(shown) > 50


@pytest.mark.parametrize(
    "values",
    [
        {"stage": ""},
        {"stage": "parse", "done": 0, "total": 10},
        {"stage": "parse", "done": 0, "total": 0},
        {"stage": "parse", "done": 1, "total": 100},
    ],
)
def test_no_estimate_before_there_is_progress(values: dict) -> None:
    job = _job(state="running", started_at=STARTED, **values)
    assert pipeline.remaining_of(job, now=STARTED + 30) is None  # 2 % or less: a guess would be noise
    assert pipeline.elapsed_of(job, now=STARTED + 30) == pytest.approx(30.0)  # the elapsed time is still shown


def test_an_ended_job_counts_its_time_until_it_ended() -> None:
    job = _job(state="done", stage="write", done=1, total=1, started_at=STARTED, finished_at=STARTED + 42)
    assert pipeline.elapsed_of(job, now=STARTED + 5000) == pytest.approx(42.0)
    assert pipeline.remaining_of(job, now=STARTED + 5000) is None
    assert pipeline.progress_of(job) == 1.0


def test_a_clock_behind_the_start_never_gives_negative_times() -> None:
    job = _job(state="running", stage="write", done=1, total=1, started_at=STARTED)
    assert pipeline.elapsed_of(job, now=STARTED - 5) == 0.0
    assert pipeline.remaining_of(job, now=STARTED - 5) == 0.0


@pytest.mark.parametrize(
    "seconds, shown",
    [
        (0, "0 s"),
        (59.4, "59 s"),
        (59.6, "1 min 00 s"),
        (100, "1 min 40 s"),
        (3599, "59 min 59 s"),
        (3725, "1 h 02 min"),
    ],
)
def test_durations_as_the_page_writes_them(seconds: float, shown: str) -> None:
    assert duration(seconds) == shown
