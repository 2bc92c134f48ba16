"""The API as an integrator meets it, against the real server process (`python -m rag_core api` on a
free port, the access tests' library plus one real corpus PDF): a citation of any channel opens as
it is returned (its links, followed with a token that may read the document; refused to anyone
else), `/openapi.json` declares the bearer scheme and the real error shape, `/docs` needs no
internet, a wrong method gets 405, a chunked body is stopped at the limit, and a collection name
the app's rule would change is refused. The official `openai` and `mcp` clients where the channel
needs them, httpx otherwise."""

from __future__ import annotations

import json
import re
import select
import socket
import urllib.parse
from collections.abc import Iterator

import anyio
import httpx
import openai
import pymupdf
import pytest

from rag_core import pipeline
from tests.access_support import ADMIN, IngestedCollections
from tests.api_support import Served, serve_library

QUESTION = "Which insurance coverage modifications does the coverage function of actuar handle?"
MAX_FILE_MB = 1  # the server's upload bound, so that a chunked body past it costs little to send


@pytest.fixture(scope="module")
def served(access_template: IngestedCollections, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = serve_library(access_template, tmp_path_factory.mktemp("api-contract"), RAG_PARSING__MAX_FILE_MB="1")
    try:
        yield server
    finally:
        server.proc.terminate()
        server.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def chat_citation(served: Served) -> dict:
    """The first citation of a chat answer, as the official client returns it."""
    client = openai.OpenAI(base_url=served.url + "/v1", api_key=served.tokens["alice"], max_retries=0)
    reply = client.chat.completions.create(model="library", messages=[{"role": "user", "content": QUESTION}])
    cite = reply.model_extra["citations"][0]
    assert cite["doc_id"] == served.coverage_id
    return cite


def _get(served: Served, link: str, who: str | None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {served.tokens[who]}"} if who else {}
    return httpx.get(link, headers=headers, timeout=120)


def _post(served: Served, path: str, who: str, body: object) -> httpx.Response:
    headers = {"Authorization": f"Bearer {served.tokens[who]}"}
    return httpx.post(served.url + path, json=body, headers=headers, timeout=120)


def _pdf_pages(data: bytes) -> int:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        return doc.page_count


def _missing(served: Served) -> str:
    """The message of a document that does not exist at all."""
    body = {"doc_id": "0" * 64, "pages": [1], "boxes": []}
    return _post(served, "/api/citations/image", "admin", body).json()["error"]["message"]


def test_a_chat_citation_opens_as_returned_for_its_reader_only(served: Served, chat_citation: dict) -> None:
    links = chat_citation["links"]
    assert links["image"].startswith(served.url + "/api/citations/image?ref=")
    image = _get(served, links["image"], "alice")
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    assert image.content.startswith(b"\x89PNG")
    pdf = _get(served, links["pdf"], "alice")
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert _pdf_pages(pdf.content) == len(chat_citation["pages"]) < 5  # the cited pages, not the document
    assert sorted(int(p) for p in json.loads(pdf.headers["x-page-map"])) == sorted(chat_citation["pages"])
    # the permissions are checked again when a link is followed: bob may not read "guides"
    for link in links.values():
        refused = _get(served, link, "bob")
        assert refused.status_code == 404 and refused.json()["error"]["message"] == _missing(served)
        assert _get(served, link, None).status_code == 401
    # the API's own routes take the citation as the chat returned it, or its link
    posted = _post(served, "/api/citations/image", "alice", chat_citation)
    assert posted.status_code == 200 and posted.content.startswith(b"\x89PNG")
    plain = _post(served, "/api/citations/image", "alice", {**chat_citation, "boxes": []})
    assert chat_citation["boxes"] and plain.content not in (posted.content, image.content)  # the quote is highlighted
    posted = _post(served, "/api/citations/pdf", "alice", {"link": links["pdf"]})
    assert posted.status_code == 200 and _pdf_pages(posted.content) == len(chat_citation["pages"])
    one_page = {"doc_id": chat_citation["doc_id"], "page": chat_citation["pages"][0]}  # as MCP open_citation takes it
    posted = _post(served, "/api/citations/pdf", "alice", one_page)
    assert posted.status_code == 200 and _pdf_pages(posted.content) == 1


def test_only_the_cited_pages_are_served(served: Served, chat_citation: dict) -> None:
    widened = {**chat_citation, "pages": [1, 2, 3, 4, 5]}
    for path in ("/api/citations/pdf", "/api/citations/image"):
        reply = _post(served, path, "alice", widened)
        assert reply.status_code == 404 and "one cited passage" in reply.json()["error"]["message"]
    other = max(chat_citation["pages"]) + 1
    reply = _get(served, chat_citation["links"]["image"] + f"&page={other}", "alice")
    assert reply.status_code == 404 and "not one of the cited pages" in reply.json()["error"]["message"]
    damaged = re.sub(r"ref=.{8}", "ref=AAAAAAAA", chat_citation["links"]["pdf"])
    reply = _get(served, damaged, "alice")
    assert reply.status_code == 400 and "damaged" in reply.json()["error"]["message"]


def test_rest_streamed_chat_and_mcp_citations_carry_links_that_open(served: Served) -> None:
    search = _post(served, "/api/search", "alice", {"query": QUESTION, "collections": ["guides"]}).json()
    ask = _post(served, "/api/ask", "alice", {"question": QUESTION}).json()
    streamed = _post(served, "/api/ask", "alice", {"question": QUESTION, "stream": True}).text
    final = json.loads(streamed.split("event: final\ndata: ")[1].split("\n\n")[0])
    (mcp_ask, mcp_search) = _mcp(served, [("ask", {"question": QUESTION}), ("search", {"query": QUESTION})])
    client = openai.OpenAI(base_url=served.url + "/v1", api_key=served.tokens["alice"], max_retries=0)
    chunks = list(
        client.chat.completions.create(model="library", messages=[{"role": "user", "content": QUESTION}], stream=True)
    )
    links = [
        chunks[-1].model_extra["citations"][0]["links"],
        search["parents"][0]["links"],
        ask["sources"][0]["links"],
        final["sources"][0]["links"],
        mcp_ask.structured_content["citations"][0]["links"],
        mcp_search.structured_content["result"][0]["links"],
    ]
    for link in links:
        assert _get(served, link["image"], "alice").headers["content-type"] == "image/png", link
        assert _get(served, link["pdf"], "alice").content.startswith(b"%PDF"), link


def _mcp(served: Served, calls: list[tuple[str, dict]]) -> list:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def run() -> list:
        headers = {"Authorization": f"Bearer {served.tokens['alice']}"}
        async with create_mcp_http_client(headers=headers) as http:
            async with streamable_http_client(served.url + "/mcp", http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return [await session.call_tool(name, args) for name, args in calls]

    return anyio.run(run)


def test_the_openapi_document_declares_the_bearer_scheme_and_the_real_error_shape(served: Served) -> None:
    doc = httpx.get(served.url + "/openapi.json").json()
    scheme = doc["components"]["securitySchemes"]["bearerAuth"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    search = doc["paths"]["/api/search"]["post"]
    assert search["security"] == [{"bearerAuth": []}]
    assert doc["paths"]["/v1/chat/completions"]["post"]["security"] == [{"bearerAuth": []}]
    assert "422" not in json.dumps(doc["paths"]) and "HTTPValidationError" not in json.dumps(doc)
    error_ref = {"$ref": "#/components/schemas/ErrorBody"}
    for status in ("400", "401", "404", "429"):
        assert search["responses"][status]["content"]["application/json"]["schema"] == error_ref
    assert set(doc["components"]["schemas"]["ErrorDetail"]["properties"]) == {"message", "type", "status"}
    ok = search["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": "#/components/schemas/SearchResponse"}
    assert "links" in doc["components"]["schemas"]["SearchHit"]["properties"]
    # what the server answers is what the document says: an invalid body is a 400 {"error": ...}
    reply = _post(served, "/api/search", "alice", {"query": ""})
    assert reply.status_code == 400 and set(reply.json()["error"]) == {"message", "type", "status"}


def test_the_docs_page_loads_nothing_from_outside(served: Served) -> None:
    page = httpx.get(served.url + "/docs")
    assert page.status_code == 200 and "SwaggerUIBundle" in page.text
    assert "http://" not in page.text and "https://" not in page.text and "//cdn" not in page.text
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert len(assets) >= 2
    for asset in assets:
        assert httpx.get(served.url + asset).status_code == 200, asset


def test_a_wrong_method_gets_405_and_an_unknown_path_404(served: Served) -> None:
    alice = {"Authorization": f"Bearer {served.tokens['alice']}"}
    for method, path, allowed in (
        ("GET", "/api/search", "POST"),
        ("DELETE", "/api/collections", "GET"),
        ("GET", "/v1/chat/completions", "POST"),
    ):
        reply = httpx.request(method, served.url + path, headers=alice)
        assert reply.status_code == 405 and reply.headers["allow"] == allowed, (method, path)
        assert reply.json()["error"]["status"] == 405
    reply = httpx.get(served.url + "/api/nowhere", headers=alice)
    assert reply.status_code == 404 and "no such endpoint" in reply.json()["error"]["message"]


def test_a_chunked_upload_is_stopped_at_the_limit(served: Served) -> None:
    """A body of undeclared length: the server stops reading past the limit, answers 413 and closes.
    The client sends 100 MB in chunks, looking for an answer before each; what it could send is
    the limit plus what the sockets' buffers hold, far from the 100 MB."""
    url = urllib.parse.urlsplit(served.url)
    head = (
        f"POST /api/uploads?collection=alice-notes&file_name=big.pdf HTTP/1.1\r\nHost: {url.netloc}\r\n"
        f"Authorization: Bearer {served.tokens['alice']}\r\nContent-Type: application/pdf\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    chunk = b"10000\r\n" + b"0" * 0x10000 + b"\r\n"
    sent, total, reply = 0, 100 << 20, b""
    with socket.create_connection((url.hostname, url.port), timeout=60) as sock:
        sock.sendall(head)
        try:
            while sent < total and not select.select([sock], [], [], 0)[0]:
                sock.sendall(chunk)
                sent += 0x10000
            while part := sock.recv(65536):
                reply += part
        except (BrokenPipeError, ConnectionResetError):
            pass
    assert sent < (MAX_FILE_MB << 20) + (24 << 20), sent  # stopped near the limit, not drained to 65 MB more
    if reply:  # the answer arrived before the connection closed
        assert reply.split()[1] == b"413" and b"larger than" in reply, reply[:300]


def test_a_chunked_json_body_past_its_limit_gets_413(served: Served) -> None:
    def body() -> Iterator[bytes]:
        yield b'{"query": "'
        for _ in range(40):
            yield b"x" * 8192  # 320 KB, past the 256 KB of a JSON body
        yield b'"}'

    headers = {"Authorization": f"Bearer {served.tokens['alice']}", "Content-Type": "application/json"}
    chunked = httpx.post(served.url + "/api/search", content=body(), headers=headers, timeout=60)
    declared = httpx.post(served.url + "/api/search", content=b"".join(body()), headers=headers, timeout=60)
    for reply in (chunked, declared):
        assert reply.status_code == 413 and "larger than" in reply.json()["error"]["message"]
        assert set(reply.json()["error"]) == {"message", "type", "status"}  # the documented shape


def test_a_collection_name_the_app_would_change_is_refused(served: Served) -> None:
    headers = {"Authorization": f"Bearer {served.tokens['alice']}", "Content-Type": "application/pdf"}
    for name in ("../../etc", "a/b", "x" * 65):
        reply = httpx.post(
            served.url + "/api/uploads",
            params={"collection": name, "file_name": "n.pdf"},
            content=b"%PDF-1.7\n",
            headers=headers,
        )
        assert reply.status_code == 400, (name, reply.text)
        assert "only letters, digits" in reply.json()["error"]["message"]
    made = pipeline.list_collections(served.lib.settings, principal=ADMIN)
    assert not any("etc" in c or c.startswith("ab") for c in made), made


def test_the_docs_page_renders_in_a_browser_that_reaches_nothing_outside(served: Served) -> None:
    """Chromium with every request off this server aborted (as on a machine without internet): Swagger
    UI renders the operations and the bearer 'Authorize' button."""
    from playwright.sync_api import sync_playwright

    from tests.ui.browser_support import launch

    outside: list[str] = []

    def only_here(route, request) -> None:  # type: ignore[no-untyped-def]
        if request.url.startswith(served.url):
            route.continue_()
        else:
            outside.append(request.url)
            route.abort()

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page()
            page.route("**/*", only_here)
            page.goto(served.url + "/docs", wait_until="networkidle", timeout=120_000)
            page.wait_for_selector(".opblock", timeout=60_000)
            operations = page.locator(".opblock-summary-path").all_inner_texts()
            authorize = page.locator("button.authorize").count()
        finally:
            browser.close()
    assert {"/api/search", "/api/ask", "/v1/chat/completions", "/api/citations/image"} <= set(operations)
    assert authorize == 1 and outside == []
