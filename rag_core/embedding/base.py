"""The `Embedder` protocol: passages and questions to normalised dense vectors.

Providers live in sibling modules; `select_embedder` picks one from settings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    name: str  # recorded in the index: querying with another model is refused
    dim: int

    def embed_passages(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> np.ndarray:
        """(n, dim) float32, L2-normalised."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dim,) float32, L2-normalised."""
        ...


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


def encode_in_batches(
    texts: Sequence[str],
    batch_size: int,
    dim: int,
    encode: Callable[[list[str]], np.ndarray],
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Encode `texts` batch by batch, reporting progress; (n, dim) normalised rows."""
    out: list[np.ndarray] = []
    for start in range(0, len(texts), batch_size):
        batch = list(texts[start : start + batch_size])
        out.append(np.atleast_2d(encode(batch)))
        if progress:
            progress(start + len(batch), len(texts))
    return normalise_rows(np.vstack(out)) if out else np.zeros((0, dim), dtype=np.float32)
