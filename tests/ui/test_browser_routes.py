"""Streamlit's own routes from real browsers (Playwright + Chromium), in header mode: a second
browser context cannot turn another person's download button into bytes (the Inspect page's table,
the Ask page's export of reported citations), and no `/media` URL that a signed-in person's page
fetched serves scoped bytes to another browser without cookies, except an export's address in the
seconds after its click, which stops once its user has signed out.
In OIDC mode (tests/oidc/), the download works for the signed-in user, and its address dies at the
sign-out itself (the test app's lifetime for it is long).

Each browser context is one person: the proxy's identity headers are the context's extra headers
(ANN reads "board", BOB "staff", no header at all is nobody). The library: tests/ui/scoped_app.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest

from tests.ui.browser_support import (
    CHROMIUM,
    REPO,
    ask,
    click_download,
    goto,
    launch,
    report_first_citation,
    start_app,
    stop_app,
    wait_for_runs,
)
from tests.ui.scoped_app import (
    ANN,
    BOB,
    ROOT,
    SECRET_QUERY,
    SECRET_WORD,
    IngestedCollections,
    ScopedApp,
    copy_library,
    grant_groups,
    scoped_app,
)
from tests.ui.stream_client import PageStream
from tests.ui.stream_pages import ASK_EXPORT

ARTIFACTS = REPO / "test-artifacts" / "routes"
CSV = "Télécharger en CSV"
TABLE_CELL = b"2021,1200,3400"  # the board table's first row, as the CSV export writes its numbers

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, access_template: IngestedCollections) -> Iterator[ScopedApp]:
    with scoped_app(tmp_path_factory.mktemp("routes"), ARTIFACTS / "streamlit.log", access_template) as running:
        yield running


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = launch(pw)
        yield chromium
        chromium.close()


def _person(browser, headers: dict[str, str]):
    context = browser.new_context(
        viewport={"width": 1500, "height": 1000}, extra_http_headers=headers, accept_downloads=True
    )
    page = context.new_page()
    return context, page, PageStream(page)


def _ann_on_inspect(browser, app: ScopedApp):
    context, page, stream = _person(browser, ANN)
    media: list[str] = []
    page.on("response", lambda r: media.append(r.url) if urlparse(r.url).path.startswith("/media/") else None)
    goto(page, f"{app.url}/inspect")
    page.get_by_role("button", name=CSV).wait_for(timeout=30_000)
    assert SECRET_WORD in page.locator('[data-testid="stMain"]').inner_text()
    return context, page, stream, media


def test_another_browser_cannot_replay_a_download_button(browser, app: ScopedApp) -> None:
    _, page, ann, _ = _ann_on_inspect(browser, app)
    file_id = ann.downloads()[CSV]
    for headers in ({}, BOB):  # nobody signed in, then another user: each in their own browser context
        _, other_page, other = _person(browser, headers)
        goto(other_page, f"{app.url}/inspect")
        answer = other.request_file(file_id)
        assert not answer.deferred_file.url and answer.error_msg, headers
    assert app.events("table_exported") == []

    got = click_download(
        page, page.get_by_role("button", name=CSV)
    )  # Ann's own click still works, and is recorded as hers
    assert TABLE_CELL in got.path().read_bytes()
    assert [e["user"] for e in app.events("table_exported")] == ["ann@example.org"]


def test_another_browser_cannot_replay_the_ask_pages_export_of_reported_citations(browser, app: ScopedApp) -> None:
    _, page, ann = _person(browser, ANN)
    goto(page, f"{app.url}/ask")
    ask(page, SECRET_QUERY)
    report_first_citation(page, "wrong page")  # her question and a board quote, in the export from now on
    page.get_by_role("button", name=ASK_EXPORT).wait_for(timeout=30_000)
    file_id = ann.downloads()[ASK_EXPORT]
    exported = len(app.events("reports_exported"))
    for headers in ({}, BOB, ROOT):  # nobody, another user, an administrator: each in their own browser context
        _, other_page, other = _person(browser, headers)
        goto(other_page, f"{app.url}/ask")
        answer = other.request_file(file_id)
        assert not answer.deferred_file.url and answer.error_msg, headers
    assert len(app.events("reports_exported")) == exported

    # Ann's own session still gets it, and the export is recorded as hers. Asked the way the replays are and
    # fetched at once: the Ask page's rerun after a click can outlast the test app's 5 s export lifetime on a
    # loaded machine (the click path itself is checked on Inspect, above).
    own = ann.request_file(file_id)
    assert own.deferred_file.url, own.error_msg
    response = page.request.get(app.url + own.deferred_file.url)
    body = response.body()
    assert response.status == 200 and SECRET_WORD.encode() in body and b'"reported_by": "ann@example.org"' in body
    assert [e["user"] for e in app.events("reports_exported")[exported:]] == ["ann@example.org"]


def test_no_media_url_of_a_scoped_page_serves_scoped_bytes_to_another_browser(browser, app: ScopedApp) -> None:
    public = {path.read_bytes() for path in (REPO / "rag_app" / "assets").iterdir() if path.is_file()}
    context, page, ann, media = _ann_on_inspect(browser, app)
    assert page.locator('[data-testid="stMain"] img').count() >= 1  # the figure is shown
    outsider, _, _ = _person(browser, {})  # no cookie, no identity header

    def served(url: str) -> bytes | None:
        response = outsider.request.get(url)
        return response.body() if response.ok else None

    for url in media:  # whatever Ann's page fetched from /media: public assets only
        assert served(url) in public | {None}, url
    # Asked over Ann's page's own websocket, as her click asks (the click itself: the replay test above), and
    # fetched by the outsider at once: Streamlit deletes an unmapped download after two script runs of any
    # session, which on a loaded machine can come before a fetch made once the browser's download is back.
    own = ann.request_file(ann.downloads()[CSV])
    assert own.deferred_file.url, own.error_msg
    export = app.url + own.deferred_file.url
    assert "/media/" in export and TABLE_CELL in (served(export) or b"")  # a bearer address, just after the ask

    context.set_extra_http_headers({})  # Ann signed out at the proxy, which no longer names her
    goto(page, f"{app.url}/inspect")
    page.get_by_role("heading", name="Connexion").wait_for(timeout=30_000)
    for url in media:
        assert served(url) in public | {None}, url
    deadline = time.monotonic() + 60  # the test app's export lifetime is a few seconds
    while served(export) is not None:
        assert time.monotonic() < deadline, "the export's address still answers after sign-out"
        time.sleep(0.5)


@pytest.fixture(scope="module")
def oidc_app(tmp_path_factory: pytest.TempPathFactory, access_template: IngestedCollections) -> Iterator[ScopedApp]:
    from tests.oidc.harness import start_provider, write_secrets

    root = tmp_path_factory.mktemp("routes-oidc")
    library = copy_library(access_template, root / "library")
    grant_groups(library)
    provider, issuer, client_secret = start_provider(OIDC_USERS, root / "oidc")
    secrets_file = write_secrets(root / "secrets.toml", issuer, client_secret)
    try:
        proc, url = start_app(
            library.settings.data_dir,
            ARTIFACTS / "streamlit-oidc.log",
            env={"RAG_AUTH__MODE": "oidc", "RAG_AUDIT__EXPORT_URL_LIFETIME_S": "3600"},
            args=["--secrets.files", str(secrets_file)],
        )
        yield ScopedApp(url, proc, library)
        stop_app(proc)
    finally:
        provider.kill()
        provider.wait(timeout=10)


OIDC_USERS = {"ann@example.org": {"password": "ann-pw", "name": "Ann", "groups": ["board"]}}


def test_oidc_download_works_for_its_user_and_its_address_dies_at_sign_out(browser, oidc_app: ScopedApp) -> None:
    from tests.oidc.harness import browser_sign_in

    context, page, _ = _person(browser, {})
    browser_sign_in(page, oidc_app.url, "ann@example.org", OIDC_USERS["ann@example.org"]["password"])
    goto(page, f"{oidc_app.url}/inspect")
    page.get_by_role("button", name=CSV).wait_for(timeout=30_000)
    outsider, _, _ = _person(browser, {})
    # the export is written at click time by the app server, which a loaded machine (CI, two test
    # processes and their servers on two cores) has taken more than Playwright's default 30 s to answer
    got = click_download(page, page.get_by_role("button", name=CSV))
    # Streamlit's own cleanup deletes an unmapped download at the second script run of any session
    # after it was made (the pages' fragments run every few seconds): the address must outlive it and
    # answer for its lifetime (an hour here), which a loaded machine's slow fetch once needed.
    wait_for_runs(page, 3)
    export = got.url
    assert TABLE_CELL in outsider.request.get(export).body()  # a bearer address until...
    assert TABLE_CELL in got.path().read_bytes()  # the principal read again at click time is Ann
    assert [e["user"] for e in oidc_app.events("table_exported")] == ["ann@example.org"]
    page.get_by_role("button", name="Se déconnecter").click()
    page.get_by_role("heading", name="Connexion").wait_for(timeout=60_000)
    assert outsider.request.get(export).status == 404  # ...the sign-out, long before its lifetime
