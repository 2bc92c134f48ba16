"""Production embedder: BAAI/bge-m3 dense vectors (1024-d) through FlagEmbedding.

The weights must be on disk (settings.embedding.bge_m3_path). FlagEmbedding takes a
missing local path for a hub id and fails with a confusing error, so the files are
checked here first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from rag_core.embedding.base import encode_in_batches, normalise_rows
from rag_core.errors import BackendUnavailable

MODEL_NAME = "BAAI/bge-m3"
_REQUIRED = ("config.json", "tokenizer.json")
_WEIGHTS = ("pytorch_model.bin", "model.safetensors")


def weights_available(path: str | None) -> bool:
    if not path:
        return False
    root = Path(path)
    return (
        root.is_dir() and all((root / f).is_file() for f in _REQUIRED) and any((root / f).is_file() for f in _WEIGHTS)
    )


class BgeM3Embedder:
    name = MODEL_NAME
    dim = 1024

    def __init__(self, path: str | None, batch_size: int = 16) -> None:
        if not weights_available(path):
            raise BackendUnavailable.of("backend.bge_m3_missing")
        from FlagEmbedding import BGEM3FlagModel

        self._model = BGEM3FlagModel(path, normalize_embeddings=True, use_fp16=False, devices="cpu")
        self.batch_size = batch_size

    def embed_passages(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> np.ndarray:
        return encode_in_batches(texts, self.batch_size, self.dim, self._dense, progress)

    def _dense(self, batch: list[str]) -> np.ndarray:
        return self._model.encode(batch, batch_size=self.batch_size, max_length=512)["dense_vecs"]

    def embed_query(self, text: str) -> np.ndarray:
        return normalise_rows(np.atleast_2d(self._dense([text])))[0]
