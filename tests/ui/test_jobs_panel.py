"""The upload queue as the app shows it, through `streamlit.testing.v1.AppTest` on app.py: the Library
page's queue panel (no worker warning, a running job's times, Retry) and the sidebar indicator of
every page, and a queue that outlives the app.

Real LanceDB job table in the autouse fixture's temp data dir; jobs are real uploads queued through
the façade (`tests.jobs_support.queue_pdf`). A job is made `running` with known progress through the
store API the worker uses (claim, then a progress write), and a live worker is its heartbeat row,
written by `rag_core.jobs.Worker.beat`; the last test runs a real worker process. The page is in French
(the default); the expected texts come from `ui.i18n.STRINGS`.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from rag_app.ui import auth
from rag_app.ui.i18n import STRINGS
from rag_app.ui.jobs import queue_line
from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.jobs import Worker
from rag_core.services.connection import open_store
from tests.access_support import ALICE
from tests.bad_files import make_pdf
from tests.jobs_support import WorkerProcess, claim_as_worker, queue_pdf, wait_until
from tests.ui.apptest_support import hover_texts

APP = str(Path(__file__).resolve().parents[2] / "rag_app" / "app.py")
LOCAL = Principal.local_operator()


def fr(key: str, **values: object) -> str:
    text = STRINGS[key]["fr"]
    return text.format(**values) if values else text


def fr_pattern(key: str, *names: str) -> str:
    """A regular expression matching the string `key` whatever its values (each a group)."""
    return re.escape(fr(key, **{n: "\0" for n in names})).replace("\0", "(.+?)")


def _unescape(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


def _texts(elements) -> list[str]:  # type: ignore[no-untyped-def]
    return [_unescape(str(e.value)) for e in elements]


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, at.exception
    return at


def _library() -> AppTest:
    at = _run(AppTest.from_file(APP, default_timeout=300))
    at.switch_page("views/library.py")
    return _run(at)


def _progress_texts(at: AppTest) -> list[str]:
    return [_unescape(bar.proto.text) for bar in at.get("progress")]


def _seconds(shown: str) -> int:
    """Back from `ui.jobs.duration`: "1 min 40 s" -> 100."""
    found = re.fullmatch(r"(?:(\d+) h )?(?:(\d+) min ?)?(?:(\d+) s)?", shown.strip())
    assert found and shown.strip(), shown
    hours, minutes, seconds = (int(g or 0) for g in found.groups())
    return hours * 3600 + minutes * 60 + seconds


# ----- 1. no worker ------------------------------------------------------------------------------
def test_the_library_says_no_worker_runs_while_jobs_wait_and_no_heartbeat_is_alive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings()
    at = _library()
    assert fr("jobs.no_worker") not in _texts(at.warning)  # an empty queue: nothing to warn about
    queue_pdf(settings, tmp_path, "waiting.pdf", LOCAL)
    _run(at)
    assert fr("jobs.no_worker") in _texts(at.warning)

    Worker(settings).beat(force=True)  # the heartbeat row a running worker writes
    _run(at)
    assert fr("jobs.no_worker") not in _texts(at.warning)
    assert any(t.startswith("waiting.pdf") for t in _progress_texts(at))  # still queued, still listed
    assert queue_line(1, True, 0, "fr") in _texts(at.caption)  # its place and why: a small file, next

    # Heartbeats of 0.1 s: the beat written above is now older than three of them, that worker is gone.
    monkeypatch.setenv("RAG_JOBS__HEARTBEAT_S", "0.1")
    time.sleep(0.5)
    _run(at)
    assert fr("jobs.no_worker") in _texts(at.warning)


# ----- 2. elapsed time and time left ---------------------------------------------------------------
def test_a_running_jobs_row_shows_its_stage_elapsed_time_and_time_left(tmp_path: Path) -> None:
    settings = Settings()
    queue_pdf(settings, tmp_path, "running.pdf", LOCAL)
    # embed 1/2 (parse 0.55 + chunk 0.05 + half of embed's 0.35 = 0.775 of the work), started 100 s ago
    job = claim_as_worker(settings, {"stage": "embed", "done": 1, "total": 2, "started_at": time.time() - 100})
    assert job.state == "running"
    at = _library()
    line = fr(
        "jobs.line_stage",
        file="running.pdf",
        collection=job.collection,
        stage=fr("library.stage.embed"),
        done=1,
        total=2,
    )
    assert _progress_texts(at) == [line]
    assert at.get("progress")[0].proto.value == 77  # 0.775, in percent
    times = [m for c in _texts(at.caption) if (m := re.fullmatch(fr_pattern("jobs.times_left", "elapsed", "left"), c))]
    assert len(times) == 1, _texts(at.caption)
    elapsed, left = (_seconds(g) for g in times[0].groups())
    assert 100 <= elapsed <= 200, elapsed  # the page ran within 100 s
    assert abs(left - (1 / 0.775 - 1) * elapsed) <= 1.5, (elapsed, left)  # elapsed / 0.775 - elapsed, rounded


# ----- 3. the sidebar indicator --------------------------------------------------------------------
def _indicators(at: AppTest) -> list[str]:
    return [c for c in _texts(at.sidebar.caption) if re.fullmatch(fr_pattern("jobs.indicator", "n"), c)]


def test_every_page_counts_the_users_own_imports_not_anothers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings()
    # Alice's import in her own new collection: the local operator (an administrator) sees it in the
    # Library, but it is not one of "his" imports.
    queue_pdf(settings, tmp_path, "alice.pdf", ALICE, collection="alice-notes")
    at = _run(AppTest.from_file(APP, default_timeout=300))  # the home page
    assert _indicators(at) == []
    mine = queue_pdf(settings, tmp_path, "mine.pdf", LOCAL)
    _run(at)
    assert _indicators(at) == [fr("jobs.indicator", n=1)]
    claim_as_worker(settings, {"stage": "parse", "done": 1, "total": 3})  # Alice's, the oldest
    claim_as_worker(settings, {"stage": "parse", "done": 1, "total": 3})  # then mine: both running
    at.switch_page("views/inspect.py")
    _run(at)
    assert _indicators(at) == [fr("jobs.indicator", n=1)]  # running counts too, on another page
    table = open_store(settings).job_table()
    assert table.release(table.get(mine.id), {"state": "done", "message_key": "ingested", "finished_at": time.time()})
    _run(at)
    assert _indicators(at) == []  # ended: no longer counted (Alice's still runs)

    # Alice signed in (AppTest cannot send a proxy's headers): her running import counts
    monkeypatch.setattr(auth, "resolve", lambda settings, **_: (ALICE, ""))
    alice = _run(AppTest.from_file(APP, default_timeout=300))
    assert _indicators(alice) == [fr("jobs.indicator", n=1)]


# ----- 4. Retry ----------------------------------------------------------------------------------
def test_retry_requeues_a_failed_and_a_cancelled_job(tmp_path: Path) -> None:
    settings = Settings()
    table = open_store(settings).job_table()
    failed = queue_pdf(settings, tmp_path, "failed.pdf", LOCAL)
    running = claim_as_worker(settings, {"stage": "parse", "done": 1, "total": 1})
    assert table.release(
        running, {"state": "failed", "message_key": "internal", "message": "Fake failure.", "finished_at": time.time()}
    )
    cancelled = queue_pdf(settings, tmp_path, "cancelled.pdf", LOCAL)
    assert pipeline.cancel_job(cancelled.id, settings, principal=LOCAL) == "queued"
    at = _library()
    for job in (failed, cancelled):
        assert table.get(job.id).state in ("failed", "cancelled")
        at.button(key=f"job_retry_{job.id}").click()
        _run(at)
        again = table.get(job.id)
        assert (again.state, again.attempts, again.message_key, again.cancel) == ("queued", 0, "", False)
        assert fr("jobs.retried_now", file=job.file_name) in _texts(at.success)
        keys = {b.key for b in at.button}
        assert f"job_retry_{job.id}" not in keys and f"job_cancel_{job.id}" in keys  # now a queued job's row
        assert any(t.startswith(job.file_name) for t in _progress_texts(at))


# ----- 6. a restarted app ------------------------------------------------------------------------
def test_a_queued_upload_outlives_the_app_and_a_later_worker_runs_it(tmp_path: Path) -> None:
    settings = Settings()
    pdf = make_pdf(tmp_path / "restart.pdf", "Bornhuetter restart", pages=1)
    first = _library()
    first.file_uploader[0].set_value([("restart.pdf", pdf.read_bytes(), "application/pdf")])
    _run(first)
    first.button(key="library_ingest").click()
    _run(first)
    assert fr("jobs.queued_many", n=1) in _texts(first.success)
    del first
    st.cache_resource.clear()  # the restarted app starts with nothing of the first one: no session, no cache
    st.cache_data.clear()

    again = _library()
    assert [t for t in _progress_texts(again) if t.startswith("restart.pdf")], _progress_texts(again)
    assert fr("jobs.no_worker") in _texts(again.warning)
    [job] = pipeline.list_jobs(settings, principal=LOCAL)
    assert job.state == "queued"
    worker = WorkerProcess(settings.data_dir, verbose=False)
    try:
        wait_until(lambda: pipeline.get_job(job.id, settings, principal=LOCAL).state in ("done", "failed"), 900)
    finally:
        worker.stop()
    assert pipeline.get_job(job.id, settings, principal=LOCAL).state == "done"
    _run(again)
    assert [t for t in _texts(again.success) if t.startswith("restart.pdf — ")], _texts(again.success)
    assert "restart.pdf" in hover_texts(again.table[-1]).values()  # listed in the library, searchable
