"""House rules that keep the layout honest: the core never imports the UI, each library has one home."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from rag_core.config import Settings

CORE = Path(__file__).resolve().parents[2] / "rag_core"


def _imports(module: str) -> set[str]:
    pattern = re.compile(rf"^\s*(import|from)\s+{module}\b", re.M)
    return {str(p.relative_to(CORE)) for p in CORE.rglob("*.py") if pattern.search(p.read_text())}


def test_rag_core_never_imports_streamlit() -> None:
    assert _imports("streamlit") == set()


def test_lancedb_lives_in_store_only() -> None:
    found = _imports("lancedb")
    assert found and all(path.startswith("store/") for path in found)


def test_pymupdf_lives_in_parsing_only() -> None:
    assert all(path.startswith("parsing/") for path in _imports("pymupdf"))


def test_llm_libraries_live_in_the_model_client_only() -> None:
    assert _imports("langchain_openai") | _imports("openai") == {"llm.py"}


def test_a_misspelt_setting_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValidationError):
        Settings(retrieval={"candidat_k": 10})
    monkeypatch.setenv("RAG_LLM__API_KEY", "sk-test-123")
    settings = Settings()
    assert "sk-test-123" not in repr(settings) and "sk-test-123" not in settings.model_dump_json()
