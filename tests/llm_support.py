"""Settings pointing at the fake chat server, and the model replies the LLM tests script on it."""

from __future__ import annotations

import subprocess
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
from pydantic import SecretStr

from rag_core.config import LLMSettings, Settings
from tests.fake_chat_server import FakeChatServer

KEY = "sk-test-SECRET-4f9a8b7c6d5e"
QUESTION_FR = "Qu'est-ce que la MSEP du modèle de Mack ?"
MSEP_QUOTE = "erreur quadratique moyenne de prédiction (MSEP)"


def llm_settings(
    settings: Settings, server: FakeChatServer | None = None, key: str | None = KEY, **llm: object
) -> Settings:
    section = LLMSettings(
        model="test-model",
        api_key=SecretStr(key) if key else None,
        base_url=server.base_url if server else None,
        **{"timeout_s": 1.0, **llm},  # type: ignore[arg-type]
    )
    return settings.model_copy(update={"llm": section})


def good(*paragraphs: dict, missing: str = "") -> dict:
    return {"paragraphs": list(paragraphs), "missing_information": missing}


def para(text: str, ids: list[str], quote: str) -> dict:
    return {"text": text, "source_ids": ids, "quote": quote}


def messages(server: FakeChatServer, n: int = 0) -> tuple[str, str]:
    body = server.requests[n]
    system, user = body["messages"]
    assert system["role"] == "system" and user["role"] == "user"
    content = user["content"]
    if isinstance(content, list):
        content = "\n".join(p.get("text", "") for p in content if p["type"] == "text")
    return system["content"], content


@contextmanager
def model_server(command: Sequence[str], url: str, log: Path, wait_s: float = 180) -> Iterator[str]:
    """A model server started from `command` (its output in `log`), once `url`/models answers; stopped after."""
    with log.open("wb") as out:
        proc = subprocess.Popen(list(command), stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + wait_s
        while True:
            if proc.poll() is not None:
                pytest.fail(f"the model server exited ({proc.returncode}): {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"the model server did not start: {log.read_text()[-2000:]}")
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
