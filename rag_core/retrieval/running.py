"""Running the registered channels for one question: their candidates, by channel name.

The BM25 queries of every `FullTextChannel` go to LanceDB together (`Store.full_text`) in a
worker thread while this thread runs the other channels (the dense ones: numpy on the scope's
vectors, or the ANN index; LanceDB releases the GIL). This module does not fuse.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from rag_core.retrieval.base import ChannelQuery, FullTextChannel, Hits, OtherLanguage
from rag_core.retrieval.registry import channels
from rag_core.store import ChildHit, PageHit, Store
from rag_core.text import detect_language

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="channel")


@dataclass(frozen=True)
class Candidates:
    """Each channel's hits, best first, by channel name; a channel that did not run is absent."""

    hits: dict[str, Hits] = field(default_factory=dict)

    def children(self, name: str) -> list[ChildHit]:
        """The hits of a channel over children ([] when it did not run)."""
        return [h for h in self.hits.get(name, []) if isinstance(h, ChildHit)]

    def pages(self, name: str) -> list[PageHit]:
        """The hits of a channel over pages ([] when it did not run)."""
        return [h for h in self.hits.get(name, []) if isinstance(h, PageHit)]

    def __getitem__(self, name: str) -> Hits:
        return self.hits.get(name, [])


def run_all(query: ChannelQuery) -> Candidates:
    """Every registered channel that applies to `query`, in registration order."""
    wanted = [c for c in channels() if c.applies(query)]
    batched = [c for c in wanted if isinstance(c, FullTextChannel) and c.asks_lancedb(query)]
    pending = _POOL.submit(query.store.full_text, [c.request(query) for c in batched], query.scope) if batched else None
    found: dict[str, Hits] = {c.name: c.run(query) for c in wanted if c not in batched}
    if pending is not None:
        for channel, hits in zip(batched, pending.result(), strict=True):
            found[channel.name] = channel.keep(hits, query)
    return Candidates({c.name: found[c.name] for c in wanted})


def run_channels(
    query: str,
    vector: np.ndarray,
    store: Store,
    scope: Sequence[str],
    candidate_k: int,
    language: str | None = None,
    extra_terms: Sequence[tuple[str, float]] = (),
    pages: bool = True,
    other: OtherLanguage | None = None,
) -> Candidates:
    """The channels' candidates: `candidate_k` children each, and as many pages when `pages`.

    With `other`, also the other language's channels (`builtin/dense_other.py`, `builtin/translated.py`).
    """
    return run_all(
        ChannelQuery(
            query, vector, store, scope, candidate_k, language or detect_language(query), extra_terms, pages, other
        )
    )
