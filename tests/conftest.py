"""Shared test fixtures: no network, every data path in a temp directory, paths to ../shared."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAG_SHARED_DIR", REPO.parent / "shared"))
CORPUS = SHARED / "corpus" / "pdfs"
DOCLING_FIXTURES = SHARED / "fixtures" / "docling"
EVAL_DIR = SHARED / "eval"


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own data dir and no OpenAI credentials from the developer's shell."""
    data = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("RAG_DATA_DIR", str(data))
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RAG_LLM__API_KEY", "RAG_LLM__BASE_URL", "RAG_LANCEDB_URI"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def settings(tmp_path: Path):
    from rag_core.config import Settings

    return Settings(data_dir=tmp_path / "data")


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    return CORPUS


@pytest.fixture(scope="session")
def docling_fixtures_dir() -> Path:
    if not DOCLING_FIXTURES.is_dir():
        pytest.skip(f"docling fixtures not found at {DOCLING_FIXTURES}")
    return DOCLING_FIXTURES
