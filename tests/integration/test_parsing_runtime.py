"""The single-thread ONNX sessions of PyMuPDF's layout model (rag_core.parsing.layout_runtime).

The patch reaches private names of pymupdf-layout: these tests fail when a new version
moves them, and check that the patched sessions give the very same layout boxes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import onnxruntime as ort
import pymupdf
import pytest

from rag_core.parsing import layout_runtime


def _page_pdf() -> pymupdf.Document:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), "1. Reserving with development factors", fontsize=16)
    y = 120
    for _ in range(6):
        page.insert_text((72, y), "The chain ladder method estimates outstanding claims from payments.", fontsize=10)
        y += 14
    for r in range(4):  # a small ruled table
        for c in range(3):
            rect = pymupdf.Rect(72 + 120 * c, 260 + 20 * r, 192 + 120 * c, 280 + 20 * r)
            page.draw_rect(rect, color=(0, 0, 0), width=0.5)
            page.insert_text((rect.x0 + 4, rect.y1 - 6), f"{1000 * (r + 1) + c}", fontsize=9)
    page.insert_text((280, 800), "12", fontsize=9)
    return doc


def _boxes(page: pymupdf.Page) -> list:
    page.get_layout(return_raw=True)  # sets page.layout_information
    raw = page.layout_information
    return [(g["class_name"], [round(v, 3) for v in g["group_bbox"][:4]]) for g in raw]


def test_library_internals_are_where_the_patch_expects_them() -> None:
    model = layout_runtime.layout_model()
    assert model is not None, "pymupdf._get_layout no longer closes over MODEL"
    assert isinstance(model.session, ort.InferenceSession)
    assert isinstance(model.feature_extractor._session, ort.InferenceSession)
    assert model.model_path and model.imf_model_path


def test_sessions_are_single_threaded_the_image_model_with_an_arena_and_give_the_same_boxes() -> None:
    from pymupdf.layout.onnx.common_util import make_session

    doc = _page_pdf()
    assert layout_runtime.use_single_thread_sessions()
    model = layout_runtime.layout_model()
    for session in (model.session, model.feature_extractor._session):
        assert session.get_session_options().intra_op_num_threads == 1
    # the page-image model (one fixed input shape) keeps its memory arena; the library's has none
    assert model.feature_extractor._session.get_session_options().enable_cpu_mem_arena is True
    assert model.session.get_session_options().enable_cpu_mem_arena is False
    patched = _boxes(doc[0])
    assert patched, "the layout model found nothing on the test page"

    single = (model.session, model.feature_extractor._session)
    try:  # the library's own sessions: default threads, no memory arena
        model.session = make_session(model.model_path, single[0].get_providers())
        model.feature_extractor._session = make_session(model.imf_model_path, single[1].get_providers())
        default = _boxes(doc[0])
    finally:
        model.session, model.feature_extractor._session = single
    assert patched == default
    assert layout_runtime.use_single_thread_sessions()  # idempotent


def test_missing_internals_leave_the_library_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layout_runtime, "_done", False)
    monkeypatch.setattr(layout_runtime, "layout_model", lambda: None)
    assert layout_runtime.use_single_thread_sessions() is False


_PARSE = """
import json, sys
{first}
from pathlib import Path
from rag_core.config import Settings
from rag_core.parsing import parse
import pymupdf, pymupdf4llm
before = {{"layout module": "pymupdf.layout" in sys.modules, "active": callable(pymupdf._get_layout)}}
settings = Settings(data_dir=Path(sys.argv[2]) / "data")
parsing = settings.parsing.model_copy(update={{"backend": "pymupdf", "workers": 1}})
settings = settings.model_copy(update={{"parsing": parsing}})
document = parse(Path(sys.argv[1]), settings, Path(sys.argv[2]) / "artifacts").document.export_to_dict()
after = {{"active": callable(pymupdf._get_layout), "use_layout": pymupdf4llm._use_layout,
         "text-only names": hasattr(pymupdf4llm, "IdentifyHeaders") or hasattr(pymupdf4llm, "TocHeaders")}}
print(json.dumps({{"before": before, "after": after, "document": document}}))
"""


def _parse_in_a_fresh_process(first: str, pdf: Path, work: Path) -> dict:
    work.mkdir()
    code = _PARSE.format(first=first)
    command = [sys.executable, "-c", code, str(pdf), str(work)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_process_loads_the_layout_models_when_it_parses_and_parses_as_a_plain_import_does(tmp_path: Path) -> None:
    """`import pymupdf` after the product's import loads no layout model (rag_core.deferred_import); the first parse
    activates them, leaving pymupdf4llm as a plain `import pymupdf` does, and gives the same document as a process
    whose PyMuPDF was imported before the product (the deferral then does nothing)."""
    pdf = tmp_path / "page.pdf"
    _page_pdf().save(pdf)
    deferred = _parse_in_a_fresh_process("import rag_core", pdf, tmp_path / "deferred")
    plain = _parse_in_a_fresh_process("import pymupdf", pdf, tmp_path / "plain")
    assert deferred["before"] == {"layout module": False, "active": False}
    assert plain["before"] == {"layout module": True, "active": True}
    assert deferred["after"] == plain["after"] == {"active": True, "use_layout": True, "text-only names": False}
    assert deferred["document"]["tables"] and deferred["document"]["texts"]  # the layout found the table
    assert deferred["document"] == plain["document"]
