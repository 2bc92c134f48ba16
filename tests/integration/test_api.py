"""The library as a service, against the real server process (`python -m rag_core api` on a free
port of 127.0.0.1): the official `openai` client (streamed and not) gets answers whose citations
point to the right document and page; a user without a grant gets nothing of a collection through
any route (the cases of test_access.py replayed over HTTP); bad input gets a clear 4xx; a revoked,
expired or foreign token is refused at once; every call is in the audit trail with its channel.

Open WebUI is not installable here: the `openai` client's plain-text content (what a chat client
that ignores the extension field shows) is its stand-in.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import openai
import pytest

from rag_core import pipeline
from rag_core.access import AuditLog
from tests.access_support import ADMIN, ALICE, SECRET_QUERY, TOPICS, IngestedCollections
from tests.api_support import Served, openai_client, served_library, token_of
from tests.jobs_support import REPO, wait_until

COVERAGE_QUESTION = "Which insurance coverage modifications does the coverage function of actuar handle?"


@pytest.fixture(scope="module")
def served(access_template: IngestedCollections, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with served_library(access_template, tmp_path_factory.mktemp("api")) as server:
        yield server


def test_the_openai_client_gets_citations_to_the_right_document_and_page(served: Served) -> None:
    reply = openai_client(served, "alice").chat.completions.create(
        model="library", messages=[{"role": "user", "content": COVERAGE_QUESTION}]
    )
    cites = reply.model_extra["citations"]
    assert cites and cites[0]["doc_id"] == served.coverage_id and 1 in cites[0]["pages"]
    # the plain text a client that ignores extensions shows (the stand-in for Open WebUI)
    text = reply.choices[0].message.content
    assert "[1]" in text and "Sources:\n[1] en_actuar_coverage_modifications.pdf, p. 1" in text
    assert all(f"[{c['number']}]" in text.split("Sources:")[0] for c in cites)


def test_the_streamed_answer_keeps_every_citation(served: Served) -> None:
    chunks = list(
        openai_client(served, "alice").chat.completions.create(
            model="library/guides", messages=[{"role": "user", "content": COVERAGE_QUESTION}], stream=True
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    cites = chunks[-1].model_extra["citations"]
    assert cites and cites[0]["doc_id"] == served.coverage_id and 1 in cites[0]["pages"]
    assert "Sources:\n[1] en_actuar_coverage_modifications.pdf, p. 1" in text
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_a_follow_up_is_read_with_the_earlier_turns_the_client_sends(served: Served) -> None:
    client, first_question, follow_up = (
        openai_client(served, "alice"),
        "What does the Quokka reserving guide protect?",
        "And its overview?",
    )
    first = client.chat.completions.create(model="library", messages=[{"role": "user", "content": first_question}])
    alone = client.chat.completions.create(model="library", messages=[{"role": "user", "content": follow_up}])
    assert alone.model_extra["standalone_question"] == ""  # the control: with no earlier turn, nothing to carry
    messages = [
        {"role": "system", "content": "Answer from the library."},
        {"role": "user", "content": first_question},
        {"role": "assistant", "content": first.choices[0].message.content},  # as the client shows it, markers and all
        {"role": "user", "content": follow_up},
    ]
    reply = client.chat.completions.create(model="library", messages=messages)
    last_chunk = list(client.chat.completions.create(model="library", messages=messages, stream=True))[-1]
    for extra in (reply.model_extra, last_chunk.model_extra):
        assert "Quokka reserving guide" in extra["standalone_question"]
        assert extra["citations"][0]["doc_id"] == served.lib.doc_ids["guides"]


def test_models_are_the_collections_the_caller_may_read(served: Served) -> None:
    assert [m.id for m in openai_client(served, "alice").models.list()] == ["library", "library/guides"]
    assert [m.id for m in openai_client(served, "bob").models.list()] == ["library"]
    with pytest.raises(openai.NotFoundError, match="no model 'library/board'"):
        openai_client(served, "bob").chat.completions.create(
            model="library/board", messages=[{"role": "user", "content": SECRET_QUERY}]
        )


def test_a_user_without_a_grant_gets_nothing_of_the_collection_through_any_route(served: Served) -> None:
    bob, board = served.tokens["bob"], served.lib.doc_ids["board"]
    # the control: an administrator's token finds the board PDF first
    status, _, body = served.call("POST", "/api/search", served.tokens["admin"], {"query": SECRET_QUERY})
    assert status == 200 and json.loads(body)["parents"][0]["document"]["doc_id"] == board
    for who in ("bob", "alice"):
        token = served.tokens[who]
        shown = b"".join(
            [
                served.call("GET", "/api/collections", token)[2],
                served.call("GET", "/api/documents", token)[2],
                served.call("POST", "/api/search", token, {"query": SECRET_QUERY})[2],
                served.call("POST", "/api/ask", token, {"question": SECRET_QUERY})[2],
                served.call("POST", "/api/ask", token, {"question": SECRET_QUERY, "stream": True})[2],
                served.call("POST", "/api/search", token, {"query": SECRET_QUERY, "doc_ids": [board]})[2],
            ]
        )
        reply = openai_client(served, who).chat.completions.create(
            model="library", messages=[{"role": "user", "content": SECRET_QUERY}]
        )
        shown += reply.model_dump_json().encode()
        # what only the board PDF holds (a refusal may echo the question's own words, as in test_access.py)
        for secret in (f"{TOPICS['board']} report", f"1 {TOPICS['board']} overview", "board.pdf", board):
            assert secret.encode() not in shown, (who, secret)
    status, _, body = served.call("GET", "/api/documents?collection=board", bob)
    assert status == 404 and b"no collection 'board'" in body
    source = _source_of(served, board)
    for path in ("/api/citations/image", "/api/citations/pdf"):
        status, headers, body = served.call("POST", path, bob, {"source": source})
        assert status == 404 and headers["content-type"] == "application/json"
        assert json.loads(body)["error"]["message"] == _missing_message(served)


def _source_of(served: Served, doc_id: str) -> dict:
    """A citation of `doc_id` as an administrator sees it (what a user could forge)."""
    question = COVERAGE_QUESTION if doc_id == served.coverage_id else SECRET_QUERY
    answer = pipeline.ask(question, served.lib.settings, doc_ids=[doc_id], principal=ADMIN)
    return answer.sources[0].model_dump(mode="json")


def _missing_message(served: Served) -> str:
    """The message of a document that does not exist at all: forged and unreadable ids get the same."""
    forged = {**_source_of(served, served.coverage_id), "doc_id": "0" * 64}
    return json.loads(served.call("POST", "/api/citations/image", served.tokens["admin"], {"source": forged})[2])[
        "error"
    ]["message"]


def test_a_citation_page_image_and_page_range_are_served_to_a_reader(served: Served) -> None:
    source = _source_of(served, served.coverage_id)
    status, headers, body = served.call("POST", "/api/citations/image", served.tokens["alice"], {"source": source})
    assert status == 200 and headers["content-type"] == "image/png" and body.startswith(b"\x89PNG")
    status, headers, body = served.call("POST", "/api/citations/pdf", served.tokens["alice"], {"source": source})
    assert status == 200 and body.startswith(b"%PDF") and json.loads(headers["x-page-map"])
    forged_page = {"source": source, "page": 999}
    status, _, body = served.call("POST", "/api/citations/image", served.tokens["alice"], forged_page)
    assert status == 404 and b"not in this document" in body


def test_bad_input_gets_a_clear_4xx_and_no_stack_trace(served: Served) -> None:
    alice = served.tokens["alice"]
    cases = [
        (served.call("POST", "/api/search", alice, raw=b'{"query": '), 400, "not valid JSON"),
        (served.call("POST", "/api/search", alice, raw=b"query=x", content_type=None), 400, "Content-Type"),
        (served.call("POST", "/api/search", alice, {"query": ""}), 400, "query"),
        (served.call("POST", "/api/search", alice, {"query": "x" * 300_000}), 413, "larger than"),
        (served.call("POST", "/api/search", alice, {"query": "x", "collections": ["nope"]}), 404, "no collection"),
        (served.call("GET", "/api/jobs/forged-job-id", alice), 404, ""),
        (served.call("GET", "/api/nowhere", alice), 404, "no such endpoint"),
    ]
    for (status, headers, body), expected, words in cases:
        assert status == expected, body
        assert headers["content-type"] == "application/json" and b"Traceback" not in body
        assert words in json.loads(body)["error"]["message"]


def test_revoked_expired_and_foreign_tokens_are_refused_at_once(
    served: Served, tmp_path: Path, access_template: IngestedCollections
) -> None:
    token = token_of(served.lib, ALICE, "to revoke")
    assert served.call("GET", "/api/collections", token)[0] == 200
    (row,) = [t for t in pipeline.list_api_tokens(served.lib.settings, principal=ALICE) if t["name"] == "to revoke"]
    pipeline.revoke_api_token(served.lib.settings, row["id"], principal=ALICE)
    status, _, body = served.call("GET", "/api/collections", token)
    assert status == 401 and b"revoked" in body
    expiring = token_of(served.lib, ALICE, "to expire")
    tokens_json = served.lib.settings.data_dir / "access" / "tokens.json"
    data = json.loads(tokens_json.read_text())
    for entry in data["tokens"].values():
        if entry["name"] == "to expire":
            entry["expires_at"] = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
    tokens_json.write_text(json.dumps(data))
    assert served.call("GET", "/api/collections", expiring)[0] == 401
    other = IngestedCollections(served.lib.settings.model_copy(update={"data_dir": tmp_path}), {}, {})
    foreign = token_of(other, ALICE)  # issued by another deployment's library
    assert served.call("GET", "/api/documents", foreign)[0] == 401
    assert served.call("GET", "/api/documents", token.replace("_", "-", 1))[0] == 401  # malformed


def test_a_token_past_its_rate_limit_gets_a_clear_429(served: Served) -> None:
    statuses = [served.call("GET", "/api/collections", served.tokens["limited"]) for _ in range(45)]
    refused = [s for s in statuses if s[0] == 429]
    assert refused and statuses[0][0] == 200
    status, headers, body = refused[0]
    assert int(headers["retry-after"]) >= 1 and "Too many requests" in json.loads(body)["error"]["message"]


def test_every_call_is_in_the_audit_trail_with_its_channel(served: Served) -> None:
    before = len(AuditLog(served.lib.settings.data_dir).records())
    served.call("GET", "/api/documents", served.tokens["alice"])
    served.call("POST", "/api/search", served.tokens["alice"], {"query": "deductible"})
    served.call("GET", "/api/documents", "rag_000000000000_" + "x" * 43)

    def wanted(new: list[dict]) -> list[bool]:
        calls = [(r["event"], r.get("path"), r["user"], r["channel"]) for r in new]
        return [
            ("api_request", "/api/documents", ALICE.user, "api") in calls,
            ("api_request", "/api/search", ALICE.user, "api") in calls,
            ("search", None, ALICE.user, "api") in calls,
            any(r["event"] == "api_request" and r.get("outcome") == "refused_token" for r in new),
        ]

    # The records are written after each response has gone out, and an earlier test's late records may
    # still arrive: wait for these four, not for a count of lines.
    with contextlib.suppress(AssertionError):  # the assertion below says which record is missing
        wait_until(lambda: all(wanted(AuditLog(served.lib.settings.data_dir).records()[before:])), 10)
    new = AuditLog(served.lib.settings.data_dir).records()[before:]
    assert wanted(new) == [True, True, True, True]
    assert not any("x" * 43 in json.dumps(r) for r in new)  # no token in the trail


async def _mcp_session_calls(read, write, calls: list[tuple[str, dict]]) -> list:
    from mcp import ClientSession

    async with ClientSession(read, write) as session:
        await session.initialize()
        return [await session.call_tool(name, args) for name, args in calls]


def _mcp_http(served: Served, who: str, calls: list[tuple[str, dict]]) -> list:
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def run() -> list:
        headers = {"Authorization": f"Bearer {served.tokens[who]}"}
        async with create_mcp_http_client(headers=headers) as http:
            async with streamable_http_client(served.url + "/mcp", http_client=http) as (read, write):
                return await _mcp_session_calls(read, write, calls)

    return anyio.run(run)


def _listed(result) -> list:
    """A tool's list result, as its structured content carries it."""
    return result.structured_content["result"]


