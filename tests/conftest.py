"""Shared test fixtures: no network, every data path in a temp directory, paths to ../shared.

Without ../shared (or Chromium for the browser tests) a developer's run skips what needs them;
with CI=true the run stops at once instead, so that a green CI always means the whole suite ran.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.browser_support import CHROMIUM

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# The answering tests pin the extractive composition as ranked; the reader's own tests (test_reading*.py) set a
# reader explicitly. Without this, every ask in the suite (and in the app servers it starts) would load the model.
os.environ.setdefault("RAG_READER__BACKEND", "none")

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAG_SHARED_DIR", REPO.parent / "shared"))
CORPUS = SHARED / "corpus" / "pdfs"
DOCLING_FIXTURES = SHARED / "fixtures" / "docling"
EVAL_DIR = SHARED / "eval"
CI = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def pytest_configure(config: pytest.Config) -> None:
    if not CI:
        return
    missing = [
        f"{what} ({path})"
        for what, path in (
            ("the corpus", CORPUS),
            ("the Docling fixtures", DOCLING_FIXTURES),
            ("the dev sets", EVAL_DIR),
        )
        if not path.is_dir()
    ]
    if missing:
        missing.append(f"set RAG_SHARED_DIR (now {SHARED})")
    if not CHROMIUM.exists():
        missing.append(f"Chromium for the browser tests ({CHROMIUM}: apt-get install chromium)")
    if missing:
        raise pytest.UsageError("CI=true and the suite cannot run whole; missing: " + "; ".join(missing))


# The order in which the test processes take the files (pytest-xdist's `--dist loadfile` hands them out in
# collection order): the pages' tests first (most files take 30-80 s: a server, Chromium), the unit tests last (all
# short), so that when one process takes the last long file the other still has short ones to run.
DIRECTORY_ORDER = {"ui": 0, "integration": 1, "unit": 2}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`DIRECTORY_ORDER`; within a directory, files and tests keep their order (a stable sort)."""
    items.sort(key=lambda item: DIRECTORY_ORDER.get(item.path.parent.name, 1))


def shared(path: Path, what: str) -> Path:
    """`path` from ../shared; a skip when it is absent (a failure under CI=true)."""
    if path.exists():
        return path
    message = f"{what} not found at {path} (set RAG_SHARED_DIR)"
    if CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own data dir and no OpenAI credentials from the developer's shell."""
    data = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("RAG_DATA_DIR", str(data))
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RAG_LLM__API_KEY", "RAG_LLM__BASE_URL", "RAG_LANCEDB_URI"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def _main_module_kept() -> Iterator[None]:
    """The test process's own `__main__` back after every test.

    Streamlit's AppTest runs the app as `sys.modules["__main__"]` and leaves it there; a process that a later
    test starts with multiprocessing's spawn method (tests/integration/test_robustness.py,
    test_jobs_claim.py) would then run the whole app again before its own work, multiprocessing re-running a
    script `__main__` in each child: 2-4 s of CPU each (tests/ui/test_main_module.py)."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


@pytest.fixture
def settings(tmp_path: Path):
    from rag_core.config import Settings

    return Settings(data_dir=tmp_path / "data")


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    return shared(CORPUS, "the corpus")


@pytest.fixture(scope="session")
def docling_fixtures_dir() -> Path:
    return shared(DOCLING_FIXTURES, "the Docling fixtures")


@pytest.fixture(scope="session")
def parse_cache(tmp_path_factory: pytest.TempPathFactory):
    """Parses shared by every test process of this run (tests/parse_cache.py)."""
    from tests.parse_cache import ParseCache, shared_base

    return ParseCache(shared_base(tmp_path_factory) / "parse-cache")


@pytest.fixture(scope="session")
def access_template(tmp_path_factory: pytest.TempPathFactory):
    """Three collections ingested once a run (tests/access_support.py), shared by every test process; tests copy
    it (`copy_library`) before changing it."""
    from tests.access_support import shared_template
    from tests.parse_cache import shared_base

    return shared_template(shared_base(tmp_path_factory) / "access-template")
