"""`serve`, what `make run` starts: the workers (`worker_commands`), the Streamlit app (the installed
`rag_app` package's `app.py`) and the API server as child processes, each in its own process group,
supervised: Ctrl-C (SIGINT) or SIGTERM stops all, and when one exits the others are stopped too, so no
process outlives the command. The children run in the caller's working directory, so a relative
`--data-dir` or RAG_DATA_DIR means the same library to all of them.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rag_core.cli.common import settings_of

_EXIT_GRACE_S = 15.0
WORKER_MEMORY_GB = 1.5  # peak resident memory of one worker ingesting (benchmarks/ingest.py)


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
    the default from cores and memory), plus the small-files lane when `jobs.small_lane`. `workers=0`
    starts none, the lane included: the queue is served by workers on other machines sharing the library
    (`python -m rag_core worker` there)."""
    if workers == 0:
        return []
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

    settings = settings_of(args)
    storage.require_available(settings)  # before any child starts
    commands = worker_commands(settings, args.workers)
    app_command = ["streamlit", "run", str(app_script()), "--server.address", args.address]
    app_command += ["--server.port", str(args.port), *extra]
    stopping: list[int] = []

    def on_signal(signum: int, frame: object) -> None:
        stopping.append(signum)

    # Set before the first child starts: a signal while they start stops those already started.
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    children: dict[str, subprocess.Popen] = {}

    def start(name: str, command: list[str]) -> subprocess.Popen:
        children[name] = subprocess.Popen([sys.executable, "-m", *command], env=env, start_new_session=True)
        return children[name]

    code = 0
    try:
        workers = [start(f"worker {n + 1}", ["rag_core", *cmd]) for n, cmd in enumerate(commands)]
        app = start("app", app_command)
        pids = ", ".join(str(proc.pid) for proc in workers) or "none (--workers 0: uploads wait for a worker elsewhere)"
        print(f"serve: worker pids {pids}, app pid {app.pid} on http://{args.address}:{args.port}", flush=True)
        if not args.no_api:  # the REST, OpenAI-compatible and MCP server, on its own port (RAG_API__PORT)
            port = ["--port", str(args.api_port)] if args.api_port else []
            print(f"serve: api pid {start('api', ['rag_core', 'api', *port]).pid}", flush=True)
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


def add_serve_command(add: Any) -> None:
    """Register `serve` (`add` gives the common options, `rag_core.cli.common.add_command`)."""
    p = add("serve", cmd_serve, "run a worker and the app together (what `make run` does); Ctrl-C stops both")
    p.add_argument("--address", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8501)
    p.add_argument("--no-api", action="store_true", help="do not start the API server (`python -m rag_core api`)")
    p.add_argument("--api-port", type=int, help="port of the API server (default: RAG_API__PORT, 8502)")
    p.add_argument(
        "--workers",
        type=int,
        help="workers to start (default: RAG_JOBS__WORKERS, or from cores and memory); 0: none here, the queue is "
        "served by workers started elsewhere on the same library",
    )
    p.add_argument("streamlit_args", nargs=argparse.REMAINDER, help="more options for `streamlit run`")
