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


def test_a_running_job_gets_a_linear_estimate_of_the_time_left() -> None:
    # embed 1/2: two stages done and half of the third, 5/8 of the work in 100 s -> 60 s left
    job = _job(state="running", stage="embed", done=1, total=2, started_at=STARTED)
    assert pipeline.progress_of(job) == pytest.approx(0.625)
    assert pipeline.elapsed_of(job, now=STARTED + 100) == pytest.approx(100.0)
    assert pipeline.remaining_of(job, now=STARTED + 100) == pytest.approx(60.0)
    # parse 1/4 after 10 s: 1/16 done -> 150 s left
    early = _job(state="running", stage="parse", done=1, total=4, started_at=STARTED)
    assert pipeline.remaining_of(early, now=STARTED + 10) == pytest.approx(150.0)


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
