"""How an MCP tool's refusal and a bug are logged, with the official `mcp` client connected in-process
to the real server (`build_server`, as over stdio, on a real library in a temp directory): a refusal
is logged once, at INFO, without a traceback, and reaches the client with its kind and the app's
message; a bug is logged with its traceback and reaches the client without its text."""

from __future__ import annotations

import logging
from pathlib import Path

import anyio
import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.api.mcp_server import build_server
from rag_core.api.security import RateLimiter
from rag_core.config import Settings
from tests.fakes import replace


def _open_citation(settings: Settings, token: str):
    from mcp import Client

    async def run():
        async with Client(build_server(settings, RateLimiter(100), stdio_token=token)) as client:
            return await client.call_tool("open_citation", {"doc_id": "0" * 64, "page": 1})

    return anyio.run(run)


@pytest.fixture
def library(tmp_path: Path) -> tuple[Settings, str]:
    settings = Settings(data_dir=tmp_path / "data")
    token, _ = pipeline.create_api_token(settings, "mcp errors", principal=Principal.local_operator())
    return settings, token


def _tool_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if "open_citation" in r.getMessage()]


def test_a_refusal_is_logged_once_without_a_traceback_and_says_its_kind(
    library: tuple[Settings, str], caplog: pytest.LogCaptureFixture
) -> None:
    settings, token = library
    with caplog.at_level(logging.INFO):
        result = _open_citation(settings, token)
    assert result.is_error
    assert (
        result.content[0].text == "Error executing tool open_citation: not_found: This document is not in the library."
    )
    (logged,) = _tool_records(caplog)
    assert logged.levelno == logging.INFO and logged.exc_info is None
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_bug_is_logged_with_its_traceback_and_its_text_stays_on_the_server(
    library: tuple[Settings, str], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, token = library

    def fake_load_chunks_with_a_bug(self, doc_id):
        raise RuntimeError("internal detail")

    replace(monkeypatch, pipeline.LibraryClient, "load_chunks", fake_load_chunks_with_a_bug)  # the tool's call
    with caplog.at_level(logging.INFO):
        result = _open_citation(settings, token)
    assert result.is_error and result.content[0].text == "Error executing tool open_citation"
    (logged,) = _tool_records(caplog)
    assert logged.levelno == logging.ERROR and logged.exc_info is not None
