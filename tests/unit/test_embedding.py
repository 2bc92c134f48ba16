"""Embedders: the bundled offline model really embeds; missing BGE-M3 weights fail clearly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag_core.config import Settings
from rag_core.embedding import resolve_backend, select_embedder
from rag_core.embedding.bge_m3 import BgeM3Embedder
from rag_core.errors import BackendUnavailable


def test_offline_embedder_is_multilingual_and_normalised() -> None:
    embedder = select_embedder(Settings())
    assert embedder.dim == 384
    passages = embedder.embed_passages(
        [
            "La provision pour sinistres à payer est estimée par la méthode Chain Ladder.",
            "The outstanding claims reserve is estimated with the chain-ladder method.",
            "Le chat dort sur le canapé du salon.",
        ]
    )
    assert passages.shape == (3, 384)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)
    query = embedder.embed_query("Comment estimer les réserves de sinistres ?")
    scores = passages @ query
    # A French question is closer to the reserving passages (French and English) than to a cat.
    assert scores[0] > scores[2] and scores[1] > scores[2]


def test_auto_picks_the_offline_model_without_bge_m3_weights(tmp_path: Path) -> None:
    assert resolve_backend(Settings()) == "e5-small"
    assert resolve_backend(Settings(embedding={"bge_m3_path": str(tmp_path)})) == "e5-small"


@pytest.mark.parametrize("path", [None, "BAAI/bge-m3", "/nonexistent/bge-m3"])
def test_missing_bge_m3_weights_name_the_setting(path: str | None) -> None:
    with pytest.raises(BackendUnavailable, match="RAG_EMBEDDING__BGE_M3_PATH"):
        BgeM3Embedder(path)


def test_explicit_bge_m3_without_weights_is_refused_not_downloaded() -> None:
    with pytest.raises(BackendUnavailable):
        select_embedder(Settings(embedding={"backend": "bge-m3"}))
