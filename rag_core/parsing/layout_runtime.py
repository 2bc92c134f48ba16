"""ONNX Runtime settings for PyMuPDF's layout models: one thread per session (a small, documented patch).

`pymupdf.layout` builds two ONNX sessions at import (the page-image feature model, fixed
300×300 input, and the box GNN) with ORT's default thread pool: one intra-op thread per
core, spinning while it waits. On a 2-core machine shared with embedding and other jobs, the
spinning costs CPU without saving time: measured on Mack 2008 pages, the image model takes
~0.29 s CPU per page with one thread against ~0.47 s with the default pool, the GNN 0.04 s
against 0.07 s, and wall time does not get worse under load. The outputs are bit-identical
(same graph, same kernels, same optimisation level), so the layout boxes do not change.
The page-image model keeps ONNX Runtime's CPU memory arena (the library turns it off): without
it every tensor of the model is a fresh allocation, and the layout analysis costs 0.27-0.32 s of
CPU per page against 0.20-0.25 s with it (paired, boxes identical; `benchmarks/layout_sessions.py`),
for ~130-160 MB more peak memory per page process. Its input has one shape, so the arena's blocks
are reused page after page; the GNN, whose input grows with the page's boxes, keeps it off.

`use_single_thread_sessions()` rebuilds both sessions from the same model files with
`intra_op_num_threads=1`, `inter_op_num_threads=1`, spinning off (and the image model's arena).
It reaches private names of pymupdf-layout 2.0: the `MODEL` closure variable of
`pymupdf._get_layout` (a `MultiProcessWrapper`), its `_model`
(`BoxRFDGNN`) with `session`, `model_path`, `imf_model_path` and
`feature_extractor._session`. tests/integration/test_parsing_runtime.py fails if these move; at
run time a missing name only logs a warning and leaves the library's sessions in place.

`document_layout()` is pymupdf4llm's layout analysis with the layout models active. `rag_core.deferred_import`
keeps `import pymupdf` from loading them in a process that never parses: pymupdf4llm, which PyMuPDF imports,
then found no `pymupdf.layout` and chose its text-only mode (`use_layout(False)`); the first parse of a process
switches it back with pymupdf4llm's own `use_layout(True)`, which loads and activates the models, the state a
plain `import pymupdf` leaves (tests/integration/test_parsing_runtime.py).
"""

from __future__ import annotations

import logging
import threading
from types import ModuleType
from typing import Any

log = logging.getLogger(__name__)

THREADS = 1
ARENA = True  # the image model's arena: the same outputs for less CPU (its tensors keep one shape)
_lock = threading.Lock()
_activation = threading.Lock()
_done = False


def document_layout() -> ModuleType:
    """`pymupdf4llm.helpers.document_layout`, once PyMuPDF's layout models are active in this process."""
    import pymupdf
    import pymupdf4llm
    from pymupdf4llm.helpers import document_layout as module

    if not callable(getattr(pymupdf, "_get_layout", None)):  # once a process: each page batch asks
        with _activation:
            if not callable(getattr(pymupdf, "_get_layout", None)):
                pymupdf4llm.use_layout(True)  # imports pymupdf.layout, which activates itself
    return module


def layout_model():
    """pymupdf-layout's BoxRFDGNN instance (private), or None when it cannot be found."""
    import pymupdf

    document_layout()  # the layout models active: pymupdf._get_layout

    func = getattr(pymupdf, "_get_layout", None)
    code = getattr(func, "__code__", None)
    if func is None or code is None or "MODEL" not in code.co_freevars or not func.__closure__:
        return None
    wrapper = func.__closure__[code.co_freevars.index("MODEL")].cell_contents
    return getattr(wrapper, "_model", None)


def session_options(arena: bool = False):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.enable_cpu_mem_arena = arena  # pymupdf.layout.onnx.common_util.make_session turns it off
    so.intra_op_num_threads = THREADS
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return so


def use_single_thread_sessions() -> bool:
    """Swap the layout model's ONNX sessions for single-thread ones, once per process.

    Returns whether the sessions are (now) single-threaded.
    """
    global _done
    with _lock:
        if _done:
            return True
        try:
            import onnxruntime as ort

            model: Any = layout_model()
            extractor: Any = getattr(model, "feature_extractor", None)
            if (
                model is None
                or not isinstance(getattr(model, "session", None), ort.InferenceSession)
                or not isinstance(getattr(extractor, "_session", None), ort.InferenceSession)
            ):
                log.warning("pymupdf-layout internals changed; its ONNX sessions keep their default threads")
                return False
            providers = model.session.get_providers()
            model.session = ort.InferenceSession(model.model_path, sess_options=session_options(), providers=providers)
            extractor._session = ort.InferenceSession(
                model.imf_model_path, sess_options=session_options(ARENA), providers=extractor._session.get_providers()
            )
        except Exception:  # never lose a parse over a speed setting
            log.warning("could not set pymupdf-layout's ONNX threads", exc_info=True)
            return False
        _done = True
        return True
