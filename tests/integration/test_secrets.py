"""The API key never reaches logs, stored answers, exported files or the page.

A distinctive fake key is set through the environment (OPENAI_API_KEY, as a user would), the
chat endpoint is the real local server of tests/fake_chat_server.py, and the whole product runs:
ingestion, questions answered by the model (one good answer, and errors whose bodies echo the
key), a reported citation and its export, an evaluation export, the CLI, and the Ask and Home
pages in AppTest. Then every file of the data dir, every export, the captured logs (DEBUG),
the CLI's output and the rendered pages are searched for the key. Each search is shown to work
on a value that must be there (the question, the Authorization header the server received).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.evaluation import run_evaluation
from rag_core.evaluation.citation_reports import read_reports, report_citation
from rag_core.understanding import conversation_path
from tests import bad_files
from tests.fake_chat_server import FakeChatServer, Reply

LOCAL = Principal.local_operator()  # the local operator (administrator): these tests are not about access
REPO = Path(__file__).resolve().parents[2]
KEY = "fakekey-LEAKCHECK-3f8e1a9c5b7d2e6f"  # not shaped like an OpenAI key: only the exact-value redaction can hide it
QUESTION = "How are the Bornhuetter development factors computed?"
QUOTE = "Development factors for Bornhuetter are computed from cumulative paid triangles"


def files_containing(root: Path, needle: str) -> list[Path]:
    """Every regular file under `root` whose bytes contain `needle` (UTF-8), binary files included."""
    raw = needle.encode()
    return [p for p in sorted(root.rglob("*")) if p.is_file() and raw in p.read_bytes()]


def proto_text(at: AppTest) -> str:
    """Everything the page sends to the browser: each element's protobuf, as text."""
    parts: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(parts)


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as s:
        yield s


PLAN = {"kind": "explanation", "reason": "How the factors are derived.", "sub_questions": []}


def good_answer() -> dict:
    return {
        "paragraphs": [
            {"text": "Development factors come from cumulative paid triangles.", "source_ids": ["S1"], "quote": QUOTE}
        ],
        "missing_information": "",
    }


def test_the_api_key_is_found_nowhere(
    tmp_path: Path, server: FakeChatServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    data = tmp_path / "data"
    monkeypatch.setenv("RAG_DATA_DIR", str(data))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("RAG_LLM__MODEL", "test-model")
    monkeypatch.setenv("RAG_LLM__TIMEOUT_S", "10")
    settings = Settings()
    assert settings.llm_key() is not None and settings.llm_key().get_secret_value() == KEY

    # ingestion and questions through the model: a good answer, then errors that echo the key
    pdf_dir = tmp_path / "pdfs"
    pdf_dir.mkdir()
    pdf = bad_files.make_pdf(pdf_dir / "bf.pdf", "Bornhuetter")
    assert pipeline.ingest([pdf], settings, principal=LOCAL)[0].status == "ingested"
    # Each question makes two model calls: the router (budget) then the answer. Separate
    # conversations, so no follow-up rewrite call; each error is served to both calls.
    server.answer(PLAN)
    server.answer(good_answer())
    for failure in (
        Reply(
            status=401, body={"error": {"message": f"Incorrect API key provided: {KEY}.", "code": "invalid_api_key"}}
        ),
        Reply(status=500, body=f"internal error for key {KEY}"),
        Reply(content=f"not json, key {KEY}"),
    ):
        server.queue(failure, failure)
    answers = [pipeline.ask(QUESTION, settings, conversation_id=f"leak-check-{i}", principal=LOCAL) for i in range(4)]
    assert [a.mode for a in answers] == ["llm", "extractive", "extractive", "extractive"], [a.warnings for a in answers]
    assert answers[0].budget_reason == PLAN["reason"], "the router's reply was used"
    assert all(h["authorization"] == f"Bearer {KEY}" for h in server.headers)  # the key was really used

    # exports: a reported citation, the reports download, an evaluation's results.json
    source = answers[0].sources[0]
    report_citation(
        data,
        question=QUESTION,
        language="en",
        source_id=source.id,
        pdf=source.file_name,
        pages=source.pages,
        quote=QUOTE,
        comment=f"checked with {settings.llm.model}",
    )
    exports = tmp_path / "exports"
    exports.mkdir()
    (exports / "reported_citations.jsonl").write_bytes(read_reports(data))
    row = {
        "id": "q1",
        "pdf": "bf.pdf",
        "question": QUESTION,
        "language": "en",
        "type": "factual",
        "pages": [1],
        "answer": "",
        "quote": QUOTE,
    }
    results = run_evaluation([row], pdf_dir, settings, ["lexical", "bm25s-pages"], "leak-check", principal=LOCAL)
    (exports / "results.json").write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")

    # the command line, with the key in its environment, at DEBUG through a 401 that echoes it
    cli_401 = Reply(status=401, body={"error": {"message": f"Incorrect API key provided: {KEY}."}})
    server.queue(cli_401, cli_401)  # router, answer
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    cli = subprocess.run(
        [
            sys.executable,
            "-c",
            "import logging, sys; from rag_core.cli.main import main; "
            "logging.basicConfig(level=logging.DEBUG); sys.exit(main(sys.argv[1:]))",
            "ask",
            QUESTION,
            "--conversation",
            "cli-check",
            "--json",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert cli.returncode == 0, cli.stderr[-2000:]

    # the pages: Home (backends in use) and Ask with a model answer and a model failure echoing the key
    # first question: router, answer; the second is a follow-up: rewrite, router, answer (all refused)
    server.answer(PLAN)
    server.answer(good_answer())
    page_401 = Reply(status=401, body={"error": {"message": f"Incorrect API key provided: {KEY}."}})
    server.queue(page_401, page_401, page_401)
    at = AppTest.from_file(str(REPO / "rag_app" / "app.py"), default_timeout=300).run()
    home = proto_text(at)
    at.switch_page("views/ask.py").run()
    at.chat_input(key="ask_input").set_value(QUESTION).run()
    at.chat_input(key="ask_input").set_value(QUESTION + " Again?").run()
    assert not at.exception, at.exception
    page = proto_text(at)

    # the search works: values that must be there are found ...
    assert files_containing(data, QUESTION), "the stored answers hold the question"
    assert conversation_path(settings, "cli-check", LOCAL.user).is_file()  # the CLI acts as the local operator
    assert files_containing(exports, QUESTION) and files_containing(data / "lancedb", "Bornhuetter")
    assert "refused the API key (401)" in page and QUESTION in page and "test-model" in home
    assert "[redacted]" in caplog.text and QUESTION in cli.stdout
    # every scripted reply was asked for (16) and two repair requests: the reply that is not JSON, and
    # the follow-up rewrite whose reply lacks its field (every call now goes through the one streamed client)
    repairs = sum(
        "Reply again with the corrected JSON object only" in json.dumps(r["messages"][-1]) for r in server.requests
    )
    assert repairs == 2 and len(server.requests) == 8 + 2 + 5 + 1 + 2
    # ... and the key is nowhere
    assert files_containing(data, KEY) == []
    assert files_containing(exports, KEY) == []
    assert KEY not in caplog.text
    assert KEY not in cli.stdout and KEY not in cli.stderr
    assert KEY not in home and KEY not in page
    assert KEY not in json.dumps([a.model_dump(mode="json") for a in answers])
