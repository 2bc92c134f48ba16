"""The single-thread ONNX sessions of PyMuPDF's layout model (rag_core.parsing.layout_runtime).

The patch reaches private names of pymupdf-layout: these tests fail when a new version
moves them, and check that the patched sessions give the very same layout boxes.
"""

from __future__ import annotations

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
