"""Which queued job a worker takes next: small files first, users in turn, a lane for small files.

A first-come queue makes a 5-page upload wait for the 300-page one queued before it. Here:
- a job of at most `jobs.small_job_pages` pages goes before larger ones (smallest first);
- among jobs of the same kind, the submitter with the fewest jobs running goes first, then
  the oldest job: two users' uploads alternate instead of one user's batch holding the queue;
- a worker started with `max_pages` (the small-files lane `serve` starts beside the others)
  takes only small jobs, so a small upload starts within seconds even while every other
  worker is inside a long one.
A large job is never starved by small ones for long: small jobs are short by definition.
Page counts are read from the uploaded file once per worker (a PDF's page count, 1 for other
kinds) and kept by the file's SHA-256. This module decides order only; the claim itself (the
conditional update that keeps two workers off one job) is `store.jobs.JobTable.claim`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from rag_core.config import Settings
from rag_core.store import Job


class PageCounts:
    """Page counts of uploads, read once per file (keyed by SHA-256)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._known: dict[str, int] = {}

    def __call__(self, job: Job) -> int:
        if job.source_sha256 not in self._known:
            from rag_core import storage
            from rag_core.parsing.page_batches import file_pages

            path = storage.upload_copy(self.settings, f"{job.source_sha256}.{job.suffix}")
            self._known[job.source_sha256] = file_pages(path, job.suffix) if path is not None else 1
        return self._known[job.source_sha256]


def claim_order(
    queued: list[Job], running: list[Job], pages: Callable[[Job], int], small_pages: int, max_pages: int | None = None
) -> list[Job]:
    """`queued` in the order a worker should try to claim them; jobs over `max_pages` left out."""
    busy = Counter(j.submitter.strip().lower() for j in running)
    sized = [(job, pages(job)) for job in queued]
    if max_pages is not None:
        sized = [(job, n) for job, n in sized if n <= max_pages]

    def key(item: tuple[Job, int]) -> tuple[int, int, int, float, str]:
        job, n = item
        small = n <= small_pages
        return (0 if small else 1, n if small else 0, busy[job.submitter.strip().lower()], job.created_at, job.id)

    return [job for job, _ in sorted(sized, key=key)]