def _text_of(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def test_the_mcp_client_over_http_gets_citations_and_the_cited_page(served: Served) -> None:
    ask, docs, opened = _mcp_http(
        served,
        "alice",
        [
            ("ask", {"question": COVERAGE_QUESTION}),
            ("list_documents", {}),
            ("open_citation", {"doc_id": served.coverage_id, "page": 1}),
        ],
    )
    cites = ask.structured_content["citations"]
    assert cites[0]["doc_id"] == served.coverage_id and 1 in cites[0]["pages"]
    assert "[1]" in ask.structured_content["answer"]
    assert {d["file_name"] for d in _listed(docs)} == {"guides.pdf", "en_actuar_coverage_modifications.pdf"}
    assert "coverage" in _text_of(opened) and any(c.type == "image" for c in opened.content)


def test_the_mcp_server_gives_nothing_of_an_unreadable_collection(served: Served) -> None:
    board = served.lib.doc_ids["board"]
    search, docs, opened, ask = _mcp_http(
        served,
        "bob",
        [
            ("search", {"query": SECRET_QUERY}),
            ("list_documents", {}),
            ("open_citation", {"doc_id": board, "page": 1}),
            ("ask", {"question": SECRET_QUERY}),
        ],
    )
    assert _listed(search) == [] and _listed(docs) == []
    assert opened.is_error and not any(c.type == "image" for c in opened.content)
    assert ask.structured_content["citations"] == []
    shown = "".join(_text_of(r) for r in (search, docs, opened, ask))
    for secret in (f"{TOPICS['board']} report", "board.pdf", board):
        assert secret not in shown


def test_the_mcp_endpoint_refuses_a_request_without_a_valid_token(served: Served) -> None:
    status, _, body = served.call("POST", "/mcp", "rag_000000000000_" + "x" * 43, {"jsonrpc": "2.0"})
    assert status == 401 and "not valid here" in json.loads(body)["error"]["message"]
    assert served.call("POST", "/mcp", None, {"jsonrpc": "2.0"})[0] == 401


def test_the_mcp_client_over_stdio_acts_as_the_token_of_its_configuration(served: Served) -> None:
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rag_core", "mcp", "--data-dir", str(served.lib.settings.data_dir)],
        env={**os.environ, "HF_HUB_OFFLINE": "1", "RAG_API_TOKEN": served.tokens["alice"]},
        cwd=str(REPO),
    )

    async def run() -> list:
        async with stdio_client(params) as (read, write):
            return await _mcp_session_calls(read, write, [("ask", {"question": COVERAGE_QUESTION})])

    (ask,) = anyio.run(run)
    cites = ask.structured_content["citations"]
    assert cites[0]["doc_id"] == served.coverage_id and 1 in cites[0]["pages"]
    trail = AuditLog(served.lib.settings.data_dir).records()
    assert any(r["event"] == "question" and r["channel"] == "mcp" and r["user"] == ALICE.user for r in trail)
