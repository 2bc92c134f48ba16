"""bge-reranker-v2-m3 through FlagEmbedding's `FlagReranker` (the only import of it for reranking).

The weights are looked for in `settings.reranker.path`: a local directory (checked here, since
FlagEmbedding takes a missing local path for a hub id and fails obscurely) or a hub name,
which only loads where the hub can be reached or the model is in the local cache.
Scores are normalised to 0-1 (sigmoid) so that `min_score` reads as a probability.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rag_core.errors import BackendUnavailable
from rag_core.messages import ENGLISH

MODEL_NAME = "BAAI/bge-reranker-v2-m3"
_REQUIRED = ("config.json",)
_TOKENIZER = ("tokenizer.json", "sentencepiece.bpe.model", "tokenizer_config.json")
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")
MISSING = ENGLISH["backend.reranker_missing"]


def weights_available(path: str | None) -> bool:
    """A local directory holding a config, a tokenizer and weights."""
    if not path:
        return False
    root = Path(path)
    return (
        root.is_dir()
        and all((root / f).is_file() for f in _REQUIRED)
        and any((root / f).is_file() for f in _TOKENIZER)
        and any((root / f).is_file() for f in _WEIGHTS)
    )


def _looks_like_hub_name(path: str) -> bool:
    return path.count("/") == 1 and not path.startswith((".", "/", "~")) and not Path(path).exists()


class BgeReranker:
    name = MODEL_NAME

    def __init__(self, path: str | None, batch_size: int = 16) -> None:
        if not path:
            raise BackendUnavailable.of("backend.reranker_missing", detail=" (RAG_RERANKER__PATH is not set)")
        if not weights_available(path) and not _looks_like_hub_name(path):
            raise BackendUnavailable.of("backend.reranker_missing", detail=f" (no model files in {path})")
        try:
            from FlagEmbedding import FlagReranker

            self._model = FlagReranker(path, use_fp16=False, devices="cpu", batch_size=batch_size)
        except Exception as err:  # an offline hub name or a broken folder
            raise BackendUnavailable.of(
                "backend.reranker_missing", detail=f" ({path} could not be loaded: {type(err).__name__})"
            ) from None

    def score(self, question: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        scores = self._model.compute_score([[question, p] for p in passages], normalize=True)
        return [float(s) for s in (scores if isinstance(scores, list) else [scores])]
