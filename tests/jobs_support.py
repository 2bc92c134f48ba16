"""Helpers of the queue tests: real worker processes (`python -m rag_core worker` on a temp library),
real uploads queued through the façade, a job made `running` through the store API the worker uses."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


class WorkerProcess:
    """One worker in its own process group (so a kill takes its parse helpers too); its stdout
    lines (`EVENT job stage done/total`, with `--verbose`) are collected by a thread."""

    def __init__(
        self, data_dir: Path, env: dict[str, str] | None = None, verbose: bool = True, args: list[str] | None = None
    ) -> None:
        full_env = {
            **os.environ,
            "RAG_DATA_DIR": str(data_dir),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            **(env or {}),
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rag_core", "worker", *(["--verbose"] if verbose else []), *(args or [])],
            cwd=REPO,
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def events(self, job_id: str | None = None) -> list[str]:
        return [ln for ln in list(self.lines) if ln.startswith("EVENT ") and (job_id is None or f" {job_id} " in ln)]

    def wait_for_line(self, predicate: Callable[[str], bool], timeout_s: float = 300) -> str:
        deadline = time.monotonic() + timeout_s
        seen = 0
        while time.monotonic() < deadline:
            lines = list(self.lines)
            for line in lines[seen:]:
                if predicate(line):
                    return line
            seen = len(lines)
            if self.proc.poll() is not None and seen == len(self.lines):
                raise AssertionError(f"worker exited ({self.proc.returncode}): {self.lines[-20:]}")
            time.sleep(0.02)
        raise AssertionError(f"no such line within {timeout_s} s: {self.lines[-20:]}")

    def kill(self) -> None:
        """SIGKILL the worker and its helpers at once: no clean-up code runs."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)

    def stop(self) -> int:
        """SIGTERM, as `serve` does on Ctrl-C; SIGKILL if it does not end."""
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            return self.proc.wait(timeout=60)
        except ProcessLookupError:
            return self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            return -9


def wait_until(predicate: Callable[[], object], timeout_s: float = 300, every_s: float = 0.2) -> object:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every_s)
    raise AssertionError(f"condition not met within {timeout_s} s")


def queue_pdf(settings: Any, folder: Path, name: str, principal: Any, collection: str | None = None) -> Any:
    """A one-page PDF (its topic is its name, so each has its own bytes) queued through
    `pipeline.submit_upload`, as the Library page does: checked, stored, then a `queued` row."""
    from rag_core import pipeline
    from tests.bad_files import make_pdf

    pdf = make_pdf(folder / name, Path(name).stem, pages=1)
    return pipeline.submit_upload(pdf.read_bytes(), name, settings, collection, principal=principal)


def claim_as_worker(settings: Any, values: dict[str, Any] | None = None, worker_id: str = "test-worker") -> Any:
    """Take the oldest queued job as a worker does (`JobTable.claim`) and write `values` (stage,
    done, total...) as its progress writes do (`JobTable.held`); no stage runs. The job as stored."""
    from rag_core.services.connection import open_store

    table = open_store(settings).job_table()
    job = table.claim(worker_id, lease_s=600)
    assert job is not None, "nothing queued"
    if values:
        assert table.held(job, values)
    return table.get(job.id)
