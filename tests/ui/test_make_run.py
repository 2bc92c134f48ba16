"""`make run PORT=… ADDRESS=…` serves the app on the port asked for (real make, real app process).

The install step is taken as done (`make -o .venv/.installed`): the test must not reinstall the venv
it runs in."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from tests.ui.browser_support import REPO, free_port, wait_until_up


def test_make_run_serves_on_the_port_and_address_given(tmp_path: Path) -> None:
    port = free_port()
    log_path = tmp_path / "make_run.log"
    env = {**os.environ, "RAG_DATA_DIR": str(tmp_path / "data")}
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            ["make", "-o", ".venv/.installed", "run", f"PORT={port}", "ADDRESS=127.0.0.1"],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # make, the supervisor, the app and the worker: one group to stop
        )
        try:
            wait_until_up(proc, f"http://127.0.0.1:{port}/_stcore/health", log_path, 120)
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    assert f"--port {port}" in log_path.read_text()
