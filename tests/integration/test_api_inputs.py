"""The API as an integrator meets it, against the real server process and the official clients
(`openai`, `mcp` over Streamable HTTP and over stdio) and the real command line: one check of a
question on every channel (too long, blank, not valid text: refused before any work, with the same
message), a stream that fails ends with an error event the OpenAI client raises, MCP refusals say
their kind, `--groups` is read as header mode reads its header, and every request leaves an audit
record: without a token, with a revoked one (its id, never its secret), a refused citation (its
document), an MCP tool over stdio, a command-line action (channel `cli`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import openai
import pytest

from rag_core import pipeline
from rag_core.access import AuditLog
from tests.access_support import ALICE, BOB, IngestedCollections
from tests.api_support import Served, openai_client, served_library, token_of
from tests.integration.test_api import COVERAGE_QUESTION, _mcp_http, _source_of, _text_of
from tests.jobs_support import REPO, wait_until

LONG_QUESTION = "How are deductibles applied to each claim? " * 2400  # about 100,000 characters
SURROGATE = "What is a deductible \ud83d?"


@pytest.fixture(scope="module")
def served(access_template: IngestedCollections, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with served_library(access_template, tmp_path_factory.mktemp("api-inputs")) as server:
        yield server


def _chat(client: openai.OpenAI, question: str, stream: bool = False):
    """One chat completion through the official client; the body as JSON with escapes (`json.dumps`'s
    default, as curl or a browser sends it): the client's own encoder cannot send a lone surrogate."""
    from openai import Stream
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    body = {"model": "library", "messages": [{"role": "user", "content": question}], "stream": stream}
    reply = client.post(
        "/chat/completions",
        content=json.dumps(body).encode(),
        cast_to=ChatCompletion,
        stream=stream,
        stream_cls=Stream[ChatCompletionChunk],
    )
    return list(reply) if stream else reply


def _trail(served: Served) -> list[dict]:
    return AuditLog(served.lib.settings.data_dir).records()


def _rest_error(served: Served, path: str, body: dict, who: str = "alice") -> tuple[int, str]:
    status, headers, raw = served.call("POST", path, served.tokens[who], body)
    assert headers["content-type"] == "application/json" and b"Traceback" not in raw
    return status, json.loads(raw)["error"]["message"]


def _mcp_error(result) -> str:
    assert result.is_error
    return _text_of(result)


def test_a_question_over_the_limit_is_refused_before_any_work_with_the_same_reason_everywhere(served: Served) -> None:
    before = len(_trail(served))
    status, rest = _rest_error(served, "/api/ask", {"question": LONG_QUESTION})
    assert status == 400 and "characters long; at most 2000" in rest
    for stream in (False, True):
        with pytest.raises(openai.BadRequestError) as refused:
            _chat(openai_client(served, "alice"), LONG_QUESTION, stream)
        assert refused.value.status_code == 400 and rest in str(refused.value)
    ask, search = _mcp_http(
        served, "alice", [("ask", {"question": LONG_QUESTION}), ("search", {"query": LONG_QUESTION})]
    )
    assert _mcp_error(ask) == f"Error executing tool ask: limit: {rest}"
    assert _mcp_error(search) == f"Error executing tool search: limit: {rest}"
    # refused before any work: no question and no search was recorded for it
    wait_until(lambda: len(_trail(served)) >= before + 4, 10)
    assert not [r for r in _trail(served)[before:] if r["event"] in ("question", "search")]


def test_a_lone_surrogate_is_a_400_and_a_streamed_error_the_openai_client_raises(served: Served) -> None:
    client = openai_client(served, "alice")
    with pytest.raises(openai.BadRequestError, match="not valid text at position 22"):
        _chat(client, SURROGATE)
    with pytest.raises(openai.APIError, match="not valid text at position 22"):
        _chat(client, SURROGATE, stream=True)
    # the same client goes on: the next request, streamed, is answered with its citations
    chunks = _chat(client, COVERAGE_QUESTION, stream=True)
    assert chunks[-1].model_extra["citations"][0]["doc_id"] == served.coverage_id
    status, message = _rest_error(served, "/api/ask", {"question": SURROGATE})
    assert status == 400 and "not valid text at position 22" in message


def test_a_blank_question_is_a_400_on_rest_and_v1_and_an_invalid_tool_call_on_mcp(served: Served) -> None:
    for path, body in (("/api/ask", {"question": " \n\t "}), ("/api/search", {"query": "   "})):
        status, message = _rest_error(served, path, body)
        assert status == 400 and "empty or only blanks" in message
    with pytest.raises(openai.BadRequestError, match="empty or only blanks"):
        _chat(openai_client(served, "alice"), "   ")
    (ask,) = _mcp_http(served, "alice", [("ask", {"question": "  "})])
    assert _mcp_error(ask).startswith("Error executing tool ask: invalid: The question (or search query) is empty")


