"""`python -m rag_core serve` (what `make run` starts): the app and a worker together, one Ctrl-C
stops both, no orphan. Real processes, a free port on 127.0.0.1, a temp library."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from rag_core import pipeline
from rag_core.config import Settings
from tests.jobs_support import REPO, wait_until
from tests.ui.browser_support import answers, child_pids, free_port


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


def _serve(tmp_path: Path, extra_env: dict[str, str] | None = None) -> tuple[subprocess.Popen, int, int, str]:
    """`serve` on a temp library; (process, first worker's pid, app's pid, url). The other
    workers' pids are in `proc.worker_pids`."""
    port = free_port()
    env = {
        **os.environ,
        "RAG_DATA_DIR": str(tmp_path / "lib"),
        "HF_HUB_OFFLINE": "1",
        "RAG_JOBS__HEARTBEAT_S": "1",
        **(extra_env or {}),
    }
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
    found = re.search(r"worker pids ([\d, ]+), app pid (\d+)", line)
    assert found, line
    proc.worker_pids = [int(p) for p in found.group(1).split(", ")]  # type: ignore[attr-defined]
    api = re.search(r"api pid (\d+)", proc.stdout.readline())
    assert api
    proc.api_pid = int(api.group(1))  # type: ignore[attr-defined]  (the API server, a third child)
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: answers(f"{url}/_stcore/health"), 120)
    settings = Settings(data_dir=tmp_path / "lib")
    wait_until(lambda: pipeline.live_workers(settings), 120)
    return proc, proc.worker_pids[0], int(found.group(2)), url  # type: ignore[attr-defined]


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


def test_two_workers_from_serve_share_the_queue_and_run_each_job_once(tmp_path: Path) -> None:
    from rag_core.access import Principal
    from tests.bad_files import make_pdf

    settings = Settings(data_dir=tmp_path / "lib")
    local = Principal.local_operator()
    topics = ["Mack", "Bornhuetter", "bootstrap", "Cape Cod", "Clark", "Benktander"]
    ids = [
        pipeline.submit_upload(
            (pdf := make_pdf(tmp_path / f"r{n}.pdf", topic, pages=1)).read_bytes(), pdf.name, settings, principal=local
        ).id
        for n, topic in enumerate(topics)
    ]  # queued before serve starts: both workers find them at once
    proc, _, _, _ = _serve(tmp_path, {"RAG_JOBS__WORKERS": "2", "RAG_JOBS__SMALL_LANE": "false"})
    try:
        assert len(proc.worker_pids) == 2  # type: ignore[attr-defined]
        wait_until(lambda: len(pipeline.live_workers(settings)) == 2, 120)
        wait_until(lambda: all(pipeline.get_job(i, settings, principal=local).state == "done" for i in ids), 600)
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=60)
    jobs = [pipeline.get_job(i, settings, principal=local) for i in ids]
    assert [j.attempts for j in jobs] == [1] * len(ids)  # none claimed twice
    owners = {j.owner for j in jobs}
    assert owners == {""}  # released by the worker that ran it
    done = [e for e in pipeline.audit_events(settings, principal=local) if e["event"] == "job_done"]
    assert sorted(e["job_id"] for e in done) == sorted(ids)  # each finished once
    assert len(pipeline.list_documents(settings, principal=local)) == len(ids)


def test_serve_starts_the_workers_the_settings_say() -> None:
    from rag_core.cli.serve import default_workers, worker_commands

    assert default_workers(cores=2, memory_gb=24) == 1
    assert default_workers(cores=16, memory_gb=64) == 8
    assert default_workers(cores=16, memory_gb=4) == 2  # memory bounds it
    assert default_workers(cores=1, memory_gb=1) == 1
    lane = ["worker", "--max-pages", "20"]
    assert worker_commands(Settings(jobs={"workers": 3})) == [["worker"]] * 3 + [lane]
    assert worker_commands(Settings(jobs={"workers": 2, "small_lane": False})) == [["worker"]] * 2
    assert worker_commands(Settings(jobs={"workers": 2}), workers=1) == [["worker"], lane]  # --workers N wins
    assert worker_commands(Settings(jobs={"workers": 2}), workers=0) == []  # --workers 0: none here, no lane


def test_serve_with_no_workers_starts_the_app_alone(tmp_path: Path) -> None:
    """`--workers 0`: the queue is served elsewhere; the app runs, no worker process starts here."""
    port = free_port()
    env = {**os.environ, "RAG_DATA_DIR": str(tmp_path / "lib"), "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "rag_core", "serve", "--port", str(port), "--no-api", "--workers", "0"]
    command += ["--", "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    proc = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert re.search(r"worker pids none \(--workers 0", line), line
        app = int(re.search(r"app pid (\d+)", line).group(1))  # type: ignore[union-attr]

        wait_until(lambda: answers(f"http://127.0.0.1:{port}/_stcore/health"), 120)
        assert [pid for pid in child_pids(proc.pid) if _alive(pid)] == [app]
        assert not pipeline.live_workers(Settings(data_dir=tmp_path / "lib"))
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=60) == 0
