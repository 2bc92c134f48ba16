"""The upload queue in a real headless Chromium, with the app and a worker started as `make run` does.

Upload then leave the page (or close the tab): the worker ingests the file anyway, a toast
says so on the page the user went to, and the Library page shows it done. Three files, the
second cancelled while it runs: the first and third are ingested, nothing of the second is
searchable. Screenshots go to test-artifacts/jobs/ (git-ignored). PDFs are made with PyMuPDF.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.library import sha256_file
from rag_core.services.connection import open_store
from tests.bad_files import make_pdf
from tests.jobs_support import wait_until
from tests.ui.browser_support import CHROMIUM, REPO, goto, open_home, rerun, start_app, stop_app

ARTIFACTS = REPO / "test-artifacts" / "jobs"
LOCAL = Principal.local_operator()

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[str, Settings]]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    data = tmp_path / "data"
    proc, url = start_app(
        data, ARTIFACTS / f"serve-{tmp_path.name}.log", env={"RAG_JOBS__HEARTBEAT_S": "1"}, workers=True
    )
    try:
        yield url, Settings(data_dir=data)
    finally:
        stop_app(proc)


def _upload(page, url: str, pdfs: list[Path]) -> None:
    goto(page, f"{url}/library")
    page.get_by_role("heading", name="Bibliothèque").wait_for(timeout=10_000)
    with rerun(page):
        page.locator('input[type="file"]').set_input_files([str(p) for p in pdfs])
    page.locator('[data-testid="stFileChip"]').nth(len(pdfs) - 1).wait_for(timeout=10_000)
    with rerun(page):
        page.get_by_role("button", name="Importer").click()


def _jobs(settings: Settings) -> dict[str, object]:
    return {j.file_name: j for j in pipeline.list_jobs(settings, principal=LOCAL)}


def _library_shows_done(page, url: str, name: str) -> None:
    goto(page, f"{url}/library")
    page.locator('[data-testid="stAlert"]').filter(has_text=name).filter(has_text="importé").first.wait_for(
        timeout=60_000
    )
    page.locator('[data-testid="stTable"]').first.wait_for(timeout=30_000)  # the Library's documents


def test_upload_then_open_another_page(app, page, tmp_path: Path) -> None:
    url, settings = app
    pdf = make_pdf(tmp_path / "reserving_report.pdf", "Mack chain ladder", pages=12)
    open_home(page, url)
    _upload(page, url, [pdf])
    goto(page, f"{url}/ask")  # leave the Library page at once
    page.locator('[data-testid="stChatInputTextArea"]').wait_for(timeout=20_000)
    toast = page.locator('[data-testid="stToast"]').filter(has_text="reserving_report.pdf")
    toast.first.wait_for(timeout=300_000)
    assert "importé et consultable" in toast.first.inner_text()
    page.screenshot(path=str(ARTIFACTS / "finished_notice.png"), full_page=True)
    assert _jobs(settings)["reserving_report.pdf"].state == "done"
    _library_shows_done(page, url, "reserving_report.pdf")
    assert [r.file_name for r in pipeline.list_documents(settings, principal=LOCAL)] == ["reserving_report.pdf"]


def test_upload_then_close_the_tab(app, page, tmp_path: Path) -> None:
    url, settings = app
    pdf = make_pdf(tmp_path / "tail_factors.pdf", "Bornhuetter Ferguson tail", pages=12)
    open_home(page, url)
    _upload(page, url, [pdf])
    context = page.context
    page.close()  # the session that uploaded is gone
    wait_until(lambda: _jobs(settings)["tail_factors.pdf"].state == "done", 300)
    again = context.new_page()
    open_home(again, url)
    _library_shows_done(again, url, "tail_factors.pdf")
    hits = pipeline.search("Bornhuetter Ferguson tail development factors", settings, principal=LOCAL).parents
    assert any(h.document.file_name == "tail_factors.pdf" for h in hits)


def test_three_uploads_cancel_the_second_while_it_runs(app, page, tmp_path: Path) -> None:
    url, settings = app
    first = make_pdf(tmp_path / "a_first.pdf", "Mack chain ladder", pages=2)
    second = make_pdf(tmp_path / "b_second.pdf", "Quokka captive reinsurance", pages=80)
    third = make_pdf(tmp_path / "c_third.pdf", "Bootstrap reserving", pages=2)
    open_home(page, url)
    _upload(page, url, [first, second, third])
    wait_until(lambda: _jobs(settings)["b_second.pdf"].state == "running", 300, every_s=0.1)
    victim = _jobs(settings)["b_second.pdf"]
    bar = page.locator('[data-testid="stProgress"]').filter(
        has_text=re.compile(r"b_second\.pdf .*(analyse|découpage|vectorisation|écriture) \d+/\d+")
    )
    bar.first.wait_for(timeout=20_000)
    page.screenshot(path=str(ARTIFACTS / "queue_progress.png"), full_page=True)
    page.locator(f".st-key-job_cancel_{victim.id} button").click()
    wait_until(lambda: _jobs(settings)["b_second.pdf"].state == "cancelled", 120)
    wait_until(lambda: _jobs(settings)["c_third.pdf"].state == "done", 300)
    assert _jobs(settings)["a_first.pdf"].state == "done"
    names = sorted(r.file_name for r in pipeline.list_documents(settings, principal=LOCAL))
    assert names == ["a_first.pdf", "c_third.pdf"]
    hits = pipeline.search("Quokka captive reinsurance", settings, principal=LOCAL).parents
    assert all(h.document.doc_id != sha256_file(second) for h in hits)
    assert open_store(settings).purge_orphans() == 0
    page.locator('[data-testid="stAlert"]').filter(has_text="c_third.pdf").first.wait_for(timeout=30_000)
    page.screenshot(path=str(ARTIFACTS / "queue_after_cancel.png"), full_page=True)
