"""Command-line verbs of the upload queue: `worker`, `serve`, `jobs list|cancel|retry`, `ingest --queue`.

`worker` runs one worker in the foreground until SIGINT or SIGTERM; a job it was running goes
back to the queue. `serve` is what `make run` starts: the workers (`worker_commands`), the
Streamlit app and the API server as child processes (each in its own process group), supervised:
Ctrl-C (SIGINT) or SIGTERM stops all, and when one exits the others are stopped too, so no
process outlives the command.
`jobs` acts with the same principal rules as the app (`--as-user`). This module holds no
queue logic: it calls `rag_core.pipeline` and `rag_core.jobs.Worker`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

_EXIT_GRACE_S = 15.0
WORKER_MEMORY_GB = 1.5  # peak resident memory of one worker ingesting (benchmarks/ingest.py)


def _context(args: argparse.Namespace) -> tuple[Any, Any]:
    """Settings and principal of a command, read as `rag_core.__main__` does (`--data-dir`, `--as-user`, `--groups`)."""
    from rag_core.access.principal import cli_principal
    from rag_core.config import Settings

    settings = Settings(data_dir=Path(args.data_dir)) if getattr(args, "data_dir", None) else Settings()
    return settings, cli_principal(getattr(args, "as_user", None), getattr(args, "groups", None), settings)


def cmd_worker(args: argparse.Namespace) -> int:
    from rag_core import storage
    from rag_core.config import Settings
    from rag_core.jobs import Worker

    logging.getLogger("rag_core").setLevel(logging.INFO)
    settings = Settings(data_dir=Path(args.data_dir)) if args.data_dir else Settings()
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


def _stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM the child's process group, SIGKILL it after a grace period."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=_EXIT_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the group: helper processes of the parse included
    except ProcessLookupError:
        pass
    proc.wait()


def default_workers(cores: int | None = None, memory_gb: float | None = None) -> int:
    """One worker per two cores (each uses two: its page helpers and the embedder's threads),
    at most one per `WORKER_MEMORY_GB` of memory, at least one."""
    cores = cores if cores is not None else (os.cpu_count() or 1)
    if memory_gb is None:
        try:
            memory_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        except (ValueError, OSError):
            memory_gb = WORKER_MEMORY_GB
    return max(1, min(cores // 2, int(memory_gb // WORKER_MEMORY_GB)))


def worker_commands(settings: Any, workers: int | None = None) -> list[list[str]]:
    """The `rag_core` arguments of each worker `serve` starts: `jobs.workers` (or `workers`, or
    the default from cores and memory), plus the small-files lane when `jobs.small_lane`."""
    count = workers or settings.jobs.workers or default_workers()
    commands = [["worker"] for _ in range(count)]
    if settings.jobs.small_lane:
        commands.append(["worker", "--max-pages", str(settings.jobs.small_job_pages)])
    return commands


def app_script() -> Path:
    """The app's entry page, found through the installed `rag_app` package (never a path of this checkout)."""
    import importlib.util

    spec = importlib.util.find_spec("rag_app")
    if spec is None or not spec.submodule_search_locations:
        from rag_core.errors import RagError

        raise RagError("The app package (rag_app) is not installed beside rag_core: `pip install` the product.")
    return Path(next(iter(spec.submodule_search_locations))) / "app.py"


def cmd_serve(args: argparse.Namespace) -> int:
    extra = list(args.streamlit_args)
    if extra[:1] == ["--"]:
        extra = extra[1:]
    env = dict(os.environ)
    if args.data_dir:
        env["RAG_DATA_DIR"] = str(args.data_dir)
    if args.api_port:  # the app's API tokens page says where the API listens
        env["RAG_API__PORT"] = str(args.api_port)
    from rag_core import storage
    from rag_core.config import Settings

    settings = Settings(data_dir=Path(args.data_dir)) if args.data_dir else Settings()
    storage.require_available(settings)  # before any child starts
    commands = worker_commands(settings, args.workers)
    workers = [
        subprocess.Popen([sys.executable, "-m", "rag_core", *cmd], env=env, start_new_session=True) for cmd in commands
    ]
    app = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(app_script()),
            "--server.address",
            args.address,
            "--server.port",
            str(args.port),
            *extra,
        ],
        env=env,
        start_new_session=True,
    )
    children = {"app": app} | {f"worker {n + 1}": proc for n, proc in enumerate(workers)}
    pids = ", ".join(str(proc.pid) for proc in workers)
    print(f"serve: worker pids {pids}, app pid {app.pid} on http://{args.address}:{args.port}", flush=True)
    if not args.no_api:  # the REST, OpenAI-compatible and MCP server, on its own port (RAG_API__PORT)
        port = ["--port", str(args.api_port)] if args.api_port else []
        children["api"] = subprocess.Popen(
            [sys.executable, "-m", "rag_core", "api", *port], env=env, start_new_session=True
        )
        print(f"serve: api pid {children['api'].pid}", flush=True)
    stopping: list[int] = []

    def on_signal(signum: int, frame: object) -> None:
        stopping.append(signum)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    code = 0
    try:
        while not stopping:
            ended = [name for name, proc in children.items() if proc.poll() is not None]
            if ended:
                rc = children[ended[0]].returncode or 0
                code = rc if rc > 0 else (1 if rc else 0)
                print(f"serve: the {ended[0]} exited ({code}); stopping the rest", file=sys.stderr, flush=True)
                break
            time.sleep(0.2)
    finally:
        for proc in children.values():
            _stop_group(proc)
    return code


def cmd_jobs(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings, principal = _context(args)
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

    settings, principal = _context(args)
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


def add_job_commands(sub, add) -> None:
    """Register `worker`, `serve` and `jobs` on the CLI's subparsers (`add` gives the common options)."""
    p = add("worker", cmd_worker, "run a worker that ingests queued uploads (until Ctrl-C)")
    p.add_argument("--verbose", action="store_true", help="print every progress event")
    p.add_argument("--max-pages", type=int, help="take only files of at most this many pages (a small-files lane)")
    p = add("serve", cmd_serve, "run a worker and the app together (what `make run` does); Ctrl-C stops both")
    p.add_argument("--address", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8501)
    p.add_argument("--no-api", action="store_true", help="do not start the API server (`python -m rag_core api`)")
    p.add_argument("--api-port", type=int, help="port of the API server (default: RAG_API__PORT, 8502)")
    p.add_argument(
        "--workers", type=int, help="workers to start (default: RAG_JOBS__WORKERS, or from cores and memory)"
    )
    p.add_argument("streamlit_args", nargs=argparse.REMAINDER, help="more options for `streamlit run`")
    p = add("jobs", cmd_jobs, "the upload queue: list, cancel ID, retry ID")
    p.add_argument("action", nargs="?", choices=["list", "cancel", "retry"], default="list")
    p.add_argument("id", nargs="?", help="job id (or a unique prefix)")
    p.add_argument("--json", action="store_true")
