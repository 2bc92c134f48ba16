"""The façade's job verbs: submit uploads to the queue, list, cancel and retry jobs, worker liveness.

A submission is checked as an inline ingestion is (write access on the collection, a new one
created for its submitter, the same refusals for an oversized or unreadable file, the same
rule for bytes already stored in another collection), then the bytes are written into the
library under their SHA-256 and only then is the job row added: from the moment an upload is
accepted, a crash loses nothing. A job is visible, cancellable and retryable only by its
submitter, the managers of its collection and administrators; to anyone else it is "not
found", exactly like a missing one. Queued, cancelled and retried jobs go to the audit trail
(the worker writes done and failed). A file is admitted here, once (`ingestion.admit`); its job row
carries the kind and the document id to the worker (`rag_core.jobs`), which runs the stages (`rag_core.ingestion`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from rag_core import ingestion, storage
from rag_core.access import Principal, includes
from rag_core.config import Settings
from rag_core.errors import NotFoundError, QuotaError
from rag_core.library import clean_file_name
from rag_core.messages import message
from rag_core.services import permissions as perm
from rag_core.services.connection import open_store
from rag_core.store import Job

JOB_NOT_FOUND = message("job.not_found")


def _visible(job: Job, settings: Settings, principal: Principal) -> bool:
    if principal.is_admin or job.submitter.strip().lower() == principal.user_key:
        return True
    return includes(perm.grants_of(settings).role_of(principal, job.collection), "manage")


def _checked(job_id: str, settings: Settings, principal: Principal) -> Job:
    job = open_store(settings).job_table().get(job_id) if job_id else None
    if job is None or not _visible(job, settings, principal):
        raise NotFoundError.of("job.not_found")
    return job


def submit_upload(
    data: bytes,
    file_name: str,
    settings: Settings,
    collection: str | None = None,
    *,
    principal: Principal,
    into_existing: bool = False,
) -> Job:
    """Queue one uploaded file; raises `RagError` (with today's messages) for a file or a
    collection that would be refused, and `QuotaError` past `jobs.max_queued_per_user`.

    The collection is chosen by the same rules as `pipeline.ingest` (`permissions.target_collection`:
    the default one when None, names compared up to case and width, someone else's collection
    only with `into_existing`)."""
    name = clean_file_name(file_name)
    store = open_store(settings)
    table = store.job_table()
    if table.count_active(principal.user) >= settings.jobs.max_queued_per_user:
        raise QuotaError.of("job.quota", count=settings.jobs.max_queued_per_user)
    collection = perm.target_collection(store, settings, collection, principal, into_existing)
    settings.uploads_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=settings.uploads_dir, prefix=".upload.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        upload = ingestion.admit(tmp, name, settings)  # the file's one check: the worker trusts its kind and id
        perm.check_existing_copy(ingestion.stored_record(store, upload.doc_id), collection, settings, principal)
        storage.save_upload(settings, tmp, f"{upload.doc_id}.{upload.kind}")
    finally:
        tmp.unlink(missing_ok=True)
    job = table.add(
        Job(
            id=uuid.uuid4().hex,
            file_name=name,
            collection=collection,
            submitter=principal.user,
            groups=json.dumps({"groups": sorted(principal.groups), "admin": principal.is_admin}),
            source_sha256=upload.doc_id,
            suffix=upload.kind,
            doc_id=upload.doc_id,
        )
    )
    perm.audit(
        settings, "job_queued", principal, job_id=job.id, file_name=name, collection=collection, doc_id=upload.doc_id
    )
    return job


def submit_files(
    paths: Sequence[Path],
    settings: Settings,
    collection: str | None = None,
    *,
    principal: Principal,
    into_existing: bool = False,
) -> list[Job]:
    """`submit_upload` for files on disk (the CLI's `ingest --queue`)."""
    return [
        submit_upload(
            Path(p).read_bytes(), Path(p).name, settings, collection, principal=principal, into_existing=into_existing
        )
        for p in paths
    ]


def _cleared_key(principal: Principal) -> str:
    return f"jobs/cleared/u-{hashlib.sha256(principal.user_key.encode()).hexdigest()[:24]}.json"


def _cleared_before(settings: Settings, principal: Principal) -> float:
    found = storage.open_library(settings).read(_cleared_key(principal))
    try:
        return float(json.loads(found[0])["before"]) if found else 0.0
    except (ValueError, KeyError, TypeError):
        return 0.0


def clear_finished_jobs(settings: Settings, *, principal: Principal) -> None:
    """Hide from the principal's lists the jobs that have ended by now; the rows stay in the job
    table and their outcome in the audit trail (the clearing itself is recorded too)."""
    before = time.time()
    storage.open_library(settings).write(_cleared_key(principal), json.dumps({"before": before}).encode())
    perm.audit(settings, "jobs_cleared", principal, before=before)


def list_jobs(settings: Settings, *, principal: Principal, limit: int = 50) -> list[Job]:
    """The queue (running and queued, oldest first) and then the most recent ended jobs the
    principal may see and has not cleared, at most `limit` of those."""
    cleared = _cleared_before(settings, principal)
    jobs = [
        j
        for j in open_store(settings).job_table().all()
        if _visible(j, settings, principal)
        and (j.state in ("running", "queued") or (j.finished_at or j.updated_at) > cleared)
    ]
    active = [j for j in jobs if j.state in ("running", "queued")]
    active.sort(key=lambda j: (j.state != "running", j.created_at))
    ended = sorted(
        (j for j in jobs if j.state not in ("running", "queued")),
        key=lambda j: j.finished_at or j.updated_at,
        reverse=True,
    )[:limit]
    return active + ended


def queue_places(settings: Settings, jobs: Sequence[Job]) -> dict[str, tuple[int, bool, int]]:
    """For each queued job of `jobs`: (its place in the order the workers take jobs, 1 = next;
    whether it is a small file, taken first and by the small-files lane; the imports running
    now). The order is the workers' own (`rag_core.jobs.fair`) over the whole queue, so a place
    counts other users' jobs too."""
    from rag_core.jobs.fair import PageCounts, claim_order

    table = open_store(settings).job_table()
    queued, running = table.all("state = 'queued'"), table.all("state = 'running'")
    pages = PageCounts(settings)
    order = claim_order(queued, running, pages, settings.jobs.small_job_pages)
    places = {job.id: n for n, job in enumerate(order, start=1)}
    return {
        j.id: (places[j.id], pages(j) <= settings.jobs.small_job_pages, len(running))
        for j in jobs
        if j.state == "queued" and j.id in places
    }


def get_job(job_id: str, settings: Settings, *, principal: Principal) -> Job:
    return _checked(job_id, settings, principal)


def cancel_job(job_id: str, settings: Settings, *, principal: Principal) -> str:
    """Cancel a queued job at once, or ask its worker to stop a running one (it then removes the
    partial outputs). Returns the state the job was in."""
    job = _checked(job_id, settings, principal)
    was = open_store(settings).job_table().cancel(job.id)
    if was is None:
        raise NotFoundError.of("job.finished")
    perm.audit(
        settings, "job_cancelled", principal, job_id=job.id, file_name=job.file_name, collection=job.collection, was=was
    )
    return was


def retry_job(job_id: str, settings: Settings, *, principal: Principal) -> Job:
    """Queue a failed or cancelled job again (its uploaded bytes are still in the library)."""
    job = _checked(job_id, settings, principal)
    if storage.upload_copy(settings, f"{job.source_sha256}.{job.suffix}") is None:
        raise NotFoundError.of("job.upload_gone")
    perm.require(settings, job.collection, "write", principal)
    if not open_store(settings).job_table().retry(job.id):
        raise NotFoundError.of("job.not_retryable")
    perm.audit(settings, "job_retried", principal, job_id=job.id, file_name=job.file_name, collection=job.collection)
    return _checked(job.id, settings, principal)


def live_workers(settings: Settings) -> list[dict]:
    """The workers that beat within three heartbeats: empty means nothing will run the queue."""
    return open_store(settings).job_table().live_workers(3 * settings.jobs.heartbeat_s)
