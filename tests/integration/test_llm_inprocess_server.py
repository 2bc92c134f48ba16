"""One answer from a real model behind llama.cpp's own HTTP server: Qwen2.5-Coder-1.5B-Instruct served in a
child process by `tools/serve_model.py` (the xllamacpp wheel, no compile), reached over 127.0.0.1 as any
OpenAI-compatible endpoint. What it checks holds whatever the model writes: the server takes `json_schema`,
the tokens are the server's count (not estimated), the first paragraph's time is recorded, the reply keeps to
its bounds, and a fallback names its cause. Under CI=true the weights are installed by `make install` and the
test runs; on a machine without them it is skipped with the reason.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag_core import llm
from rag_core.answering import answer
from rag_core.config import LLMSettings, Settings
from rag_core.config.reader_section import DEFAULT_GGUF
from tests.answering_support import make_result
from tests.llm_support import model_server
from tests.ui.browser_support import free_port

REPO = Path(__file__).resolve().parents[2]
CI = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}
N_CTX = 2048

if not DEFAULT_GGUF.is_file():
    if CI:
        raise RuntimeError(f"CI=true but the model's weights are not at {DEFAULT_GGUF} (make install)")
    pytest.skip(f"the model's weights are not installed at {DEFAULT_GGUF} (make install)", allow_module_level=True)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("serve") / "server.log"
    command = [sys.executable, str(REPO / "tools" / "serve_model.py"), "--port", str(port), "--ctx", str(N_CTX)]
    with model_server(command, f"http://127.0.0.1:{port}/v1", log) as url:
        yield url


def test_an_answer_from_a_real_model_behind_llama_cpps_server(settings: Settings, served: str) -> None:
    section = LLMSettings(
        model="qwen2.5-coder-1.5b",
        base_url=served,
        timeout_s=600.0,
        max_tokens=300,
        context_tokens=300,
        endpoint_context_tokens=N_CTX,
        max_paragraphs=1,
        paragraph_chars=300,
    )
    s = settings.model_copy(update={"llm": section})
    a = answer("Qu'est-ce que la MSEP du modèle de Mack ?", make_result(n=1), s)
    assert llm.known_dialect(s) == "json_schema" and a.dialect == "json_schema"  # llama.cpp takes the schema
    if a.mode == "llm":
        assert not a.tokens_estimated and a.prompt_tokens > 200 and a.completion_tokens > 0  # the server's count
        assert a.first_paragraph_s > 0 and len(a.paragraphs) == 1 and len(a.paragraphs[0].text) <= 300
    else:  # what a 1.5B model writes may cite nothing usable: the cause is named, never a format error
        assert a.fallback and "required format" not in a.fallback, a.fallback
