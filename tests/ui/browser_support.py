"""Helpers shared by the browser test and benchmarks/citation_click.py: the app server and Chromium."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
# Never `playwright install`: Debian's chromium, headless, nothing reaching out.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWER_IFRAME = 'iframe[title*="pdf_viewer"]'
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'  # the app shows no run in progress


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(
    data_dir: Path,
    log_path: Path,
    timeout_s: float = 90,
    env: dict[str, str] | None = None,
    args: list[str] | None = None,
    api: bool = False,
    workers: bool = False,
) -> tuple[subprocess.Popen, str]:
    """The app and a worker, started as `make run` starts them (`python -m rag_core serve`), on a
    free port with their own data dir; returns once /_stcore/health answers. `stop_app` stops both.

    `env` adds variables (e.g. RAG_AUTH__MODE), `args` adds `streamlit run` options (e.g. --secrets.files).
    The API server that `serve` also starts is left out (`--no-api`) unless `api`: no page uses it, and
    its start cost each app about 5 s of CPU (the API has its own tests; test_serve checks that serve
    starts it). So are the workers (`--workers 0`) unless `workers`: only a test that imports through the
    page needs them, and their two starts cost each app about 6.5 s of CPU."""
    port = free_port()
    env = {
        **os.environ,
        "RAG_DATA_DIR": str(data_dir),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        **(env or {}),
    }
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = log_path.open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rag_core",
            "serve",
            "--address",
            "127.0.0.1",
            "--port",
            str(port),
            *(["--api-port", str(free_port())] if api else ["--no-api"]),  # a fixed port would collide
            *([] if workers else ["--workers", "0"]),
            "--",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
            *(args or []),
        ],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    wait_until_up(proc, f"{url}/_stcore/health", log_path, timeout_s)
    return proc, url


@contextmanager
def app_with_document(pdf: Path, data_dir: Path, log_path: Path) -> Iterator[str]:
    """The app on `data_dir` once the real pipeline has ingested `pdf` there (as the local operator)."""
    from rag_core import pipeline
    from rag_core.access import Principal
    from rag_core.config import Settings

    (result,) = pipeline.ingest([pdf], Settings(data_dir=data_dir), principal=Principal.local_operator())
    assert result.status == "ingested", result.message
    proc, url = start_app(data_dir, log_path)
    try:
        yield url
    finally:
        stop_app(proc)


def answers(probe_url: str) -> bool:
    """`probe_url` (a server's health route) answers 200 now."""
    try:
        with urllib.request.urlopen(probe_url, timeout=2) as resp:
            return resp.status == 200
    except OSError:
        return False


def wait_until_up(proc: subprocess.Popen, probe_url: str, log_path: Path, timeout_s: float) -> None:
    """Until `probe_url` answers 200; stops the process and raises if it exits or never answers."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited with {proc.returncode}: see {log_path}")
        if answers(probe_url):
            return
        time.sleep(0.3)
    stop_app(proc)
    raise RuntimeError(f"{probe_url} did not answer in {timeout_s} s: see {log_path}")


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            after_name = stat.read_text().rsplit(")", 1)[1].split()  # the state, then the parent's pid
        except (OSError, IndexError):
            continue
        if after_name[1:2] == [str(pid)]:
            found.append(int(stat.parent.name))
    return found


def stop_app(proc: subprocess.Popen) -> None:
    """SIGTERM to the supervisor, which stops the app and the workers (their process groups).

    The supervisor stops its children one after the other, each taking seconds to exit (a worker
    several on a loaded machine): the same SIGTERM is sent to their groups here at once, so a
    test's teardown waits for the slowest of them rather than for their sum."""
    children = child_pids(proc.pid)
    proc.terminate()
    for child in children:  # each started in its own session: its group's id is its pid
        try:
            os.killpg(child, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):  # gone already, or not a group of its own
            pass
    try:
        proc.wait(timeout=40)
    except subprocess.TimeoutExpired:
        proc.kill()


def launch(pw):
    return pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


class _Runs:
    """Counts the script runs that the Streamlit server reports finished to one page (its
    `script_finished` messages on the websocket), so a test waits for the run an action started
    rather than for a fixed time."""

    def __init__(self, page) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self._done = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
        self._parse = ForwardMsg.FromString
        self.finished = 0  # on any websocket of the page
        self.sockets = 0  # websockets the page has opened (one per page load)
        self.finished_on_latest = 0  # on the websocket opened last
        self.file_requests = 0  # deferred-file requests the page has sent (a download button's click)
        self.files_refused = 0  # answers to them without a file (the server made nothing)
        self.files_served = 0  # answers to them with a file's URL
        self._back = BackMsg.FromString
        page.on("websocket", self._opened)

    def _opened(self, ws) -> None:
        self.sockets += 1
        self.finished_on_latest = 0
        number = self.sockets
        ws.on("framereceived", lambda payload: self._frame(payload, number))
        ws.on("framesent", self._sent)

    def _sent(self, payload: str | bytes) -> None:
        if isinstance(payload, str):
            return
        try:
            msg = self._back(payload)
        except Exception:  # not a BackMsg
            return
        if msg.WhichOneof("type") == "backend_operation_request":
            self.file_requests += 1

    def _frame(self, payload: str | bytes, socket_number: int) -> None:
        if isinstance(payload, str):
            return
        try:
            msg = self._parse(payload)
        except Exception:  # not a ForwardMsg: not a run
            return
        kind = msg.WhichOneof("type")
        if kind == "backend_operation_response":
            if msg.backend_operation_response.deferred_file.url:
                self.files_served += 1
            else:
                self.files_refused += 1
        if kind == "script_finished" and msg.script_finished in self._done:
            self.finished += 1
            if socket_number == self.sockets:
                self.finished_on_latest += 1


def _runs(page) -> _Runs:
    runs = getattr(page, "_streamlit_runs", None)
    if runs is None:
        runs = _Runs(page)
        page._streamlit_runs = runs
    return runs


@contextmanager
def rerun(page, timeout_ms: int = 120_000) -> Iterator[None]:
    """Around an action that makes Streamlit run the script (a page load, a click, a chat
    message): on leaving, a run that finished after the action has been reported by the server
    and the app shows no run in progress. A run stopped early for a rerun does not count."""
    runs = _runs(page)
    before = runs.finished
    yield
    deadline = time.monotonic() + timeout_ms / 1000
    while runs.finished <= before:
        if time.monotonic() > deadline:
            raise TimeoutError(f"no Streamlit run finished within {timeout_ms} ms of the action")
        page.wait_for_timeout(50)  # lets Playwright deliver the websocket frames
    page.wait_for_selector(IDLE, timeout=timeout_ms)


def wait_for_runs(page, count: int, timeout_ms: int = 60_000) -> None:  # type: ignore[no-untyped-def]
    """Wait until `count` more script runs (the page's own, its fragments' included) have finished."""
    runs = _runs(page)
    until = runs.finished + count
    deadline = time.monotonic() + timeout_ms / 1000
    while runs.finished < until:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{count} script runs did not finish within {timeout_ms} ms")
        page.wait_for_timeout(100)  # lets Playwright deliver the websocket frames


def click_download(page, button, timeout_ms: int = 90_000, asked_within_ms: int = 15_000):  # type: ignore[no-untyped-def]
    """The `Download` that one click on the download button `button` (a locator) gives.

    The click is made once the app shows no run in progress and the button is enabled. Streamlit
    redraws the page on every run (a fragment on a timer runs every few seconds): a click that lands
    on a button being redrawn is lost, and the browser never asks for the file; or the file asked for
    belongs to a drawing that a run has just replaced, and the server answers without one. Either
    click is made again: in neither case did the server make the file. A click whose file is on its
    way is never repeated, so the export is made once (a test can count its records). Call after
    the page's first `goto`."""
    from playwright.sync_api import expect

    runs = _runs(page)
    deadline = time.monotonic() + timeout_ms / 1000
    downloads: list = []

    def started(download) -> None:  # type: ignore[no-untyped-def]
        downloads.append(download)

    page.on("download", started)
    try:
        while True:
            left_ms = max(1_000, int((deadline - time.monotonic()) * 1000))
            page.wait_for_selector(IDLE, timeout=left_ms)
            expect(button).to_be_enabled(timeout=left_ms)
            asked, refused, served_before = runs.file_requests, runs.files_refused, runs.files_served
            button.click(timeout=left_ms)
            asked_by = time.monotonic() + asked_within_ms / 1000
            while runs.file_requests == asked and not downloads and time.monotonic() < asked_by:
                page.wait_for_timeout(50)  # lets Playwright deliver the websocket frames
            if runs.file_requests > asked:  # the file was asked for: a download, or an answer without a file
                while not downloads and runs.files_refused == refused:
                    if time.monotonic() > deadline:
                        served = "its URL came" if runs.files_served > served_before else "no answer came"
                        raise TimeoutError(f"the download asked for was not received within {timeout_ms} ms ({served})")
                    page.wait_for_timeout(100)
            if downloads:
                return downloads[0]
            if time.monotonic() > deadline:
                raise TimeoutError(f"no click on the download button gave its file within {timeout_ms} ms")
    finally:
        page.remove_listener("download", started)


def goto(page, url: str, timeout_ms: int = 120_000) -> None:
    """Load `url` and wait for the script run of that page load: a run reported on the websocket
    the load opened. The page being left may still report runs (its fragments on a timer) while
    the new one loads; counting those returned before the new page had run."""
    runs = _runs(page)
    sockets = runs.sockets
    page.goto(url)
    deadline = time.monotonic() + timeout_ms / 1000
    while runs.sockets <= sockets or runs.finished_on_latest == 0:
        if time.monotonic() > deadline:
            raise TimeoutError(f"no Streamlit run of {url} finished within {timeout_ms} ms")
        page.wait_for_timeout(50)  # lets Playwright deliver the websocket frames
    page.wait_for_selector(IDLE, timeout=timeout_ms)


def open_home(page, url: str, heading: str = "Questions-réponses sur vos documents") -> None:
    """Home first: app.py's first run registers the navigation and pays the imports."""
    goto(page, url)
    page.get_by_role("heading", name=heading).wait_for(timeout=10_000)


def upload_in_library(page, url: str, pdf: Path, result_text: str, timeout_ms: int):
    """Upload `pdf` on the Library page and wait for its per-file result (an alert holding
    `result_text`, shown by the queue panel once the worker has ingested it); returns its locator."""
    goto(page, f"{url}/library")
    page.get_by_role("heading", name="Bibliothèque").wait_for(timeout=10_000)
    with rerun(page):
        page.locator('input[type="file"]').set_input_files(str(pdf))
    page.locator('[data-testid="stFileChip"]').first.wait_for(timeout=10_000)
    with rerun(page):
        page.get_by_role("button", name="Importer").click()
    # The worker ingests the file; the queue panel shows its result when the job ends.
    result = page.locator('[data-testid="stAlert"]').filter(has_text=result_text)
    result.first.wait_for(timeout=timeout_ms)
    return result


# Placed when the page canvas has a size and the annotations selected by `selector` exist and
# stay where they are between two polls (the viewer draws the page, then positions them).
_SETTLED = """selector => {
  const canvas = document.querySelector("canvas");
  const marks = [...document.querySelectorAll(selector)];
  if (!canvas || !(parseFloat(canvas.style.width) > 0) || !marks.length) return false;
  const layout = JSON.stringify([canvas.style.width,
    marks.map(e => [e.style.left, e.style.top, e.style.width, e.style.height])]);
  const settled = window.__lastLayout === layout;
  window.__lastLayout = layout;
  return settled;
}"""


def viewer_settled(page, selector: str, timeout_ms: int = 30_000):
    """The PDF viewer's frame, once its page is drawn and the `selector` highlights are placed."""
    frame = page.locator(VIEWER_IFRAME).first.element_handle(timeout=timeout_ms).content_frame()
    frame.wait_for_function(_SETTLED, arg=selector, polling=100, timeout=timeout_ms)
    return frame


def ask(page, question: str):  # type: ignore[no-untyped-def]
    """`question` sent through the Ask page's chat input; the last chat message once its run ended."""
    chat = page.locator('[data-testid="stChatInputTextArea"]')
    chat.wait_for(timeout=10_000)
    chat.fill(question)
    with rerun(page, 180_000):
        chat.press("Enter")
    return page.locator('[data-testid="stChatMessage"]').last


def open_expander(summary, inside, attempts: int = 3) -> None:  # type: ignore[no-untyped-def]
    """Click an expander's `summary` until `inside` (what it holds) is visible: a rerun that ends just after the
    click may draw the expander closed again (seen once in a full run, the report form left folded)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    for attempt in range(attempts):
        if not inside.is_visible():
            summary.click(timeout=10_000)
        try:
            inside.wait_for(state="visible", timeout=5_000)
            return
        except PlaywrightTimeoutError:
            if attempt == attempts - 1:
                raise


def report_first_citation(page, comment: str) -> None:  # type: ignore[no-untyped-def]
    """The last answer's report form opened, `comment` written, the report saved (its first citation)."""
    open_expander(page.get_by_text("Signaler une citation erronée").last, page.get_by_label("Commentaire").last)
    page.get_by_label("Commentaire").last.fill(comment)
    with rerun(page):
        page.get_by_role("button", name="Enregistrer le signalement").last.click()
    # drawn inside the report's expander, which the rerun may draw closed
    page.get_by_text("Signalement enregistré.").wait_for(state="attached", timeout=30_000)
