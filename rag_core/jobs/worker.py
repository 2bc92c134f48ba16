"""The worker: takes queued uploads in order and runs their stages, outside any Streamlit run.

One loop per process (`python -m rag_core worker`; start more for more throughput, on this
machine or another one that sees the same library, or set `RAG_INGEST__EXECUTOR=ray` to spread
each job's page batches and embedding over a Ray cluster: `runner_for`). Each turn: beat (the
app tells whether a worker is alive from these heartbeats), send back to the queue the running
jobs whose lease ran out, claim the next queued job (`fair`: small files first, users in turn)
by a conditional update, run it with a lease renewed by a thread every third of `jobs.lease_s`,
write its outcome. Progress is written at most once per `jobs.progress_interval_s` within a
stage, and at once when a stage begins; the job table is compacted every `jobs.compact_every_s`.
Outcomes: `done` with the document id; `failed` at once for a file the user must fix (a
`RagError`: its message), after two identical internal errors in a row, or after
`jobs.max_attempts` runs (a worker killed each time); `cancelled` when the user asked, after
the runner removed the partial outputs. `stopping` (SIGINT, SIGTERM) ends the loop: a running
job stops at its next progress step and goes back to the queue. The uploaded bytes are removed once the document is
done (they are then its `source.*`); a failed or cancelled job keeps them for a retry.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable

from rag_core import storage
from rag_core.config import Settings
from rag_core.errors import RagError
from rag_core.jobs.fair import PageCounts, claim_order
from rag_core.jobs.runner import JobStopped, LocalStageRunner, StageRunner, submitter_of
from rag_core.models import IngestResult, ProgressEvent
from rag_core.services import permissions as perm
from rag_core.services.connection import open_store
from rag_core.store import Job, Store

log = logging.getLogger(__name__)


def upload_name(job: Job) -> str:
    return f"{job.source_sha256}.{job.suffix}"


def runner_for(settings: Settings) -> StageRunner:
    """The runner `settings.ingest.executor` names; Ray is imported only when it is `ray`."""
    if settings.ingest.executor == "ray":
        from rag_core.jobs.ray_runner import RayStageRunner

        return RayStageRunner(settings)
    return LocalStageRunner()


class _Lease:
    """Renews a running job's lease from a thread; `lost` is set when the row stopped being
    ours (cancelled, or requeued after an expiry and taken by another worker)."""

    def __init__(self, worker: Worker, job: Job) -> None:
        self.worker, self.job = worker, job
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"lease-{job.id[:8]}", daemon=True)

    def __enter__(self) -> _Lease:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        jobs = self.worker.settings.jobs
        period = min(jobs.lease_s / 3, jobs.heartbeat_s)
        renewed = time.monotonic()
        while not self._stop.wait(period):
            self.worker.beat()  # a long stage without progress events still shows a live worker
            if time.monotonic() - renewed < jobs.lease_s / 3 - period / 2:
                continue
            renewed = time.monotonic()
            if not self.worker.write(self.job, {"lease_until": time.time() + jobs.lease_s}):
                self.lost.set()
                return


class Worker:
    def __init__(
        self,
        settings: Settings,
        runner: StageRunner | None = None,
        on_event: Callable[[Job, ProgressEvent], None] | None = None,
        max_pages: int | None = None,
    ) -> None:
        """`max_pages`: take only files of at most that many pages (the small-files lane)."""
        self.settings = settings
        self.store: Store = open_store(settings)
        self.table = self.store.job_table()
        self.runner = runner or runner_for(settings)
        self.on_event = on_event
        self.id = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.started_at = time.time()
        self._write_lock = threading.RLock()
        self._last_beat = 0.0
        self._last_compact = time.monotonic()
        self.stopping = threading.Event()
        self.max_pages = max_pages
        self.pages = PageCounts(settings)

    # ----- the loop -------------------------------------------------------------------------
    def run_forever(self) -> None:
        log.info("worker %s on %s", self.id, self.settings.db_uri)
        try:
            while not self.stopping.is_set():
                if not self.run_once():
                    self.stopping.wait(self.settings.jobs.poll_s)
        finally:
            self.table.forget_worker(self.id)

    def run_once(self) -> bool:
        """One turn of the loop; True when a job was run."""
        self.beat()
        self.table.requeue_expired()
        if time.monotonic() - self._last_compact > self.settings.jobs.compact_every_s:
            self.compact()
        job = self.table.claim(self.id, self.settings.jobs.lease_s, order=self._order)
        if job is None:
            return False
        self.run_job(job)
        return True

    def _order(self, queued: list[Job], running: list[Job]) -> list[Job]:
        return claim_order(queued, running, self.pages, self.settings.jobs.small_job_pages, self.max_pages)

    def beat(self, force: bool = False) -> None:
        if force or time.monotonic() - self._last_beat >= self.settings.jobs.heartbeat_s:
            with self._write_lock:
                self.table.beat(self.id, os.getpid(), socket.gethostname(), self.started_at)
            self._last_beat = time.monotonic()

    def compact(self) -> dict[str, int]:
        with self._write_lock:
            left = self.table.compact()
        self._last_compact = time.monotonic()
        return left

    def write(self, job: Job, values: dict) -> bool:
        with self._write_lock:
            return self.table.held(job, values)

    # ----- one job -----------------------------------------------------------------------------
    def run_job(self, job: Job) -> None:
        if job.attempts > self.settings.jobs.max_attempts:
            self._finish(job, "failed", "crashed", job.error or "The import stopped several times before finishing.")
            return
        existed = any(r.doc_id == job.source_sha256 for r in self.store.documents())
        last_write = -1e9
        reused: list[str] = []

        with _Lease(self, job) as lease:

            def report(event: ProgressEvent) -> None:
                nonlocal last_write
                if lease.lost.is_set() or self.stopping.is_set():
                    raise JobStopped()
                if event.message == "reused" and event.stage not in reused:
                    reused.append(event.stage)
                if self.on_event is not None:
                    self.on_event(job, event)
                now = time.monotonic()
                # each write is a table version: at most one a second within a stage, but a new stage
                # at once (four a job), or the page would show the last one while a long stage runs
                if event.stage != job.stage or now - last_write >= self.settings.jobs.progress_interval_s:
                    job.stage, job.done, job.total = event.stage, event.done, event.total
                    last_write = now
                    if not self.write(
                        job,
                        {"stage": event.stage, "done": event.done, "total": event.total, "reused": ",".join(reused)},
                    ):
                        lease.lost.set()
                        raise JobStopped()
                self.beat()

            try:
                source = storage.upload_copy(self.settings, upload_name(job))
                if source is None:
                    raise RagError.of("job.upload_missing")
                result = self.runner.run(job, source, self.settings, self.store, report)
                stopped = lease.lost.is_set()
            except JobStopped:
                stopped, result = True, None
            except (KeyboardInterrupt, SystemExit):  # the worker is stopped: the job waits for the next one
                self._requeue(job)
                raise
            except RagError as err:
                self._finish(job, "failed", "refused", str(err))
                return
            except Exception as err:  # a bug or a machine problem: once more, then failed
                log.exception("job %s (%s) failed", job.id, job.file_name)
                text = perm.scrubbed(self.settings, f"{type(err).__name__}: {err}")[:500]
                if text == job.error:
                    self._finish(
                        job,
                        "failed",
                        "internal",
                        "This file could not be processed because of an internal error; it has been logged.",
                        error=text,
                    )
                else:
                    with self._write_lock:
                        self.table.release(job, {"state": "queued", "error": text})
                return
        if stopped:
            self._stopped(job, existed)
            return
        assert result is not None
        self._done(job, result, reused)

    def _requeue(self, job: Job) -> None:
        """Give the job back to the queue (this worker stops); the run does not count as an attempt."""
        with self._write_lock:
            self.table.release(job, {"state": "queued", "attempts": max(0, job.attempts - 1)})

    def _stopped(self, job: Job, existed: bool) -> None:
        current = self.table.get(job.id)
        if current is not None and current.cancel:
            self.runner.discard(job, self.settings, self.store, existed)
            self._finish(job, "cancelled", "cancelled", "")
        elif self.stopping.is_set():
            self._requeue(job)  # matches only while the job is still ours
        # else the lease was lost: another worker owns the job now

    def _done(self, job: Job, result: IngestResult, reused: list[str]) -> None:
        current = self.table.get(job.id)
        if current is not None and current.cancel:  # cancelled during the last stage: undo it
            self._stopped(job, existed=result.status == "already_present")
            return
        if result.status == "ingested":
            self.store.optimize(self.settings.retrieval.ann_min_rows)
        key = "already_present" if result.status == "already_present" else "ingested"
        if self._finish(job, "done", key, result.message, doc_id=result.doc_id or "", reused=",".join(reused)):
            if not self.table.shares_source(job):
                storage.drop_upload(self.settings, upload_name(job))

    def _finish(self, job: Job, state: str, key: str, message: str, **values: object) -> bool:
        with self._write_lock:
            ok = self.table.release(
                job, {"state": state, "message_key": key, "message": message, "finished_at": time.time(), **values}
            )
        if ok:
            principal = submitter_of(job, self.settings)
            perm.audit(
                self.settings,
                f"job_{state}",
                principal,
                job_id=job.id,
                file_name=job.file_name,
                collection=job.collection,
                doc_id=values.get("doc_id") or None,
                status=key,
                message=message if state == "failed" else None,
            )
        return ok
