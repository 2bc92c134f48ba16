"""The job table and the worker heartbeats, two LanceDB tables beside the library's others.

`jobs`: one row per uploaded file waiting for, going through or done with ingestion (state
`queued`, `running`, `done`, `failed`, `cancelled`). `workers`: one row per live worker, its
last heartbeat. Both live wherever the library lives (a directory or an object store).

Every change of a job is a conditional `update`: a claim succeeds only on a row still
`queued`, and a running job's progress, lease renewal and result are written only while the
row still names the worker's owner token; LanceDB commits each update atomically and reports
how many rows it changed, so two workers never both believe they hold a job. A job whose
lease ran out (its worker died) goes back to `queued`. Every update is a table version:
`compact` folds them and drops old versions. This module decides nothing about access,
messages or stages; it stores and changes rows.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import timedelta
from typing import Any

import pyarrow as pa

from rag_core.store.channels import _quote

STATES = ("queued", "running", "done", "failed", "cancelled")
ACTIVE = ("queued", "running")
JOBS_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("file_name", pa.string()),
        ("collection", pa.string()),
        ("submitter", pa.string()),
        ("groups", pa.string()),
        ("source_sha256", pa.string()),
        ("suffix", pa.string()),
        ("state", pa.string()),
        ("stage", pa.string()),
        ("done", pa.int64()),
        ("total", pa.int64()),
        ("attempts", pa.int64()),
        ("error", pa.string()),
        ("message", pa.string()),
        ("message_key", pa.string()),
        ("doc_id", pa.string()),
        ("owner", pa.string()),
        ("lease_until", pa.float64()),
        ("cancel", pa.bool_()),
        ("created_at", pa.float64()),
        ("started_at", pa.float64()),
        ("updated_at", pa.float64()),
        ("finished_at", pa.float64()),
        ("reused", pa.string()),
    ]
)
WORKERS_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("pid", pa.int64()),
        ("host", pa.string()),
        ("started_at", pa.float64()),
        ("beat_at", pa.float64()),
    ]
)


@dataclass
class Job:
    """One row of the job table. Times are seconds since the epoch (0 when not reached)."""

    id: str
    file_name: str
    collection: str
    submitter: str
    groups: str = "{}"  # the submitter's groups and admin flag, JSON: the worker acts with the submitter's rights
    source_sha256: str = ""
    suffix: str = ""
    state: str = "queued"
    stage: str = ""
    done: int = 0
    total: int = 0
    attempts: int = 0
    error: str = ""  # the last failure, to tell a repeated one from a new one
    message: str = ""
    message_key: str = ""  # what the UI translates (refused, internal, crashed, cancelled, ingested...)
    doc_id: str = ""
    owner: str = ""
    lease_until: float = 0.0
    cancel: bool = False
    created_at: float = 0.0
    started_at: float = 0.0
    updated_at: float = 0.0
    finished_at: float = 0.0
    reused: str = ""  # stages reused from the manifest on the last attempt, comma-separated
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def group_list(self) -> list[str]:
        return list(json.loads(self.groups or "{}").get("groups", []))

    @property
    def submitter_admin(self) -> bool:
        return bool(json.loads(self.groups or "{}").get("admin", False))

    def row(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}


_COLUMNS = [f.name for f in fields(Job) if f.name != "extra"]


def _retrying(action, attempts: int = 8):
    """Run a commit; LanceDB reports a commit conflict with a concurrent writer as retryable."""
    for attempt in range(attempts):
        try:
            return action()
        except (RuntimeError, OSError, ValueError) as err:
            text = str(err).lower()
            if attempt == attempts - 1 or ("conflict" not in text and "retry" not in text):
                raise
            time.sleep(0.05 * (attempt + 1))
    return None


class JobTable:
    """The `jobs` and `workers` tables of one LanceDB connection."""

    def __init__(self, db) -> None:
        self.db = db

    def _table(self, name: str, schema: pa.Schema):
        try:
            return self.db.open_table(name)
        except ValueError as err:
            if "not found" not in str(err):
                raise
            return self.db.create_table(name, schema=schema, exist_ok=True)

    @property
    def jobs(self):
        return self._table("jobs", JOBS_SCHEMA)

    @property
    def workers(self):
        return self._table("workers", WORKERS_SCHEMA)

    # ----- rows ---------------------------------------------------------------------------
    def add(self, job: Job) -> Job:
        now = time.time()
        job.created_at = job.created_at or now
        job.updated_at = now
        table = self.jobs
        _retrying(lambda: table.add(pa.Table.from_pylist([job.row()], schema=JOBS_SCHEMA)))
        return job

    def all(self, where: str | None = None) -> list[Job]:
        query = self.jobs.search()
        if where:
            query = query.where(where)
        rows = query.select(_COLUMNS).limit(None).to_arrow().to_pylist()
        return sorted((Job(**r) for r in rows), key=lambda j: (j.created_at, j.id))

    def get(self, job_id: str) -> Job | None:
        found = self.all(f"id = {_quote(job_id)}")
        return found[0] if found else None

    def _update(self, where: str, values: dict[str, Any]) -> int:
        values = {**values, "updated_at": time.time()}
        table = self.jobs
        result = _retrying(lambda: table.update(where=where, values=values))
        return int(getattr(result, "rows_updated", 0) or 0)

    # ----- the worker's verbs -----------------------------------------------------------------
    def requeue_expired(self, now: float | None = None) -> int:
        """Running jobs whose lease ran out (their worker died) go back to the queue."""
        now = time.time() if now is None else now
        return self._update(f"state = 'running' AND lease_until < {now!r}", {"state": "queued", "owner": ""})

    def claim(
        self, worker_id: str, lease_s: float, order: Callable[[list[Job], list[Job]], list[Job]] | None = None
    ) -> Job | None:
        """The first queued job, now `running` under a fresh owner token; None when the queue is empty.

        "First" is the oldest, or the first of `order(queued, running)` (`jobs.fair`), which may
        also leave jobs out (a lane for small files). The update only matches a row still
        `queued`: a job another worker took first matches nothing and the next one is tried.
        The token read back confirms the claim."""
        queued = self.all("state = 'queued'")
        if order is not None and queued:
            queued = order(queued, self.all("state = 'running'"))
        for job in queued:
            token = f"{worker_id}:{uuid.uuid4().hex}"
            now = time.time()
            changed = self._update(
                f"id = {_quote(job.id)} AND state = 'queued'",
                {
                    "state": "running",
                    "owner": token,
                    "lease_until": now + lease_s,
                    "started_at": now,
                    "attempts": job.attempts + 1,
                },
            )
            if changed:
                claimed = self.get(job.id)
                if claimed is not None and claimed.owner == token:
                    return claimed
        return None

    def held(self, job: Job, values: dict[str, Any]) -> bool:
        """Write `values` while the job is still this worker's and not cancelled; False otherwise."""
        return (
            self._update(
                f"id = {_quote(job.id)} AND owner = {_quote(job.owner)} AND state = 'running' AND cancel = false",
                values,
            )
            == 1
        )

    def release(self, job: Job, values: dict[str, Any]) -> bool:
        """Write the job's outcome (done, failed, cancelled, queued again) if the worker still owns it."""
        return (
            self._update(
                f"id = {_quote(job.id)} AND owner = {_quote(job.owner)} AND state = 'running'",
                {"owner": "", "lease_until": 0.0, **values},
            )
            == 1
        )

    # ----- the users' verbs -------------------------------------------------------------------
    def cancel(self, job_id: str) -> str | None:
        """Cancel a queued job at once; ask a running one to stop. Returns the state it was in
        (None when it had already ended)."""
        now = time.time()
        if self._update(
            f"id = {_quote(job_id)} AND state = 'queued'",
            {"state": "cancelled", "cancel": True, "finished_at": now, "message_key": "cancelled"},
        ):
            return "queued"
        if self._update(f"id = {_quote(job_id)} AND state = 'running'", {"cancel": True}):
            return "running"
        return None

    def retry(self, job_id: str) -> bool:
        """A failed or cancelled job goes back to the queue with a fresh count of attempts."""
        return (
            self._update(
                f"id = {_quote(job_id)} AND state IN ('failed', 'cancelled')",
                {
                    "state": "queued",
                    "cancel": False,
                    "attempts": 0,
                    "error": "",
                    "message": "",
                    "message_key": "",
                    "stage": "",
                    "done": 0,
                    "total": 0,
                    "finished_at": 0.0,
                    "created_at": time.time(),
                },
            )
            == 1
        )

    def count_active(self, submitter: str) -> int:
        return self.jobs.count_rows(f"submitter = {_quote(submitter)} AND state IN ('queued', 'running')")

    def shares_source(self, job: Job) -> bool:
        """Another queued or running job holds the same uploaded bytes."""
        return (
            self.jobs.count_rows(
                f"source_sha256 = {_quote(job.source_sha256)} AND id != {_quote(job.id)} "
                "AND state IN ('queued', 'running')"
            )
            > 0
        )

    # ----- heartbeats ---------------------------------------------------------------------------
    def beat(self, worker_id: str, pid: int, host: str, started_at: float) -> None:
        table = self.workers
        now = time.time()
        if not int(
            getattr(
                _retrying(lambda: table.update(where=f"id = {_quote(worker_id)}", values={"beat_at": now})),
                "rows_updated",
                0,
            )
            or 0
        ):
            row = {"id": worker_id, "pid": pid, "host": host, "started_at": started_at, "beat_at": now}
            _retrying(lambda: table.add(pa.Table.from_pylist([row], schema=WORKERS_SCHEMA)))

    def forget_worker(self, worker_id: str) -> None:
        table = self.workers
        _retrying(lambda: table.delete(f"id = {_quote(worker_id)}"))

    def live_workers(self, within_s: float) -> list[dict[str, Any]]:
        cutoff = time.time() - within_s
        rows = self.workers.search().where(f"beat_at >= {cutoff!r}").limit(None).to_arrow().to_pylist()
        return rows

    # ----- versions -------------------------------------------------------------------------------
    def compact(self, keep_s: float = 10.0) -> dict[str, int]:
        """Fold the small commits of progress and heartbeats, drop the old versions; the
        versions left per table."""
        left = {}
        for name, table in (("jobs", self.jobs), ("workers", self.workers)):
            try:
                table.optimize(cleanup_older_than=timedelta(seconds=keep_s))
                left[name] = len(table.list_versions())
            except (RuntimeError, OSError, ValueError) as err:  # another worker's commit or cleanup: next time
                if not _concurrent(err):
                    raise
        return left

    def versions(self) -> dict[str, int]:
        return {"jobs": len(self.jobs.list_versions()), "workers": len(self.workers.list_versions())}


def _concurrent(err: BaseException) -> bool:
    """A maintenance error caused by another worker at the same moment: a commit conflict, or a version
    its cleanup removed while this one was listing or reading them (lance: "Not found: ....manifest")."""
    text = str(err).lower()
    return "conflict" in text or "retry" in text or ("not found" in text and ".manifest" in text)
