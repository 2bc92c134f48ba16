"""What a program speaking Streamlit's websocket protocol (tests/ui/stream_client.py), with no
browser, can get out of another person's session, in header mode:

- a deferred download asked for by another session (nobody signed in, or another user) with the
  button's file id produces nothing and records nothing; asked for by the session that drew it,
  it produces the bytes and records the export under that session's user;
- a connection that resumes someone's session id with other identity headers gets neither their
  downloads (even before any rerun) nor anything their session held (the search they ran);
- no `/media` URL seen by a signed-in session serves scoped bytes once that session's user is
  gone (the figure crop has no URL at all; an export's URL dies at the change of principal), and
  an export's URL stops answering a few seconds after the click even when its tab was just closed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.ui.browser_support import REPO
from tests.ui.scoped_app import ANN, BOB, ROOT, SECRET_QUERY, SECRET_WORD, IngestedCollections, ScopedApp, scoped_app
from tests.ui.stream_client import StreamClient, fetch, text_value, trigger

LOGS = REPO / "test-artifacts" / "stream"
CSV = "Télécharger en CSV"
TABLE_CELL = b"2021,1200,3400"  # the board table's first row, as the CSV export writes its numbers


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, access_template: IngestedCollections) -> Iterator[ScopedApp]:
    with scoped_app(tmp_path_factory.mktemp("stream"), LOGS / "streamlit.log", access_template) as running:
        yield running


def _ann_on_inspect(app: ScopedApp) -> StreamClient:
    ann = StreamClient(app.url, ANN).run("inspect")
    assert SECRET_WORD in ann.text() and CSV in ann.downloads(), "Ann does not see the board table"
    return ann


def test_a_deferred_download_is_made_only_for_the_session_that_drew_it(app: ScopedApp) -> None:
    with _ann_on_inspect(app) as ann:
        file_id = ann.downloads()[CSV]
        for headers in ({}, BOB):  # nobody signed in (the sign-in screen), then another user
            with StreamClient(app.url, headers).run("inspect") as other:
                answer = other.request_file(file_id)
                assert not answer.deferred_file.url and answer.error_msg, headers
        assert app.events("table_exported") == []  # nothing made, nothing recorded as Ann's

        own = ann.request_file(file_id)
        assert own.deferred_file.url, own.error_msg
        status, body = fetch(app.url + own.deferred_file.url)
        assert status == 200 and TABLE_CELL in body
        assert [e["user"] for e in app.events("table_exported")] == ["ann@example.org"]


def test_a_resumed_session_with_other_headers_gets_no_download_of_the_last_user(app: ScopedApp) -> None:
    ann = _ann_on_inspect(app)
    file_id, session = ann.downloads()[CSV], ann.session_id
    exported = len(app.events("table_exported"))
    with StreamClient(app.url, BOB, resume=session) as bob:
        bob.session_id = session  # the same session, now on Bob's connection, before any rerun
        answer = bob.request_file(file_id)
        assert not answer.deferred_file.url and answer.error_msg
    assert len(app.events("table_exported")) == exported


def test_a_resumed_session_with_other_headers_keeps_nothing_of_the_last_user(app: ScopedApp) -> None:
    ann = StreamClient(app.url, ANN).run("search")
    query, run = ann.widget_id("text_input", "Question"), ann.widget_id("button", "Rechercher")
    ann.run("search", [text_value(query, SECRET_QUERY), trigger(run)])
    assert "board.pdf" in ann.text()  # Ann's results, in her session's state
    with StreamClient(app.url, BOB, resume=ann.session_id) as bob:
        bob.run("search")
        assert bob.session_id == ann.session_id  # resumed, not a new session
        assert SECRET_WORD not in bob.text() and "board.pdf" not in bob.text()
        assert "retiré" not in bob.text()  # not even filtered out: the last user's search is gone


def test_no_media_url_of_a_signed_in_session_serves_scoped_bytes_once_its_user_is_gone(app: ScopedApp) -> None:
    public = {path.read_bytes() for path in (REPO / "rag_app" / "assets").iterdir() if path.is_file()}
    ann = _ann_on_inspect(app)
    urls = [app.url + "/media/" + u for u in ann.media_urls()]
    for url in urls:  # what the page drew, fetched by another client at once: public assets only (the logo)
        status, body = fetch(url)
        assert status != 200 or body in public, url
    own = ann.request_file(ann.downloads()[CSV])
    urls.append(app.url + own.deferred_file.url)
    seen = {url: fetch(url) for url in urls}
    assert any(TABLE_CELL in body for _, body in seen.values())  # the export URL did work for Ann
    # the proxy no longer names Ann (she signed out there): the browser reconnects without identity
    with StreamClient(app.url, {}, resume=ann.session_id).run("inspect") as after:
        assert "Connexion" in after.text()
    for url in urls:
        status, body = fetch(url)
        assert status != 200 or body in public, url


def test_an_export_url_dies_soon_after_the_click_even_when_the_tab_is_left_open_or_closed(app: ScopedApp) -> None:
    with _ann_on_inspect(app) as ann:
        own = ann.request_file(ann.downloads()[CSV])
    url = app.url + own.deferred_file.url  # Ann's tab is closed: her session waits to be resumed, nothing reruns
    status, body = fetch(url)
    assert status == 200 and TABLE_CELL in body  # the control: the address worked right after the click
    deadline = time.monotonic() + 60  # far beyond the lifetime set for the test app; Streamlit alone keeps it 120 s+
    while fetch(url)[0] == 200:
        assert time.monotonic() < deadline, "the export's address still answers a minute after the click"
        time.sleep(0.5)


def test_the_audit_csv_is_made_only_for_the_administrator_session_that_drew_it(app: ScopedApp) -> None:
    with StreamClient(app.url, ROOT).run("access") as root:
        file_id = root.downloads()[CSV]
        for headers in ({}, BOB, ANN):
            with StreamClient(app.url, headers).run("") as other:
                answer = other.request_file(file_id)
                assert not answer.deferred_file.url and answer.error_msg, headers
        assert app.events("audit_exported") == []
        own = root.request_file(file_id)
        status, body = fetch(app.url + own.deferred_file.url)
        assert status == 200 and b"sign_in" in body
        assert [e["user"] for e in app.events("audit_exported")] == [ROOT["X-Forwarded-Email"]]
