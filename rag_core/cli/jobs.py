"""The upload queue's commands: `worker`, `jobs list|cancel|retry` and `ingest --queue`.

`worker` runs one worker in the foreground until SIGINT or SIGTERM; a job it was running goes
back to the queue. `jobs` acts with the same principal rules as the app (`--as-user`). This module
holds no queue logic: it calls `rag_core.pipeline` and `rag_core.jobs.Worker`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

from rag_core.cli.common import context_of, settings_of


def cmd_worker(args: argparse.Namespace) -> int:
    from rag_core import storage
    from rag_core.jobs import Worker

    logging.getLogger("rag_core").setLevel(logging.INFO)
    settings = settings_of(args)
    storage.require_available(settings)  # an unusable library is refused before any job is taken

    def show(job: Any, event: Any) -> None:
        print(f"EVENT {job.id} {event.stage} {event.done}/{event.total} {event.message}".rstrip(), flush=True)

    worker = Worker(settings, on_event=show if args.verbose else None, max_pages=args.max_pages)

    def stop(signum: int, frame: object) -> None:  # the job in hand goes back to the queue
        worker.stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"worker {worker.id} pid {os.getpid()} on {settings.db_uri}", flush=True)
    try:
        worker.run_forever()
    except KeyboardInterrupt:
        pass
    return 0


def cmd_jobs(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings, principal = context_of(args)
    if args.action in ("cancel", "retry"):
        if not args.id:
            print(f"error: jobs {args.action} needs a job id (see `python -m rag_core jobs list`).", file=sys.stderr)
            return 1
        job_id = _resolve(args.id, settings, principal)
        if args.action == "cancel":
            was = pipeline.cancel_job(job_id, settings, principal=principal)
            print(
                f"{job_id[:12]}: cancelled"
                + (" (its worker stops it and removes what it wrote)" if was == "running" else "")
            )
        else:
            pipeline.retry_job(job_id, settings, principal=principal)
            print(f"{job_id[:12]}: queued again")
        return 0
    jobs = pipeline.list_jobs(settings, principal=principal)
    workers = pipeline.live_workers(settings)
    if args.json:
        print(json.dumps({"workers": len(workers), "jobs": [_as_dict(j) for j in jobs]}, ensure_ascii=False, indent=1))
        return 0
    if not workers and any(j.state in ("queued", "running") for j in jobs):
        print("No worker is running: start one with `python -m rag_core worker` (or `make run`).")
    for j in jobs:
        stage = f"{j.stage} {j.done}/{j.total}" if j.state == "running" else ""
        print(
            f"{j.id[:12]}  {j.state:<9} {stage:<16} {j.collection:<12} {j.submitter:<24} {j.file_name}"
            + (f"  {j.message}" if j.state == "failed" else "")
        )
    if not jobs:
        print("No import to show.")
    return 0


def _as_dict(job: Any) -> dict[str, Any]:
    from rag_core import pipeline

    row = {k: v for k, v in job.row().items() if k not in ("owner", "groups", "error")}
    row["progress"] = round(pipeline.progress_of(job), 3)
    return row


def _resolve(prefix: str, settings: Any, principal: Any) -> str:
    from rag_core import pipeline
    from rag_core.errors import NotFoundError

    matches = [j.id for j in pipeline.list_jobs(settings, principal=principal, limit=10_000) if j.id.startswith(prefix)]
    if len(matches) != 1:
        raise NotFoundError(f"No single import matches '{prefix}'; see `python -m rag_core jobs list`.")
    return matches[0]


def queue_files(args: argparse.Namespace) -> int:
    """`ingest --queue`: submit each file; a refused one is reported and gives exit code 2."""
    from rag_core import pipeline
    from rag_core.errors import RagError

    settings, principal = context_of(args)
    worst = 0
    for path in args.files:
        try:
            job = pipeline.submit_upload(
                Path(path).read_bytes(),
                Path(path).name,
                settings,
                args.collection,
                principal=principal,
                into_existing=args.into_existing,
            )
            print(f"{'queued':>16}  {job.file_name}: job {job.id[:12]}", flush=True)
        except OSError as err:
            print(f"{'refused':>16}  {Path(path).name}: cannot be read ({err.strerror}).")
            worst = 2
        except RagError as err:
            print(f"{'refused':>16}  {Path(path).name}: {err}")
            worst = 2
    if not pipeline.live_workers(settings):
        print("No worker is running: start one with `python -m rag_core worker` (or `make run`).")
    return worst


def add_job_commands(add: Any) -> None:
    """Register `worker` and `jobs` (`add` gives the common options, `rag_core.cli.common.add_command`)."""
    p = add("worker", cmd_worker, "run a worker that ingests queued uploads (until Ctrl-C)")
    p.add_argument("--verbose", action="store_true", help="print every progress event")
    p.add_argument("--max-pages", type=int, help="take only files of at most this many pages (a small-files lane)")
    p = add("jobs", cmd_jobs, "the upload queue: list, cancel ID, retry ID")
    p.add_argument("action", nargs="?", choices=["list", "cancel", "retry"], default="list")
    p.add_argument("id", nargs="?", help="job id (or a unique prefix)")
    p.add_argument("--json", action="store_true")
