"""Rerankers, chosen by name: `select_reranker(settings)` returns the configured one or None.

`enabled="auto"` uses bge-reranker-v2-m3 when its weights are on disk and otherwise runs
without a reranker (`reranker_status` says so); `enabled="on"` without weights is an error
naming RAG_RERANKER__PATH. Other rerankers (a test's deterministic fake, another model) are
registered by name with `register`. `rerank` reorders a search result and applies the
minimum score. This package does not search.
"""

from __future__ import annotations

from collections.abc import Callable

from rag_core.config import Settings
from rag_core.messages import message
from rag_core.models import SearchResult
from rag_core.reranking.base import Reranker
from rag_core.reranking.bge import MISSING, MODEL_NAME, BgeReranker, weights_available

Factory = Callable[[Settings], Reranker]
_FACTORIES: dict[str, Factory] = {"bge-reranker-v2-m3": lambda s: BgeReranker(s.reranker.path)}
_BUILT: dict[tuple[str, str | None], Reranker] = {}


def register(name: str, factory: Factory) -> None:
    """Make a reranker selectable as `settings.reranker.backend = name`."""
    _FACTORIES[name] = factory
    for key in [k for k in _BUILT if k[0] == name]:
        del _BUILT[key]


def _wanted(settings: Settings) -> bool:
    enabled = settings.reranker.enabled
    if enabled == "off":
        return False
    if enabled == "on":
        return True
    if settings.reranker.backend != "bge-reranker-v2-m3":
        return True  # a registered reranker needs no weights check
    return weights_available(settings.reranker.path)


def select_reranker(settings: Settings) -> Reranker | None:
    """The reranker to use, or None when it is off or (auto) its weights are absent.

    Raises BackendUnavailable when it is on and cannot be loaded.
    """
    if not _wanted(settings):
        return None
    from rag_core.errors import BackendUnavailable

    factory = _FACTORIES.get(settings.reranker.backend)
    if factory is None:
        raise BackendUnavailable.of(
            "backend.unknown_reranker", name=settings.reranker.backend, known=", ".join(sorted(_FACTORIES))
        )
    key = (settings.reranker.backend, settings.reranker.path)
    if key not in _BUILT:  # a model loads once per process
        _BUILT[key] = factory(settings)
    return _BUILT[key]


def reranker_status(settings: Settings) -> str:
    """One line for `pipeline.backends()` and the UI."""
    if settings.reranker.enabled == "off":
        return message("engines.reranker_off")
    if _wanted(settings):
        name = MODEL_NAME if settings.reranker.backend == "bge-reranker-v2-m3" else settings.reranker.backend
        return message("engines.reranker_on", name=name, score=f"{settings.reranker.min_score:g}")
    return message("engines.reranker_none")


def rerank(question: str, result: SearchResult, reranker: Reranker, keep: int, min_score: float) -> SearchResult:
    """Reread each candidate parent's best child; keep the `keep` best at or above `min_score`."""
    if not result.parents:
        return result
    scores = reranker.score(question, [hit.best_child.context_text for hit in result.parents])
    ranked = sorted(zip(result.parents, scores, strict=True), key=lambda ps: (-ps[1], ps[0].fused_rank))
    kept = [hit.model_copy(update={"rerank_score": score}) for hit, score in ranked if score >= min_score][:keep]
    return result.model_copy(update={"parents": kept})


__all__ = ["Reranker", "register", "rerank", "reranker_status", "select_reranker", "MISSING"]
