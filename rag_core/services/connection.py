"""One LanceDB connection per library and process, shared by every verb, flow and worker; a library of another
schema version than this code's is refused when it is first opened (`rag_core.migrations.check`)."""

from __future__ import annotations

from functools import lru_cache

from rag_core import migrations
from rag_core.config import Settings
from rag_core.store import Store


def open_store(settings: Settings) -> Store:
    """One connection per library and process: it keeps what it learnt of the tables between queries."""
    store = _store(settings.db_uri)
    if settings.db_uri not in _checked:
        migrations.check(settings, store)  # raises for another schema; checked again on the next call
        _checked.add(settings.db_uri)
    return store


_checked: set[str] = set()  # the libraries whose schema this process found current


@lru_cache(maxsize=8)
def _store(uri: str) -> Store:
    return Store(uri)


def forget_stores() -> None:
    """Drop the cached connections (the next `open_store` connects again), e.g. once a library is removed."""
    _store.cache_clear()
