"""The worker's progress writes: at most one per `jobs.progress_interval_s` (1 s) within a stage,
since each is a version of the job table, and a new stage written at once, so that the Library page
never shows the previous stage while a long one runs.

`rag_core.jobs.Worker` on a real LanceDB job table in a temp dir, with a fake stage runner that sends
bursts of progress events through the worker's own `report` callback and reads the table between them.
"""

from __future__ import annotations

import time
from pathlib import Path

from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.jobs import Worker
from rag_core.models import IngestResult, ProgressEvent
from rag_core.services.connection import open_store
from tests.jobs_support import queue_pdf

LOCAL = Principal.local_operator()


class FakeStageRunner:
    """A fake of `LocalStageRunner`: runs no stage; sends `burst` events of one stage, then one
    event of the next stage, then `burst` more of it, counting the job table's versions."""

    def __init__(self, settings: Settings, burst: int = 100) -> None:
        self.table = open_store(settings).job_table()
        self.burst = burst
        self.seen: dict[str, tuple] = {}

    def _version(self) -> int:
        return int(self.table.jobs.version)

    def _send(
        self,
        report,
        job,
        stage: str,
        numbers: range,  # type: ignore[no-untyped-def]
        total: int,
    ) -> tuple[int, float]:
        """Send one event per number; the job table's versions made meanwhile, and the seconds taken."""
        before, started = self._version(), time.monotonic()
        for n in numbers:
            report(ProgressEvent(file_name=job.file_name, stage=stage, done=n, total=total))
        return self._version() - before, time.monotonic() - started

    def run(self, job, source, settings, store, report) -> IngestResult:  # type: ignore[no-untyped-def]
        self.seen["parse"] = self._send(report, job, "parse", range(1, self.burst + 1), self.burst)
        row = self.table.get(job.id)
        self.seen["parse_row"] = (row.stage, row.done, row.total)
        writes, _ = self._send(report, job, "chunk", range(1), 7)  # the next stage begins at once
        row = self.table.get(job.id)
        self.seen["chunk_start"] = (writes, row.stage, row.done, row.total)
        self.seen["chunk"] = self._send(report, job, "chunk", range(1, self.burst + 1), 7)
        return IngestResult(
            file_name=job.file_name,
            status="already_present",
            doc_id=job.doc_id,
            message="Fake result: nothing was ingested.",
        )

    def discard(self, job, settings, store, existed) -> None:  # type: ignore[no-untyped-def]
        raise AssertionError("nothing to discard: the fake job is never cancelled")


def _most_writes(seconds: float, interval: float) -> int:
    """Writes a burst of `seconds` may hold at one per `interval`, the first one included."""
    return 1 + int(seconds // interval)


def test_progress_is_written_at_most_once_a_second_and_a_new_stage_at_once(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "lib")
    interval = settings.jobs.progress_interval_s
    assert interval == 1.0
    job = queue_pdf(settings, tmp_path, "burst.pdf", LOCAL)
    runner = FakeStageRunner(settings)
    assert Worker(settings, runner=runner).run_once()

    writes, seconds = runner.seen["parse"]
    assert 1 <= writes <= _most_writes(seconds, interval), (writes, seconds)  # 100 events in 0.1 s: one write
    stage, done, total = runner.seen["parse_row"]
    assert stage == "parse" and total == 100 and 1 <= done <= 100
    writes, stage, done, total = runner.seen["chunk_start"]
    assert (writes, stage, done, total) == (1, "chunk", 0, 7)  # within the second, but a new stage: written
    writes, seconds = runner.seen["chunk"]
    assert writes <= _most_writes(seconds, interval) - 1, (writes, seconds)  # the stage's first write was above

    ended = open_store(settings).job_table().get(job.id)
    assert (ended.state, ended.message_key) == ("done", "already_present")  # the outcome is written too
