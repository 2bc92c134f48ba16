"""The times a job's row shows: `pipeline.elapsed_of`, `pipeline.remaining_of` (a linear estimate
from the stage progress, or the `pipeline.TimeLeft` the page keeps between refreshes, over a recorded
import and a simulated clock), the Library page's `ui.jobs.duration` and queue line (`ui.jobs.queue_line`),
on crafted jobs and a fixed `now`."""

from __future__ import annotations

import random

import pytest

from rag_app.ui.jobs import duration, queue_line
from rag_core import pipeline
from rag_core.store import Job

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


# ----- the estimate kept between refreshes (`pipeline.TimeLeft`) over a recorded import ----------------
def _recorded_import() -> tuple[list[tuple[float, str, int, int]], float]:
    """The progress events of a 22-page report's import (seconds after its start, stage, done, total),
    shaped like the one a user timed at 2 min 51 s: pages of about 3 s but page 9, a scan that OCR
    reads in 30 s; 60 passages chunked in 8 s and embedded at about 1 s each (the worker writes every
    fourth), then the write. Returns the events and the import's length."""
    rnd = random.Random(7)
    t, events = 0.0, [(0.0, "parse", 0, 22)]
    for page in range(1, 23):
        t += 30.0 if page == 9 else rnd.uniform(2.4, 3.6)
        events.append((t, "parse", page, 22))
    events += [(t, "chunk", 0, 60), (t + 8.0, "chunk", 60, 60), (t + 8.0, "embed", 0, 60)]
    t += 8.0
    for passage in range(1, 61):
        t += rnd.uniform(0.8, 1.2)
        if passage % 4 == 0:
            events.append((t, "embed", passage, 60))
    events += [(t, "write", 0, 1), (t + 10.0, "write", 1, 1)]
    return events, t + 10.0


def _readings(estimate: pipeline.TimeLeft | None, since: float = 0.0) -> list[tuple[float, float, float]]:
    """(seconds into the import, time shown, true time left) at each refresh of the page (every 2 s)
    from `since`, each reading the job row as the last event before it left it."""
    events, end = _recorded_import()
    shown, now = [], max(2.0, since)
    while now < end:
        _, stage, done, total = [e for e in events if e[0] <= now][-1]
        job = _job(state="running", stage=stage, done=done, total=total, started_at=STARTED)
        left = pipeline.remaining_of(job, now=STARTED + now, estimate=estimate)
        if left is not None:
            shown.append((now, left, end - now))
        now += 2.0
    return shown


@pytest.mark.parametrize("since", [0.0, 40.0], ids=["watched from the start", "page opened during the slow page"])
def test_the_time_left_holds_still_through_a_slow_page_and_ends_near_the_truth(since: float) -> None:
    readings = _readings(pipeline.TimeLeft(), since)
    assert len(readings) > 50
    for (_, before, _), (now, after, _) in zip(readings, readings[1:]):
        assert after <= before * 1.2, (now, before, after)  # never grows by more than 20 % a refresh
    end = readings[-1][0] + readings[-1][2]
    for now, left, truth in readings:
        if truth <= 0.25 * end:  # the last quarter: within 20 % of the truth, or one refresh of it
            assert abs(left - truth) <= max(0.2 * truth, 2.0), (now, left, truth)


def test_the_row_alone_gave_an_estimate_that_grew_while_the_slow_page_was_read() -> None:
    """What the page showed before the estimate was kept: linear from each row alone, it grows by
    half again while page 9 is read (26 s to 54 s into the import), and the kept one does not."""
    slow = [left for now, left, _ in _readings(None) if 26 <= now <= 54]
    kept = [left for now, left, _ in _readings(pipeline.TimeLeft()) if 26 <= now <= 54]
    assert slow[-2] > 1.5 * slow[0]
    assert max(kept) <= kept[0]


@pytest.mark.parametrize(
    "place, small, running, fr, en",
    [
        (1, False, 0, "Premier dans la file", "First in the queue"),
        (
            1,
            True,
            0,
            "Premier dans la file : petit fichier, pris avant les grands",
            "First in the queue: a small file, taken before large ones",
        ),
        (
            2,
            False,
            1,
            "2ᵉ dans la file : 1 import en cours avant lui",
            "Place 2 in the queue: 1 import running before it",
        ),
        (
            3,
            False,
            2,
            "3ᵉ dans la file : 2 imports en cours avant lui",
            "Place 3 in the queue: 2 imports running before it",
        ),
        (4, False, 0, "4ᵉ dans la file", "Place 4 in the queue"),
    ],
)
def test_the_queue_line_in_both_languages(place: int, small: bool, running: int, fr: str, en: str) -> None:
    assert queue_line(place, small, running, "fr") == fr
    assert queue_line(place, small, running, "en") == en


def test_a_job_that_starts_over_is_measured_afresh() -> None:
    """A job retried while the page shows it goes back to its first stage: the estimate forgets
    the previous attempt's stages instead of counting them as done."""
    estimate = pipeline.TimeLeft()
    for second, done in ((10, 5), (20, 10)):
        job = _job(state="running", stage="parse", done=done, total=20, started_at=STARTED)
        estimate.update(job, STARTED + second)
    embed = _job(state="running", stage="embed", done=30, total=60, started_at=STARTED)
    estimate.update(embed, STARTED + 60)
    again = _job(state="running", stage="parse", done=1, total=20, started_at=STARTED + 100)
    estimate.update(again, STARTED + 102)
    assert estimate.typical == {} and estimate.stage == "parse" and estimate.since == STARTED + 100
