"""The product as `pip install` ships it: built from a copy of the sources into a folder outside the
checkout, then `python -m rag_core serve` started from yet another working directory, with nothing of
the checkout on the import path. The app must answer on `/_stcore/health`: `serve` finds the entry page
through the installed `rag_app` package, and the page reads its assets beside itself."""

from __future__ import annotations

import ast
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from tests.jobs_support import REPO
from tests.ui.browser_support import free_port, wait_until_up

SHIPPED = ["pyproject.toml", "requirements.txt", "README.md", "LICENSE", "rag_core", "rag_app"]


def _install(tmp_path: Path) -> Path:
    """The product installed with pip (no dependencies: the running venv has them) into `tmp_path/site`."""
    source = tmp_path / "source"
    source.mkdir()
    for name in SHIPPED:  # a copy, so that the build leaves nothing (build/, *.egg-info) in the checkout
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, source / name)
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
        + ["--target", str(site), str(source)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return site


def _env(site: Path, data: Path) -> dict[str, str]:
    """Only the installed copy on the path: PYTHONPATH is the install folder, nothing of the checkout."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return env | {"PYTHONPATH": str(site), "RAG_DATA_DIR": str(data), "HF_HUB_OFFLINE": "1"}


def test_an_installed_copy_serves_the_app_from_another_directory(tmp_path: Path) -> None:
    site = _install(tmp_path)
    assert (site / "rag_app" / "app.py").is_file() and (site / "rag_app" / "assets" / "logo.svg").is_file()
    assert (site / "rag_app" / "ui" / "strings" / "errors.py").is_file() and (site / "rag_app" / "views").is_dir()
    assert (site / "rag_app" / ".streamlit" / "config.toml").is_file()  # the app's settings, read beside app.py
    assert not (site / "ui").exists() and not (site / "views").exists()  # no generic top-level names
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = _env(site, tmp_path / "data")
    where = subprocess.run(
        [sys.executable, "-c", "import rag_core, rag_app, sys; print(rag_core.__file__, rag_app.__file__, sys.path)"],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        env=env,
    )
    assert where.returncode == 0, where.stderr
    core, app, path = where.stdout.split(" ", 2)
    assert core.startswith(str(site)) and app.startswith(str(site)), where.stdout
    # nothing of the checkout on the path but the environment that holds the dependencies (a clean clone
    # keeps its .venv inside the checkout): no entry is the checkout or one of its folders outside it
    environment = Path(sys.prefix).resolve()
    entries = [Path(p).resolve() for p in ast.literal_eval(path.strip()) if p and not p.startswith("__")]
    assert [p for p in entries if p.is_relative_to(REPO) and not p.is_relative_to(environment)] == [], path

    port = free_port()
    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rag_core", "serve", "--port", str(port), "--no-api", "--workers", "1"]
            + ["--", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=elsewhere,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            wait_until_up(proc, f"http://127.0.0.1:{port}/_stcore/health", log_path, 120)
            app_pid = re.search(r"app pid (\d+)", log_path.read_text())
            assert app_pid, log_path.read_text()
            command = Path(f"/proc/{app_pid.group(1)}/cmdline").read_bytes().split(b"\0")
            assert str(site / "rag_app" / "app.py").encode() in command, command  # the installed entry page
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, log_path.read_text()
