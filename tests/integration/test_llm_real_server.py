"""One answer against a real llama.cpp server: llama-cpp-python's OpenAI-compatible server with Gemma 3 270M.

The server is built by `tools/build_llama_server.sh` (its own virtual environment and the model, under
`LLAMA_SERVER_PREFIX`, default /work/llama); the test starts it on a free port of 127.0.0.1 and stops it at
the end. It is skipped, with the reason, when that build is absent, and under CI: compiling llama.cpp takes
about 30 CPU-minutes, more than the suite's whole budget. What it checks holds whatever a 270M model writes:
the server is recognised (one generation at a time, instructions folded), its refusal of `json_schema` leads
to `json_object`, the reply is bounded so that it never ends in a format error, and the tokens are estimated.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag_core import llm
from rag_core.answering import answer
from rag_core.config import LLMSettings, Settings
from rag_core.llm import endpoint
from tests.answering_support import make_result
from tests.llm_support import model_server
from tests.ui.browser_support import free_port

PREFIX = Path(os.environ.get("LLAMA_SERVER_PREFIX", "/work/llama"))
PYTHON, MODEL = PREFIX / "venv" / "bin" / "python", PREFIX / "model.gguf"
# The server's context: the instructions and the answer's schema (sent in the prompt with `json_object`) take about
# 1,500 tokens, the sources up to `context_tokens`, and the reply its `max_tokens`.
N_CTX = 3072


def _skip_reason() -> str | None:
    if os.environ.get("CI"):
        return "under CI: building llama.cpp (tools/build_llama_server.sh) takes longer than the suite's budget"
    if not PYTHON.exists() or not MODEL.exists():
        return f"no llama.cpp server built under {PREFIX} (run tools/build_llama_server.sh, or set LLAMA_SERVER_PREFIX)"
    return None


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        str(PYTHON),
        "-m",
        "llama_cpp.server",
        "--model",
        str(MODEL),
        "--model_alias",
        "gemma3",
        "--n_ctx",
        str(N_CTX),
        "--n_threads",
        "1",
        "--chat_format",
        "gemma",
        "--logits_all",  # the server's default (true) keeps n_ctx x 262,144 logits: 3 GB at 3,072 tokens
        "false",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with model_server(["nice", "-n", "10", *command], f"http://127.0.0.1:{port}/v1", log) as url:
        yield url, log


def test_an_answer_from_a_real_llama_cpp_server(settings: Settings, real_server: tuple[str, Path]) -> None:
    url, log = real_server
    section = LLMSettings(
        model="gemma3",
        base_url=url,
        timeout_s=600.0,
        max_tokens=400,
        context_tokens=400,
        endpoint_context_tokens=N_CTX,
        max_paragraphs=1,
        paragraph_chars=300,
    )
    s = settings.model_copy(update={"llm": section})
    found = endpoint.profile(s)
    assert found.server == "llama-cpp-python" and endpoint.concurrency(s) == 1 and endpoint.fold_system(s)
    a = answer("What does Mack's model give for the reserves?", make_result(), s)
    assert llm.known_dialect(s) == "json_object"  # after its refusal of json_schema (HTTP 500)
    if a.mode == "llm":
        assert a.tokens_estimated and a.prompt_tokens > 0  # it streams no usage
        assert 1 <= len(a.paragraphs) <= 1 and all(len(p.text) <= 300 for p in a.paragraphs)
    else:  # a 270M model may cite nothing usable; the cause is named, and never a format error or a cut
        assert a.fallback and "required format" not in a.fallback and "cut off" not in a.fallback, a.fallback
    assert "POST /v1/chat/completions" in log.read_text() or "chat/completions" in log.read_text()
