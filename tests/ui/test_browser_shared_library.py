"""Two app servers (each with its worker, started as `make run` starts them) on one library in a
real S3 API (`moto_server` on 127.0.0.1), with their own local caches, as two machines behind a
load balancer would have: a PDF uploaded in a real Chromium on server A is then, on server B,
listed on the Library page, found by the Search page and shown in its PDF viewer, drawn from the
copy B fetched from the library. Screenshots go to test-artifacts/shared/ (git-ignored).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bad_files import make_pdf
from tests.s3_support import moto_server, new_bucket, s3_env
from tests.ui.browser_support import (
    CHROMIUM,
    REPO,
    VIEWER_IFRAME,
    goto,
    launch,
    open_home,
    rerun,
    start_app,
    stop_app,
    upload_in_library,
)

ARTIFACTS = REPO / "test-artifacts" / "shared"
TOPIC = "Munich chain ladder paid incurred"
PDF_NAME = "munich_chain_ladder.pdf"

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")


def test_a_pdf_uploaded_on_server_a_is_listed_found_and_opened_on_server_b(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pdf = make_pdf(tmp_path / PDF_NAME, TOPIC, pages=3)
    with moto_server(ARTIFACTS / "moto.log") as endpoint:
        uri = f"s3://{new_bucket(endpoint)}/library"

        def env(server: str) -> dict[str, str]:
            cache = tmp_path / server / "cache"
            return {**s3_env(endpoint), "RAG_LIBRARY_URI": uri, "RAG_STORAGE__CACHE_DIR": str(cache)}

        servers = [
            start_app(tmp_path / s / "data", ARTIFACTS / f"serve-{s}.log", env=env(s), workers=True) for s in ("a", "b")
        ]
        try:
            (_, url_a), (_, url_b) = servers
            with sync_playwright() as pw:
                browser = launch(pw)
                page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                open_home(page, url_a)
                upload_in_library(page, url_a, pdf, PDF_NAME, 150_000)
                page.screenshot(path=str(ARTIFACTS / "01_uploaded_on_a.png"), full_page=True)

                other = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                open_home(other, url_b)
                assert uri in other.locator('[data-testid="stMain"]').inner_text()  # B names the shared library
                goto(other, f"{url_b}/library")
                documents = other.locator('[data-testid="stTable"]').first  # the Library's documents
                documents.locator("td").filter(has_text=PDF_NAME).first.wait_for(state="attached", timeout=30_000)
                other.screenshot(path=str(ARTIFACTS / "02_listed_on_b.png"), full_page=True)

                goto(other, f"{url_b}/search")
                query = other.get_by_label("Question")
                query.fill(TOPIC)
                with rerun(other):
                    query.press("Enter")
                with rerun(other):
                    other.get_by_role("button", name="Rechercher").click()
                open_button = other.get_by_role("button", name="Ouvrir").first  # each result is a card
                open_button.wait_for(timeout=30_000)
                with rerun(other):  # the first result: its passage opens in the viewer
                    open_button.click()
                other.get_by_text("Page(s) affichée(s)").first.wait_for(timeout=30_000)
                other.frame_locator(VIEWER_IFRAME).locator("canvas").first.wait_for(timeout=30_000)
                other.screenshot(path=str(ARTIFACTS / "03_found_and_opened_on_b.png"), full_page=True)
                assert PDF_NAME in other.locator('[data-testid="stMain"]').inner_text()
                browser.close()
        finally:
            for proc, _ in servers:
                stop_app(proc)
    cached = list((tmp_path / "b" / "cache" / "documents").glob("*/source.pdf"))
    assert [p.read_bytes() for p in cached] == [pdf.read_bytes()]  # B drew it from its own copy
    assert not (tmp_path / "b" / "data").exists() or not any((tmp_path / "b" / "data").rglob("*.lance"))
