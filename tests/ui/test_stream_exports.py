"""The Ask page's export of reported citations and the Evaluate page's results.json, asked for by a
program speaking Streamlit's websocket protocol (tests/ui/stream_client.py), in header mode:

- Ann's export of her reported citations (her question and a quote of the board PDF), asked for
  by another session (nobody signed in, another user, an administrator) with the button's file
  id, produces nothing and records nothing; asked for by her own session, it produces her reports
  and is recorded in the audit trail as hers;
- no `/media` URL seen by Ann's Ask session (the answer, the report, the export) serves scoped
  bytes to another client, nor once the proxy no longer names her;
- an administrator's evaluation results (the reported questions, the pages found for them) are
  made for the administrator's session only. The product does not record this download in the
  audit trail (the results are what the administrator's own run computed), so only the answer to
  the request is checked.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rag_core.evaluation.citation_reports import report_citation
from tests.ui.browser_support import REPO
from tests.ui.scoped_app import ANN, BOB, ROOT, SECRET_QUERY, SECRET_WORD, IngestedCollections, ScopedApp, scoped_app
from tests.ui.stream_client import StreamClient, fetch
from tests.ui.stream_pages import ASK_EXPORT, EVALUATE_DOWNLOAD, ask_and_report, evaluate_reported

LOGS = REPO / "test-artifacts" / "stream-exports"
SECRET = SECRET_WORD.encode()  # in Ann's question and in the board quote her report holds


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, access_template: IngestedCollections) -> Iterator[ScopedApp]:
    with scoped_app(tmp_path_factory.mktemp("stream-exports"), LOGS / "streamlit.log", access_template) as running:
        yield running


def _exports_of(app: ScopedApp, user: str) -> int:
    return sum(e["user"] == user for e in app.events("reports_exported"))


def test_the_reported_citations_export_is_made_only_for_the_session_that_drew_it(app: ScopedApp) -> None:
    with ask_and_report(StreamClient(app.url, ANN), SECRET_QUERY) as ann:
        file_id = ann.downloads()[ASK_EXPORT]
        # its click runs no script: a run started by the click raced the file's answer to the browser
        assert [b.ignore_rerun for b in ann.of_kind("download_button")] == [True] * len(ann.downloads())
        before = len(app.events("reports_exported"))
        for headers in ({}, BOB, ROOT):  # nobody (the sign-in screen), another user, an administrator
            with StreamClient(app.url, headers).run("ask") as other:
                answer = other.request_file(file_id)
                assert not answer.deferred_file.url and answer.error_msg, headers
        assert len(app.events("reports_exported")) == before  # nothing made, nothing recorded

        own = ann.request_file(file_id)
        assert own.deferred_file.url, own.error_msg
        status, body = fetch(app.url + own.deferred_file.url)
        assert status == 200 and SECRET in body and b'"reported_by": "ann@example.org"' in body
        assert len(app.events("reports_exported")) == before + 1
        assert app.events("reports_exported")[-1]["user"] == "ann@example.org"


def test_no_media_url_of_an_ask_session_serves_scoped_bytes_once_its_user_is_gone(app: ScopedApp) -> None:
    public = {path.read_bytes() for path in (REPO / "rag_app" / "assets").iterdir() if path.is_file()}
    ann = ask_and_report(StreamClient(app.url, ANN), SECRET_QUERY)
    urls = [app.url + "/media/" + u for u in ann.media_urls(every_run=True)]  # the answer's run and the report's
    for url in urls:  # fetched by another client at once: public assets only
        status, body = fetch(url)
        assert status != 200 or body in public, url
    exported = _exports_of(app, "ann@example.org")
    own = ann.request_file(ann.downloads()[ASK_EXPORT])
    urls.append(app.url + own.deferred_file.url)
    seen = {url: fetch(url) for url in urls}
    assert any(SECRET in body for _, body in seen.values())  # the export URL did work for Ann
    assert _exports_of(app, "ann@example.org") == exported + 1
    # the proxy no longer names Ann (she signed out there): the browser reconnects without identity
    with StreamClient(app.url, {}, resume=ann.session_id).run("ask") as after:
        assert "Connexion" in after.text()
    for url in urls:
        status, body = fetch(url)
        assert status != 200 or body in public, url


def test_the_evaluation_results_are_made_only_for_the_administrator_session_that_drew_them(app: ScopedApp) -> None:
    report_citation(
        app.settings.data_dir,
        question=SECRET_QUERY,
        language="en",
        source_id="board-p1",
        pdf="board.pdf",
        pages=[1],
        quote=f"The {SECRET_WORD} programme",
        user="ann@example.org",
    )
    with evaluate_reported(StreamClient(app.url, ROOT), app.library.pdfs["board"].parent) as root:
        file_id = root.downloads()[EVALUATE_DOWNLOAD]
        for headers in ({}, ANN, BOB):  # nobody, the user whose report is evaluated, another user
            with StreamClient(app.url, headers).run("evaluate") as other:
                answer = other.request_file(file_id)
                assert not answer.deferred_file.url and answer.error_msg, headers
        assert app.events("evaluation_exported") == []  # the refused replays made and recorded nothing
        own = root.request_file(file_id)
        assert own.deferred_file.url, own.error_msg
        status, body = fetch(app.url + own.deferred_file.url)
        assert status == 200 and b'"set": "reported_citations"' in body and SECRET in body
        assert [e["user"] for e in app.events("evaluation_exported")] == [
            ROOT["X-Forwarded-Email"]
        ]  # recorded for who got it
