"""The API guide (docs/api.md, once the README's "API" section) works as written: its shell commands
(curl, with a token made by the command it names), its Python example (the `openai` client) and its MCP
client configuration (both servers, stdio and Streamable HTTP, through the official `mcp` client) are run against the
real server process. Only the address's port, the token and the library folder are replaced, as a
reader would replace them.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests.access_support import ALICE, IngestedCollections, copy_library, make_pdf, share_guides
from tests.api_support import Served, start_api
from tests.jobs_support import REPO

README_URL = "http://127.0.0.1:8502"


def _blocks(language: str) -> list[str]:
    """The API guide's code blocks of one language (docs/api.md, moved there from the README)."""
    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


@pytest.fixture(scope="module")
def served(access_template: IngestedCollections, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    lib = copy_library(access_template, tmp_path_factory.mktemp("api-readme"))
    share_guides(lib)
    # the token as the API guide says to make one without the app
    made = subprocess.run(
        [sys.executable, "-m", "rag_core", "tokens", "create", "--name", "notebook", "--as-user", ALICE.user]
        + ["--groups", ",".join(ALICE.groups), "--data-dir", str(lib.settings.data_dir)],
        cwd=REPO,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    (token,) = re.findall(r"rag_[0-9a-f]{12}_[A-Za-z0-9_-]+", made.stdout)
    proc, url = start_api(lib)
    try:
        yield Served(lib, url, proc, {"alice": token}, "")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _as_run_here(code: str, served: Served) -> str:
    return code.replace(README_URL, served.url).replace("rag_...", served.tokens["alice"])


def _documents(text: str) -> list:
    """The JSON documents curl printed one after the other."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while at < len(text.rstrip()):
        value, at = decoder.raw_decode(text, at)
        found.append(value)
        while at < len(text) and text[at].isspace():
            at += 1
    return found


def test_the_curl_examples_search_and_upload(served: Served, tmp_path: Path) -> None:
    (script,) = _blocks("sh")
    make_pdf(tmp_path / "report.pdf", "Numbat reserving report")
    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", _as_run_here(script, served)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    search, upload = _documents(run.stdout)
    assert "parents" in search and "error" not in search, search
    assert (upload["file_name"], upload["collection"], upload["state"]) == ("report.pdf", "reserving", "queued")


def test_the_python_example_prints_the_answer_and_its_citations(served: Served) -> None:
    (code,) = _blocks("python")
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        exec(compile(_as_run_here(code, served), "docs/api.md", "exec"), {})  # the guide's own example
    text = shown.getvalue()
    assert "error" not in text.lower() and text.count("\n") >= 2, text
    # the second print is the citations list: a list literal (empty when the library has no answer)
    assert text.rstrip().splitlines()[-1].startswith("["), text


def test_the_mcp_configuration_starts_both_servers(served: Served) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    (config,) = _blocks("json")
    servers = json.loads(_as_run_here(config, served).replace("/srv/rag/data", str(served.lib.settings.data_dir)))[
        "mcpServers"
    ]
    stdio, http = servers["library"], servers["library-http"]
    # "python" as a client finds it on its PATH: this venv's
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    params = StdioServerParameters(
        command=stdio["command"],
        args=stdio["args"],
        env={**os.environ, "PATH": path, "HF_HUB_OFFLINE": "1", **stdio["env"]},
        cwd=str(REPO),
    )

    async def listed(read, write) -> list:
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            docs = await session.call_tool("list_documents", {})
            return [sorted(t.name for t in tools.tools), docs.structured_content["result"]]

    async def run() -> list:
        async with stdio_client(params) as (read, write):
            by_stdio = await listed(read, write)
        async with create_mcp_http_client(headers=http["headers"]) as client:
            async with streamable_http_client(http["url"], http_client=client) as (read, write):
                return [by_stdio, await listed(read, write)]

    for tools, docs in anyio.run(run):
        assert tools == ["ask", "list_documents", "open_citation", "search"]
        assert {d["file_name"] for d in docs} == {"guides.pdf"}  # alice reads "guides" only
