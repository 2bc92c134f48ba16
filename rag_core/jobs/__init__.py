"""Uploads as jobs: a worker outside the Streamlit script run takes queued uploads and ingests them.

`worker` holds the loop (claim, lease renewal, heartbeat, compaction, outcome); `runner` runs
the ingestion stages of one claimed job and is the part a distributed executor replaces. The
job table itself is `rag_core.store.jobs`; who may see or cancel a job is decided by the
façade (`rag_core.pipeline.jobs`). This package never renders anything.
"""

from __future__ import annotations

from rag_core.jobs.runner import JobStopped, LocalStageRunner, StageRunner
from rag_core.jobs.worker import Worker

__all__ = ["JobStopped", "LocalStageRunner", "StageRunner", "Worker"]
