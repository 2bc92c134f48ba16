"""Page analysis in helper processes: the same document as one process, in order, and robust to failures.

Real spawned processes and real corpus pages (tables, figures and a scanned page that
OCR reads). The scheduler tests use builtins as the remote function so that nothing of
this module needs to be importable in the helper.
"""

from __future__ import annotations

import json
import logging
import math
import multiprocessing
import os
import sys
import time
import types
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pymupdf
import pytest

from rag_core.config import Settings
from rag_core.parsing import page_workers, parse, pymupdf_parser

# the contents pages (2, 3: text, not tables), a triangle table (7) and figures (8, 9) of the ChainLadder
# vignette, and the image-only page 82 of the CAS report (OCR): three batches, one of them OCR
PAGES = {
    "en_ChainLadder_claims_reserving_with_R_vignette.pdf": [1, 2, 3, 7, 8, 9],
    "en_CAS_tail_factor_working_party_2013.pdf": [82],
}


@pytest.fixture(scope="module")
def corpus_pages(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("pages") / "pages.pdf"
    out = pymupdf.open()
    for name, pages in PAGES.items():
        with pymupdf.open(corpus_dir / name) as src:
            for page in pages:
                out.insert_pdf(src, from_page=page - 1, to_page=page - 1)
    out.save(target, garbage=3)
    out.close()
    return target


@pytest.fixture(scope="module")
def spawn_pool():
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        pool.submit(os.getpid).result()  # started
        yield pool


def _parsed(pdf: Path, tmp_path: Path, workers: int, tag: str) -> tuple[dict, list[str], str, int, list, list[int]]:
    settings = Settings(data_dir=tmp_path / "data", parsing={"workers": workers})
    artifacts = tmp_path / tag / "artifacts"
    seen: list[int] = []
    parsed = parse(pdf, settings, artifacts, progress=lambda done, total: seen.append(done))
    crops = sorted((f.name, f.read_bytes()) for f in artifacts.iterdir())
    document = json.loads(json.dumps(parsed.document.export_to_dict(), sort_keys=True))
    return document, parsed.warnings, parsed.title, parsed.pages, crops, seen


def test_helper_processes_give_the_same_document(
    corpus_pages: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    alone = _parsed(corpus_pages, tmp_path, workers=1, tag="alone")
    pool = page_workers.helper_pool(1, start=True, initializer=pymupdf_parser._start_helper)
    assert pool is not None
    pool.submit(os.getpid).result()  # the helper is up: it takes batches from the first one on
    with caplog.at_level(logging.DEBUG, logger=page_workers.__name__):
        shared = _parsed(corpus_pages, tmp_path, workers=2, tag="shared")
    helped = [r for r in caplog.records if r.getMessage().startswith("page batches:")]
    assert helped and "0 in helpers" not in helped[-1].getMessage(), [r.getMessage() for r in helped]

    document, warnings, title, pages, crops, seen = shared
    assert pages == 7 and seen == list(range(1, 8))  # progress per page, in order
    assert len(document["tables"]) >= 1 and len(document["pictures"]) >= 2 and crops
    assert any(p["page_no"] == 7 for t in document["texts"] for p in t["prov"])  # the OCR page has text
    assert document == alone[0]
    assert (warnings, title, pages, crops, seen) == alone[1:]


def test_a_short_document_does_not_start_helpers(corpus_dir: Path, tmp_path: Path) -> None:
    page_workers.shutdown()
    settings = Settings(data_dir=tmp_path / "data", parsing={"workers": 2})
    pdf = corpus_dir / "fr_aide_memoire_ACT3000_theorie_du_risque.pdf"  # 6 pages, 2 batches
    assert parse(pdf, settings, tmp_path / "artifacts").pages == 6
    assert page_workers.helper_pool(1, start=False) is None


def test_results_come_back_in_task_order(spawn_pool: ProcessPoolExecutor, caplog: pytest.LogCaptureFixture) -> None:
    done: list[int] = []

    def slow_here(n: int) -> float:
        time.sleep(0.05)
        return math.sqrt(n)

    tasks = list(range(40))
    with caplog.at_level(logging.DEBUG, logger=page_workers.__name__):
        results = page_workers.run_in_order(tasks, slow_here, math.sqrt, spawn_pool, 1, done.append)
    assert results == [math.sqrt(n) for n in tasks]
    assert sorted(done) == tasks
    message = next(r.getMessage() for r in caplog.records if r.getMessage().startswith("page batches:"))
    assert "0 in helpers" not in message and "0 here" not in message, message


def test_a_task_failing_in_a_helper_is_redone_here(spawn_pool: ProcessPoolExecutor) -> None:
    # math.sqrt raises ValueError on -1 in the helper; here, the absolute value is used
    tasks = [4, 9, 16, 25, 36, -1]
    results = page_workers.run_in_order(tasks, lambda n: math.sqrt(abs(n)), math.sqrt, spawn_pool, 1)
    assert results == [2.0, 3.0, 4.0, 5.0, 6.0, 1.0]


def test_a_dead_helper_hands_its_work_back() -> None:
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        pool.submit(os.getpid).result()
        tasks = [3, 1, 4, 1, 5]
        # os._exit kills the helper on its first task: every task ends up done here
        results = page_workers.run_in_order(tasks, lambda n: n * 10, os._exit, pool, 1)
    assert results == [30, 10, 40, 10, 50]


def test_an_error_here_propagates(spawn_pool: ProcessPoolExecutor) -> None:
    # Which process takes the broken task is a race (a quick helper can take them all): math.sqrt
    # fails on -1 in the helper too, so the task comes back here whichever took it, and its error here
    # must reach the caller.
    def here(n: int) -> float:
        if n < 0:
            raise RuntimeError("broken page")
        return math.sqrt(n)

    with pytest.raises(RuntimeError, match="broken page"):
        page_workers.run_in_order([-1, 1, 4, 9], here, math.sqrt, spawn_pool, 1)


def test_without_a_pool_everything_runs_here() -> None:
    done: list[int] = []
    assert page_workers.run_in_order([1, 2, 3], lambda n: -n, abs, None, 1, done.append) == [-1, -2, -3]
    assert done == [0, 1, 2]


def test_default_workers_is_at_most_two() -> None:
    assert 1 <= page_workers.default_workers() <= 2
    assert Settings(parsing={"workers": 3}).parsing.workers == 3
    with pytest.raises(ValueError):
        Settings(parsing={"workers": 0})


def test_helpers_do_not_rerun_a_main_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Streamlit runs each page as a `__main__` module with a __file__ and no spec; a spawned
    # process would run that file again. Here the "page" leaves a mark when it runs.
    mark = tmp_path / "page-ran"
    page = tmp_path / "page.py"
    page.write_text(f"from pathlib import Path\nPath({str(mark)!r}).write_text('ran')\n")
    fake_main = types.ModuleType("__main__")
    fake_main.__file__ = str(page)
    page_workers.shutdown()
    monkeypatch.setitem(sys.modules, "__main__", fake_main)
    try:
        pool = page_workers.helper_pool(1, start=True)
        assert pool is not None and sys.modules["__main__"] is fake_main
        assert pool.submit(abs, -3).result() == 3
    finally:
        page_workers.shutdown()
    assert not mark.exists()
