"""The upload, job and reported-citation routes against the real server process (`python -m
rag_core api` on a free port of 127.0.0.1, the access tests' library): an upload creates a job that
its submitter follows to done and nobody else sees; a bad file gets the app's own message as a
JSON 4xx and creates no job; a citation is reported only of a readable document and page, under
the caller's name and with the document's real name; forged ids, huge bodies and malformed JSON
get a clear 4xx and nothing of anyone else's data.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.errors import InputError
from rag_core.jobs import Worker
from rag_core.pipeline.jobs import JOB_NOT_FOUND
from tests.access_support import ADMIN, ALICE, BOB, TOPICS, IngestedCollections, copy_library, make_pdf, share_guides
from tests.api_support import Served, start_api, token_of

MAX_FILE_MB = 1  # the test server's upload bound, so that "too large" costs little to send
NEW_TOPIC = "Numbat mortality study"


@pytest.fixture(scope="module")
def served(access_template: IngestedCollections, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    lib = copy_library(access_template, tmp_path_factory.mktemp("api-routes"))
    share_guides(lib)
    tokens = {"alice": token_of(lib, ALICE), "bob": token_of(lib, BOB), "admin": token_of(lib, ADMIN)}
    proc, url = start_api(lib, RAG_PARSING__MAX_FILE_MB=str(MAX_FILE_MB), RAG_API__RATE_LIMIT_PER_MINUTE="1000")
    try:
        yield Served(lib, url, proc, tokens, "")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _error(reply: tuple[int, dict, bytes]) -> tuple[int, str]:
    """(status, message) of an error reply, after checking it is JSON with no stack trace."""
    status, headers, body = reply
    assert headers["content-type"] == "application/json" and b"Traceback" not in body, body
    return status, json.loads(body)["error"]["message"]


def _upload(served: Served, who: str, data: bytes, query: str) -> tuple[int, dict, bytes]:
    """An upload into the caller's own collection (a non-administrator cannot create "default")."""
    path = f"/api/uploads?collection=alice-notes&{query}"
    return served.call("POST", path, served.tokens[who], raw=data, content_type="application/pdf")


def _job_ids(served: Served, who: str) -> list[str]:
    status, _, body = served.call("GET", "/api/jobs", served.tokens[who])
    assert status == 200, body
    return [j["id"] for j in json.loads(body)["jobs"]]


def test_an_upload_creates_a_job_its_submitter_follows_to_done_and_nobody_else_sees(
    served: Served, tmp_path: Path
) -> None:
    pdf = make_pdf(tmp_path / "numbat.pdf", NEW_TOPIC)
    status, _, body = _upload(served, "alice", pdf.read_bytes(), "file_name=numbat.pdf")
    assert status == 202, body
    job = json.loads(body)
    assert (job["file_name"], job["collection"], job["state"], job["progress"]) == (
        "numbat.pdf",
        "alice-notes",
        "queued",
        0.0,
    )
    status, _, body = served.call("GET", f"/api/jobs/{job['id']}", served.tokens["alice"])
    assert status == 200 and json.loads(body)["id"] == job["id"]
    assert job["id"] in _job_ids(served, "alice") and job["id"] in _job_ids(served, "admin")

    # another user: the same answer as for a job that does not exist, and no trace of the file
    assert _error(served.call("GET", f"/api/jobs/{job['id']}", served.tokens["bob"])) == (404, JOB_NOT_FOUND)
    status, _, body = served.call("GET", "/api/jobs", served.tokens["bob"])
    assert status == 200 and job["id"].encode() not in body and b"numbat" not in body

    worker = Worker(served.lib.settings)  # one turn of `python -m rag_core worker` at a time
    while worker.run_once():
        pass
    status, _, body = served.call("GET", f"/api/jobs/{job['id']}", served.tokens["alice"])
    done = json.loads(body)
    assert status == 200 and (done["state"], done["progress"]) == ("done", 1.0), done
    status, _, body = served.call("POST", "/api/search", served.tokens["alice"], {"query": NEW_TOPIC})
    assert json.loads(body)["parents"][0]["document"]["doc_id"] == done["doc_id"]
    status, _, body = served.call("POST", "/api/search", served.tokens["bob"], {"query": NEW_TOPIC})
    assert status == 200 and done["doc_id"].encode() not in body and b"numbat" not in body


def test_a_bad_upload_gets_the_apps_message_as_json_and_creates_no_job(served: Served) -> None:
    before = _job_ids(served, "alice")
    html = b"<!DOCTYPE html><html><body>Please sign in</body></html>"
    cases = [
        (_upload(served, "alice", html, "file_name=report.pdf"), 400, str(InputError.of("file.pdf_is_html"))),
        (_upload(served, "alice", b"", "file_name=empty.pdf"), 400, str(InputError.of("file.empty", name="empty.pdf"))),
        (_upload(served, "alice", b"%PDF-1.7\n" + b"0" * (MAX_FILE_MB << 20), "file_name=big.pdf"), 413, "larger than"),
        (_upload(served, "alice", b"%PDF-1.7\n", ""), 400, "file_name"),
        (_upload(served, "alice", b"%PDF-1.7\n", "file_name=" + "a" * 300 + ".pdf"), 400, "file_name"),
    ]
    for reply, expected, words in cases:
        status, message = _error(reply)
        assert status == expected and words in message, (status, message)
    assert _job_ids(served, "alice") == before


