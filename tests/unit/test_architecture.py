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
    found = _imports("pymupdf")
    assert found and all(path.startswith("parsing/") for path in found)


def test_llm_libraries_live_in_the_model_client_only() -> None:
    assert _imports("langchain_openai") | _imports("openai") == {"llm.py"}


def test_the_layout_shows_the_stages() -> None:
    """Issue 14: a few shared modules at the top, a room per stage, no file a newcomer cannot read,
    and no stage reaching into another's room."""
    top = {p.name for p in CORE.glob("*.py")} - {"__init__.py", "__main__.py"}
    assert 0 < len(top) <= 10, sorted(top)
    for stage in ("parsing", "chunking", "embedding", "store", "understanding", "answering", "evaluation", "pipeline"):
        assert (CORE / stage / "__init__.py").is_file(), stage
    project = CORE.parent
    long_files = [str(p.relative_to(project)) for folder in ("rag_core", "views", "ui", "tests", "benchmarks")
                  for p in (project / folder).rglob("*.py") if len(p.read_text().splitlines()) > 400]
    long_files += [name for name in ("app.py",) if len((project / name).read_text().splitlines()) > 400]
    assert long_files == []
    assert _stage_imports("understanding", "answering") == set()
    assert _stage_imports("chunking", "citations") == set()
    assert _stage_imports("pipeline", "answering") and _stage_imports(
        "answering", "citations"
    )  # the check sees imports


def _stage_imports(stage: str, other: str) -> set[str]:
    """Files of `stage` that import `rag_core.<other>` in either form (`from rag_core.X` or `from rag_core import X`)."""
    pattern = re.compile(
        rf"^\s*(from\s+rag_core\.{other}\b|import\s+rag_core\.{other}\b|from\s+rag_core\s+import\s+[^\n]*\b{other}\b)",
        re.M,
    )
    return {str(p.relative_to(CORE)) for p in (CORE / stage).rglob("*.py") if pattern.search(p.read_text())}


def test_snowball_stemming_lives_in_one_module() -> None:
    assert _imports("Stemmer") == {"stemming.py"}


def test_a_misspelt_setting_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValidationError):
        Settings(retrieval={"candidat_k": 10})
    monkeypatch.setenv("RAG_LLM__API_KEY", "sk-test-123")
    settings = Settings()
    assert "sk-test-123" not in repr(settings) and "sk-test-123" not in settings.model_dump_json()
