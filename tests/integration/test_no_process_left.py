"""A long command stopped by SIGTERM or SIGINT leaves no process of its own behind: `ingest` in the
middle of a parse (its page-parse helper and multiprocessing's resource tracker running; even a
SIGKILL, which no handler sees: the helper notices its parent is gone and ends), `worker`
in the middle of a job, `serve` (the app, the worker, the API and their helpers) and `api`.

Each command runs in a session of its own; its processes are those of that session plus every
descendant seen while it ran (serve starts its children in sessions of their own). A process is
named by its pid and start time, so a reused pid is not mistaken for a survivor. Real processes
on a real 111-page corpus PDF, /proc read directly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from tests.jobs_support import REPO
from tests.ui.browser_support import free_port

LONG_PDF = "en_CAS_tail_factor_working_party_2013.pdf"  # 111 pages: the parse runs for minutes here
Proc = tuple[int, str]  # (pid, start time in clock ticks): one process, even if its pid is reused later


def _table() -> dict[Proc, tuple[int, int]]:
    """Every live (not zombie) process: (pid, start) -> (parent pid, session id)."""
    table = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if fields[0] not in ("Z", "X"):
            table[(int(stat.parent.name), fields[19])] = (int(fields[1]), int(fields[3]))
    return table


def _own(root: int, known: set[Proc]) -> set[Proc]:
    """The command's processes now: its session's, its descendants', and those seen before that still live."""
    table = _table()
    mine = {proc for proc, (_, session) in table.items() if session == root} | (known & table.keys())
    grew = True
    while grew:
        pids = {pid for pid, _ in mine}
        more = {proc for proc, (parent, _) in table.items() if parent in pids} - mine
        mine |= more
        grew = bool(more)
    return mine


def _until(check: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.3)
    raise AssertionError(f"not reached in {timeout_s} s: {what}")


def _start(args: list[str], data: Path, log: Path) -> subprocess.Popen:
    env = {**os.environ, "RAG_DATA_DIR": str(data), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "rag_core", *args],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _stop_and_count(proc: subprocess.Popen, signum: int, log: Path) -> list[Proc]:
    """Send `signum` to the command alone (not its group), wait for it to end; its processes still alive."""
    known = _own(proc.pid, set())
    proc.send_signal(signum)
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the command did not stop on {signum}: {log.read_text()[-2000:]}")
    deadline = time.monotonic() + 30  # helpers of a stopped command may take a moment to see it gone
    left = _own(proc.pid, known)
    while left and time.monotonic() < deadline:
        time.sleep(0.5)
        left = _own(proc.pid, known)
    for pid, _ in left:  # the test cleans up after a failure; the assertion below reports it
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return sorted(left)


def _helpers_running(proc: subprocess.Popen, log: Path) -> Callable[[], bool]:
    """The parse has started its helper: the command, a helper and the resource tracker at least."""

    def check() -> bool:
        assert proc.poll() is None, log.read_text()[-2000:]
        return len(_own(proc.pid, set())) >= 3

    return check


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_ingest_stopped_during_a_parse_leaves_nothing(signum: int, corpus_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "ingest.log"
    proc = _start(["ingest", str(corpus_dir / LONG_PDF)], tmp_path / "data", log)
    _until(_helpers_running(proc, log), 180, "the page-parse helper started")
    assert _stop_and_count(proc, signum, log) == []


def test_worker_stopped_during_a_job_leaves_nothing(corpus_dir: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    settings = Settings(data_dir=data)
    pdf = corpus_dir / LONG_PDF
    pipeline.submit_upload(pdf.read_bytes(), pdf.name, settings, None, principal=Principal.local_operator())
    log = tmp_path / "worker.log"
    proc = _start(["worker"], data, log)
    _until(_helpers_running(proc, log), 180, "the worker's page-parse helper started")
    assert _stop_and_count(proc, signal.SIGTERM, log) == []


def _answers(url: str) -> Callable[[], bool]:
    def check() -> bool:
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                return resp.status == 200
        except OSError:
            return False

    return check


def test_serve_stopped_leaves_nothing(tmp_path: Path) -> None:
    port, api_port = free_port(), free_port()
    log = tmp_path / "serve.log"
    proc = _start(
        ["serve", "--port", str(port), "--api-port", str(api_port), "--workers", "1"]
        + ["--", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        tmp_path / "data",
        log,
    )
    _until(_answers(f"http://127.0.0.1:{port}/_stcore/health"), 120, "the app answers")
    _until(_answers(f"http://127.0.0.1:{api_port}/docs"), 120, "the API answers")
    assert len(_own(proc.pid, set())) >= 4  # serve, the app, a worker, the API
    assert _stop_and_count(proc, signal.SIGTERM, log) == []


def test_api_stopped_leaves_nothing(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "api.log"
    proc = _start(["api", "--port", str(port)], tmp_path / "data", log)
    _until(_answers(f"http://127.0.0.1:{port}/docs"), 120, "the API answers")
    assert _stop_and_count(proc, signal.SIGTERM, log) == []
