"""The OCR engine that reads pages without a text layer (pymupdf4llm's OCR), built by the product.

pymupdf4llm reads a scanned page with RapidOCR through its backend module
`pymupdf4llm.ocr.rapidocr_391_backend`, which builds `RapidOCR()` on first use and keeps it in
the module's `ENGINE`. That engine's ONNX sessions take one thread per core, and the parse
already runs one page process per core (`page_workers`): two processes each with two spinning
threads on two cores. `use_product_engine()` puts an engine with the same models and settings
but one thread per session into `ENGINE` (once per process, only when the slot is empty), as
`layout_runtime` does for the layout models. benchmarks/scanned_pages.py measures both engines
on the same scanned pages and checks that they read the same text.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

log = logging.getLogger(__name__)

_lock = threading.Lock()


def product_engine() -> Any:
    """RapidOCR with pymupdf4llm's settings (its defaults), its ONNX sessions on one thread."""
    from rapidocr import RapidOCR

    return RapidOCR(
        params={
            "Global.log_level": "error",
            "EngineConfig.onnxruntime.intra_op_num_threads": 1,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        }
    )


def use_product_engine() -> bool:
    """Give pymupdf4llm's RapidOCR backend the product's engine unless it holds one already.

    Returns whether the backend's engine is (now) the product's kind; a backend that moved
    only logs a warning, and pymupdf4llm builds its own engine as before."""
    with _lock:
        try:
            from pymupdf4llm.ocr import rapidocr_391_backend as backend
        except Exception:  # another RapidOCR backend, or none: pymupdf4llm decides
            log.warning("pymupdf4llm's RapidOCR backend is not there; page OCR keeps its own engine")
            return False
        if not hasattr(backend, "ENGINE"):
            log.warning("pymupdf4llm's RapidOCR backend changed; page OCR keeps its own engine")
            return False
        if backend.ENGINE is None:
            backend.ENGINE = product_engine()
            backend.ENGINE._rag_product = True
        return bool(getattr(backend.ENGINE, "_rag_product", False))