def test_a_too_large_upload_still_being_sent_when_refused_gets_the_413_not_a_reset(served: Served) -> None:
    """The server refuses on the declared length at once; the client is still sending (as urllib, and
    curl without `Expect: 100-continue`, do: the whole body, then the answer) and has asked for
    `Connection: close` (urllib always does), so the server closes after its answer. Closing on unread
    bytes resets the connection and the client sees a broken pipe, not the message: the refused body
    must be read to its end first. The pause between the two parts makes the order certain."""
    url = urllib.parse.urlsplit(served.url)
    size = (MAX_FILE_MB << 20) + (4 << 20)
    head = (
        f"POST /api/uploads?collection=alice-notes&file_name=big.pdf HTTP/1.1\r\nHost: {url.netloc}\r\n"
        f"Authorization: Bearer {served.tokens['alice']}\r\nContent-Type: application/pdf\r\nConnection: close\r\n"
        f"Content-Length: {size}\r\n\r\n"
    ).encode()
    with socket.create_connection((url.hostname, url.port), timeout=60) as sock:
        sock.sendall(head + b"%PDF-1.7\n" + b"0" * ((1 << 16) - 9))
        time.sleep(1.0)  # the server has answered by now, or it never will before reading the body
        sent = 1 << 16
        while sent < size:
            part = min(1 << 20, size - sent)
            sock.sendall(b"0" * part)  # a reset connection raises here (broken pipe / reset by peer)
            sent += part
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
            if b"\r\n\r\n" in reply and reply.endswith(b"}}"):
                break
    status_line, _, rest = reply.partition(b"\r\n")
    assert status_line.split()[1] == b"413", status_line
    assert b"larger than" in rest.partition(b"\r\n\r\n")[2], reply


def test_forged_job_ids_get_the_same_404_as_a_missing_job(served: Served) -> None:
    alice = served.tokens["alice"]
    for forged in ("0" * 32, "x' OR '1'='1", "\x00", "é" * 300):
        reply = served.call("GET", "/api/jobs/" + urllib.parse.quote(forged, safe=""), alice)
        assert _error(reply) == (404, JOB_NOT_FOUND), forged
    # a path out of the route is no route at all
    status, message = _error(served.call("GET", "/api/jobs/..%2F..%2Faccess%2Ftokens.json", alice))
    assert status == 404 and "no such endpoint" in message


def _source(served: Served, collection: str) -> dict:
    """A citation of the collection's document as an administrator sees it (what a user could forge)."""
    doc_id = served.lib.doc_ids[collection]
    answer = pipeline.ask(
        f"What does the {TOPICS[collection]} programme protect?", served.lib.settings, doc_ids=[doc_id], principal=ADMIN
    )
    return answer.sources[0].model_dump(mode="json")


def _reports(served: Served, who) -> list[dict]:
    data = pipeline.reported_citations(served.lib.settings, principal=who)
    return [json.loads(line) for line in data.splitlines()]


def _report(served: Served, who: str, source: dict, **extra: object) -> tuple[int, dict, bytes]:
    body = {"question": "What does the guide protect?", "source": source, "quote": "the balance sheet", **extra}
    return served.call("POST", "/api/citations/report", served.tokens[who], body)


def test_a_reader_reports_a_citation_under_their_name_with_the_documents_own_name(served: Served) -> None:
    source = _source(served, "guides")
    status, _, body = _report(served, "alice", source, comment="wrong page")
    assert status == 201, body
    record = json.loads(body)["reported"]
    assert (record["reported_by"], record["pdf"], record["pages"]) == (ALICE.user, "guides.pdf", source["pages"])
    assert record["id"] in {r["id"] for r in _reports(served, ALICE)}
    assert record["id"] not in {r["id"] for r in _reports(served, BOB)}

    # a forged file name in a readable source is not written: the document's own name is
    status, _, body = _report(served, "alice", {**source, "file_name": "board.pdf"})
    assert status == 201 and json.loads(body)["reported"]["pdf"] == "guides.pdf"


def test_a_report_of_an_unreadable_or_forged_citation_is_refused_and_not_recorded(served: Served) -> None:
    guides, board = _source(served, "guides"), _source(served, "board")
    kept = len(_reports(served, ADMIN))
    forged_id = _error(_report(served, "alice", {**guides, "doc_id": "0" * 64}))
    assert forged_id[0] == 404
    # a document the caller may not read: the same answer as one that does not exist
    assert _error(_report(served, "bob", guides)) == forged_id
    assert _error(_report(served, "alice", board)) == forged_id
    for pages in ([999], [0], []):
        status, message = _error(_report(served, "alice", {**guides, "pages": pages}))
        assert status == 404 and "not in this document" in message, pages
    assert len(_reports(served, ADMIN)) == kept


def test_bad_report_bodies_get_a_clear_4xx(served: Served) -> None:
    alice, source = served.tokens["alice"], _source(served, "guides")
    cases = [
        (
            served.call("POST", "/api/citations/report", alice, raw=b'{"question": "x", "source": {'),
            400,
            "not valid JSON",
        ),
        (served.call("POST", "/api/citations/report", alice, {"question": "x"}), 400, "source"),
        (
            served.call("POST", "/api/citations/report", alice, {"question": "x", "source": {"doc_id": 1}}),
            400,
            "source",
        ),
        (_report(served, "alice", source, comment="c" * 300_000), 413, "larger than"),
        (_report(served, "alice", source, comment="c" * 3000), 400, "comment"),
        (served.call("POST", "/api/citations/report", None, {"question": "x", "source": source}), 401, "Bearer"),
    ]
    for reply, expected, words in cases:
        status, message = _error(reply)
        assert status == expected and words in message, (status, message)
