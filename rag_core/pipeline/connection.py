"""One LanceDB connection per library and process, shared by the façade's entry points."""

from __future__ import annotations

from functools import lru_cache

from rag_core.config import Settings
from rag_core.store import Store


def open_store(settings: Settings) -> Store:
    """One connection per library and process: it keeps what it learnt of the tables between queries."""
    return _store(settings.db_uri)


@lru_cache(maxsize=8)
def _store(uri: str) -> Store:
    return Store(uri)


def forget_stores() -> None:
    """Drop the cached connections (the next `open_store` connects again), e.g. once a library is removed."""
    _store.cache_clear()
