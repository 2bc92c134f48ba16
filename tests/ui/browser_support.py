"""Helpers shared by the browser test and benchmarks/citation_click.py: the app server and Chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
# Never `playwright install`: Debian's chromium, headless, nothing reaching out.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWER_IFRAME = 'iframe[title*="pdf_viewer"]'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(data_dir: Path, log_path: Path, timeout_s: float = 90, env: dict[str, str] | None = None,
              args: list[str] | None = None) -> tuple[subprocess.Popen, str]:
    """`streamlit run app.py` on a free port with its own data dir; returns once /_stcore/health answers.

    `env` adds variables (e.g. RAG_AUTH__MODE), `args` adds command-line options (e.g. --secrets.files)."""
    port = free_port()
    env = {**os.environ, "RAG_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           **(env or {})}
    streamlit = Path(sys.executable).with_name("streamlit")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = log_path.open("w")
    proc = subprocess.Popen(
        [str(streamlit), "run", "app.py", "--server.address", "127.0.0.1", "--server.port", str(port),
         "--server.headless", "true", "--browser.gatherUsageStats", "false", *(args or [])],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    wait_until_up(proc, f"{url}/_stcore/health", log_path, timeout_s)
    return proc, url


def wait_until_up(proc: subprocess.Popen, probe_url: str, log_path: Path, timeout_s: float) -> None:
    """Until `probe_url` answers 200; stops the process and raises if it exits or never answers."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited with {proc.returncode}: see {log_path}")
        try:
            with urllib.request.urlopen(probe_url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    stop_app(proc)
    raise RuntimeError(f"{probe_url} did not answer in {timeout_s} s: see {log_path}")


def stop_app(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def launch(pw):
    return pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


def wait_idle(page, timeout_ms: int = 120_000) -> None:
    """Until Streamlit's script run has finished (its status widget is shown meanwhile)."""
    page.wait_for_timeout(300)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout_ms)


def open_home(page, url: str, heading: str = "Questions-réponses sur vos documents") -> None:
    """Home first: app.py's first run registers the navigation and pays the imports."""
    page.goto(url)
    page.get_by_role("heading", name=heading).wait_for(timeout=120_000)
    wait_idle(page)


def upload_in_library(page, url: str, pdf: Path, result_text: str, timeout_ms: int):  # type: ignore[no-untyped-def]
    """Upload `pdf` on the Library page and wait for its per-file result (an alert holding
    `result_text`); returns that alert's locator."""
    page.goto(f"{url}/library")
    page.get_by_role("heading", name="Bibliothèque").wait_for(timeout=60_000)
    page.locator('input[type="file"]').set_input_files(str(pdf))
    page.locator('[data-testid="stFileChip"]').first.wait_for(timeout=30_000)
    wait_idle(page)
    page.get_by_role("button", name="Importer").click()
    result = page.locator('[data-testid="stAlert"]').filter(has_text=result_text)
    result.first.wait_for(timeout=timeout_ms)
    wait_idle(page)
    return result