def test_mcp_refusals_say_their_kind_and_the_apps_reason(served: Served) -> None:
    docs, opened, search, ask = _mcp_http(
        served,
        "bob",
        [
            ("list_documents", {"collection": "board"}),
            ("open_citation", {"doc_id": served.coverage_id, "page": 1}),
            ("search", {"query": "deductible", "collections": ["nowhere"]}),
            ("ask", {"question": "\x00"}),
        ],
    )
    rest = _rest_error(served, "/api/search", {"query": "deductible", "collections": ["board"]}, "bob")
    assert rest[0] == 404  # the REST API's refusal of the same collection, which MCP now repeats
    assert _mcp_error(docs) == f"Error executing tool list_documents: not_found: {rest[1]}"
    assert _mcp_error(opened) == "Error executing tool open_citation: not_found: This document is not in the library."
    assert _mcp_error(search).startswith("Error executing tool search: not_found: There is no collection 'nowhere'")
    assert _mcp_error(ask).startswith("Error executing tool ask: invalid: The question holds a character")
    (page,) = _mcp_http(served, "alice", [("open_citation", {"doc_id": served.coverage_id, "page": 999})])
    assert _mcp_error(page) == "Error executing tool open_citation: not_found: The cited page is not in this document."


def _stdio(served: Served, token: str, calls, between=None, errlog=None) -> list:
    """Tool calls over stdio as `token`; `between(i)` runs before call i (a revocation, say)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rag_core", "mcp", "--data-dir", str(served.lib.settings.data_dir)],
        env={**os.environ, "HF_HUB_OFFLINE": "1", "RAG_API_TOKEN": token},
        cwd=str(REPO),
    )

    async def run() -> list:
        async with stdio_client(params, errlog=errlog or sys.stderr) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                results = []
                for i, (name, args) in enumerate(calls):
                    if between is not None:
                        between(i)
                    results.append(await session.call_tool(name, args))
                return results

    return anyio.run(run)


def _token_id(served: Served, who, name: str) -> str:
    (row,) = [t for t in pipeline.list_api_tokens(served.lib.settings, principal=who) if t["name"] == name]
    return row["id"]


def test_over_stdio_a_revoked_token_is_forbidden_logged_once_without_a_traceback_and_audited(
    served: Served, tmp_path: Path
) -> None:
    token = token_of(served.lib, ALICE, "stdio, revoked")
    token_id = _token_id(served, ALICE, "stdio, revoked")

    def revoke_before_second(i: int) -> None:
        if i == 1:
            pipeline.revoke_api_token(served.lib.settings, token_id, principal=ALICE)

    before = len(_trail(served))
    with (tmp_path / "stderr.txt").open("w") as errlog:
        first, second = _stdio(
            served,
            token,
            [("open_citation", {"doc_id": served.coverage_id, "page": 999}), ("list_documents", {})],
            revoke_before_second,
            errlog,
        )
    assert _mcp_error(first).startswith("Error executing tool open_citation: not_found: The cited page")
    assert _mcp_error(second).startswith("Error executing tool list_documents: forbidden: This API token is not valid")
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()
    # the stdio server's tool calls are in the trail as api_request, with the token's id and the document
    calls = [r for r in _trail(served)[before:] if r["event"] == "api_request"]
    assert [(r["path"], r["status"], r["channel"], r.get("pat_id")) for r in calls] == [
        ("tools/open_citation", 404, "mcp", token_id),
        ("tools/list_documents", 401, "mcp", token_id),
    ]
    assert calls[0]["user"] == ALICE.user and calls[0]["doc_id"] == served.coverage_id
    assert calls[1]["outcome"] == "refused_token" and token.split("_")[-1] not in json.dumps(calls)


def test_a_request_without_a_token_is_in_the_audit_trail(served: Served) -> None:
    before = len(_trail(served))
    assert served.call("GET", "/api/documents")[0] == 401
    assert served.call("POST", "/mcp", None, {"jsonrpc": "2.0"})[0] == 401
    wait_until(lambda: len(_trail(served)) >= before + 2, 10)
    rows = [(r["event"], r["path"], r["status"], r["channel"], r["outcome"]) for r in _trail(served)[before:]]
    assert ("api_request", "/api/documents", 401, "api", "no_token") in rows
    assert ("api_request", "/mcp", 401, "mcp", "no_token") in rows


def test_a_revoked_token_is_audited_with_its_id_and_never_its_secret(served: Served) -> None:
    token = token_of(served.lib, BOB, "revoked over http")
    token_id = _token_id(served, BOB, "revoked over http")
    pipeline.revoke_api_token(served.lib.settings, token_id, principal=BOB)
    before = len(_trail(served))
    assert served.call("GET", "/api/collections", token)[0] == 401
    assert served.call("GET", "/api/collections", "rag_" + "0" * 12 + "_" + "y" * 43)[0] == 401  # never issued
    wait_until(lambda: len(_trail(served)) >= before + 2, 10)
    new = _trail(served)[before:]
    assert [(r["outcome"], r.get("pat_id")) for r in new] == [("refused_token", token_id), ("refused_token", "0" * 12)]
    assert token.split("_")[-1] not in json.dumps(new) and "y" * 43 not in json.dumps(new)


def test_a_refused_citation_is_audited_with_the_document_it_asked_for(served: Served) -> None:
    board = served.lib.doc_ids["board"]
    source = _source_of(served, board)
    before = len(_trail(served))
    for path in ("/api/citations/image", "/api/citations/pdf"):
        assert served.call("POST", path, served.tokens["bob"], {"source": source})[0] == 404
    (opened,) = _mcp_http(served, "bob", [("open_citation", {"doc_id": board, "page": 1})])
    assert opened.is_error
    expected = {
        ("/api/citations/image", 404, board, None, None),
        ("/api/citations/pdf", 404, board, None, None),
        ("/mcp", 200, board, "open_citation", 404),  # over HTTP: the tool, the document and the tool's own status
    }

    def rows() -> set[tuple]:  # each record is written once its response has gone out: waited for
        keys = ("path", "status", "doc_id", "tool", "tool_status")
        return {tuple(r.get(k) for k in keys) for r in _trail(served)[before:]}

    wait_until(lambda: expected <= rows(), 30)


def _cli(served: Served, *args: str, **env: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "rag_core", *args, "--data-dir", str(served.lib.settings.data_dir)]
    return subprocess.run(
        command, cwd=REPO, env={**os.environ, "HF_HUB_OFFLINE": "1", **env}, capture_output=True, text=True, timeout=300
    )


def test_a_comma_group_name_on_the_command_line_is_read_as_header_mode_reads_it(served: Served) -> None:
    carol = ("tokens", "create", "--as-user", "carol@example.com", "--json")
    refused = _cli(served, *carol, "--name", "split", "--groups", "Finance, board")
    assert refused.returncode == 2 and "--groups cannot be read without guessing" in refused.stderr
    assert not [t for t in pipeline.list_api_tokens(served.lib.settings, principal=ALICE) if t["name"] == "split"]
    made = _cli(served, *carol, "--name", "json", "--groups", '["Finance, board", "staff"]')
    assert made.returncode == 0, made.stderr
    assert sorted(json.loads(made.stdout)["groups"]) == ["Finance, board", "staff"]
    separated = _cli(
        served, *carol, "--name", "semi", "--groups", "Finance, board;staff", RAG_AUTH__GROUPS_SEPARATOR=";"
    )
    assert separated.returncode == 0, separated.stderr
    assert sorted(json.loads(separated.stdout)["groups"]) == ["Finance, board", "staff"]


def test_a_command_line_action_is_audited_with_the_channel_cli(served: Served) -> None:
    before = len(_trail(served))
    made = _cli(served, "tokens", "create", "--as-user", "dave@example.com", "--name", "cli channel")
    assert made.returncode == 0, made.stderr
    assert _cli(served, "search", "deductible").returncode == 0  # as the local operator
    rows = [(r["event"], r["user"], r["channel"]) for r in _trail(served)[before:]]
    assert ("token_created", "dave@example.com", "cli") in rows
    assert ("search", "(local operator)", "cli") in rows


def test_a_body_refused_at_the_door_is_in_the_audit_trail(served: Served) -> None:
    """The body limit answers before any route: its 413 is recorded like every other request."""
    before = len(_trail(served))
    big = {"query": "x" * 300_000}  # past the 256 KB of a JSON body
    assert served.call("POST", "/api/search", served.tokens["alice"], big)[0] == 413
    wait_until(lambda: any(r.get("status") == 413 for r in _trail(served)[before:]), 10)
    (row,) = [r for r in _trail(served)[before:] if r.get("status") == 413]
    assert (row["event"], row["path"], row["channel"]) == ("api_request", "/api/search", "api")
