"""Run the ingestion stages of one claimed job, and undo what a cancelled job left behind.

`StageRunner` is the seam: the worker hands it a job, the uploaded file and a `report`
callback (which raises `JobStopped` when the job was cancelled or its lease lost) and gets an
`IngestResult`. `LocalStageRunner` runs the stages in this process through
`ingestion.ingest_one`, reusing the stages the document's manifest says are fresh, so a job
resumed after a crash starts at the stage after the last finished one. The file is not checked
again: it was admitted when it was queued (`ingestion.admit`), and its job row carries the kind
and the document id that admission found. An executor
that spreads the stages over machines implements the same two methods: `RayStageRunner`
(`ray_runner`, chosen by the worker from `RAG_INGEST__EXECUTOR`) is this one with the page
batches and the embedding handed to Ray tasks. This module claims nothing, writes no job row
and never imports Ray.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from rag_core import ingestion
from rag_core.access import LOCAL_USER, Principal, make_principal
from rag_core.config import Settings
from rag_core.ingestion import StageExecutor, Upload
from rag_core.models import DocumentRecord, IngestResult, ProgressEvent
from rag_core.services import permissions as perm
from rag_core.store import Job, Store


def submitter_of(job: Job, settings: Settings) -> Principal:
    """The principal who submitted the job, as the app saw it then (administrator included).

    The local operator's name is one nobody can sign in with, so it is not rebuilt by
    `make_principal` (which refuses that name) but taken as the operator itself."""
    if job.submitter == LOCAL_USER:
        return Principal.local_operator()
    principal = make_principal(job.submitter, job.group_list, settings)
    return Principal(principal.user, principal.groups, principal.is_admin or job.submitter_admin)


class JobStopped(Exception):
    """The job was cancelled, or another worker took it over, while its stages ran."""


class StageRunner(Protocol):
    def run(
        self, job: Job, source: Path, settings: Settings, store: Store, report: Callable[[ProgressEvent], None]
    ) -> IngestResult: ...

    def discard(self, job: Job, settings: Settings, store: Store, existed: bool) -> None: ...


class LocalStageRunner:
    """The four stages in this process (the page analysis in its own helper processes)."""

    def executor(self) -> StageExecutor | None:
        """What runs the page batches and the embedding; None: this process."""
        return None

    def run(
        self, job: Job, source: Path, settings: Settings, store: Store, report: Callable[[ProgressEvent], None]
    ) -> IngestResult:
        principal = submitter_of(job, settings)

        def guard(existing: DocumentRecord | None) -> None:
            # The library may have changed since the job was queued: a grant revoked meanwhile stops
            # it, and so do the same bytes stored meanwhile in a collection the submitter may not
            # manage (another user's upload of them, queued at the same time, ran first).
            perm.require(settings, job.collection, "write", principal)
            perm.check_existing_copy(existing, job.collection, settings, principal)

        upload = Upload(source, job.file_name, job.suffix, job.source_sha256)
        return ingestion.ingest_one(upload, job.collection, settings, store, report, guard, self.executor())

    def discard(self, job: Job, settings: Settings, store: Store, existed: bool) -> None:
        """Remove the partial outputs of a cancelled job: its rows (nothing searchable) and, for a
        document that was not in the library before, its folder. A document that was already
        there (the same bytes uploaded again) is left as it was."""
        if existed or not job.source_sha256:
            return
        ingestion.discard(job.source_sha256, settings, store)
