"""Embedders: `select_embedder(settings)` returns the configured one (cached per process).

A `base.Embedder` turns questions and passages into normalised vectors; one file per provider
(the bundled multilingual-e5-small, BGE-M3). This package never stores, searches or chunks.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rag_core.config import Settings
from rag_core.embedding.base import Embedder
from rag_core.embedding.bge_m3 import BgeM3Embedder, weights_available
from rag_core.embedding.e5_small import E5SmallEmbedder


def resolve_backend(settings: Settings) -> str:
    backend = settings.embedding.backend
    if backend == "auto":
        return "bge-m3" if weights_available(settings.embedding.bge_m3_path) else "e5-small"
    return backend


@lru_cache(maxsize=4)
def _build(
    backend: str, path: str | None, batch_size: int, e5_passages: str = "onnx", graph_cache_dir: Path | None = None
) -> Embedder:
    if backend == "bge-m3":
        return BgeM3Embedder(path, batch_size)
    return E5SmallEmbedder(batch_size, e5_passages, graph_cache_dir)


def select_embedder(settings: Settings) -> Embedder:
    e = settings.embedding
    return _build(resolve_backend(settings), e.bge_m3_path, e.batch_size, e.e5_passages, e.graph_cache_dir)


__all__ = ["Embedder", "select_embedder", "resolve_backend"]
