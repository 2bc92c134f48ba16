"""`python -m rag_core serve` (what `make run` starts): the app and a worker together, one Ctrl-C
stops both, no orphan. Real processes, a free port on 127.0.0.1, a temp library."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from rag_core import pipeline
from rag_core.config import Settings
from tests.jobs_support import REPO, wait_until
from tests.ui.browser_support import free_port


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"  # a zombie has ended; only its exit status is left


def _group_members(pgid: int) -> list[int]:
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def _serve(tmp_path: Path) -> tuple[subprocess.Popen, int, int, str]:
    port = free_port()
    env = {**os.environ, "RAG_DATA_DIR": str(tmp_path / "lib"), "HF_HUB_OFFLINE": "1", "RAG_JOBS__HEARTBEAT_S": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rag_core",
            "serve",
            "--port",
            str(port),
            "--api-port",
            str(free_port()),
            "--",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"worker pid (\d+), app pid (\d+)", line)
    assert found, line
    api = re.search(r"api pid (\d+)", proc.stdout.readline())
    assert api
    proc.api_pid = int(api.group(1))  # type: ignore[attr-defined]  (the API server, a third child)
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                return resp.status == 200
        except OSError:
            return False

    wait_until(up, 120)
    settings = Settings(data_dir=tmp_path / "lib")
    wait_until(lambda: pipeline.live_workers(settings), 120)
    return proc, int(found.group(1)), int(found.group(2)), url


def test_ctrl_c_stops_the_app_and_the_worker(tmp_path: Path) -> None:
    proc, worker, app, _ = _serve(tmp_path)
    assert _alive(worker) and _alive(app)
    api = proc.api_pid  # type: ignore[attr-defined]
    assert _alive(api)
    os.killpg(proc.pid, signal.SIGINT)  # what the terminal sends to the foreground group on Ctrl-C
    assert proc.wait(timeout=60) == 0
    wait_until(lambda: not _alive(worker) and not _alive(app) and not _alive(api), 30)
    assert _group_members(worker) == [] and _group_members(app) == []  # their helpers too
    assert not pipeline.live_workers(Settings(data_dir=tmp_path / "lib"))  # the worker said goodbye


def test_a_dead_worker_stops_the_app_too(tmp_path: Path) -> None:
    proc, worker, app, _ = _serve(tmp_path)
    os.killpg(worker, signal.SIGKILL)
    assert proc.wait(timeout=60) != 0
    wait_until(lambda: not _alive(app), 30)
    assert _group_members(app) == []
