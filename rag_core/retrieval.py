"""Hybrid retrieval: BM25 and dense channels over children, and BM25 over whole pages, fused by RRF.

Two fusion variants (METHOD.md §3), chosen by `settings.retrieval.fusion`:
- "parents" (default): each channel's children are reduced to parents (best child per parent,
  ranks restart at 1); the page channel gives each parent the rank of its best page (the
  parents of one page share its rank); then weighted Reciprocal Rank Fusion on parents;
- "children": LanceDB's native hybrid query fuses children, which are then reduced to parents
  (no page channel).
Both apply the same scope prefilter inside each channel. Raw scores are never added.
This module does not embed documents, write the index or build answers.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from rag_core.config import Settings
from rag_core.embedding import Embedder
from rag_core.models import ChannelHit, Child, PageChannelHit, RetrievedParent, SearchResult
from rag_core.store import RRF_K, ChildHit, PageHit, Store
from rag_core.text import detect_language

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="channel")


def fuse_rankings(
    rankings: Iterable[Sequence[str] | Mapping[str, int]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[str, float]]:
    """Reciprocal Rank Fusion: score(x) = Σ w/(k + rank(x)), ranks from 1 (w = 1 unless given); ties by id.

    A ranking is a list (ranks 1, 2, ...) or a mapping key -> rank (tied keys share a rank).
    """
    scores: dict[str, float] = {}
    for i, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[i]
        ranked = ranking.items() if isinstance(ranking, Mapping) else ((key, r) for r, key in enumerate(ranking, 1))
        for key, rank in ranked:
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def best_child_per_parent(hits: Sequence[ChildHit]) -> list[ChildHit]:
    """Keep each parent's first (best) child, in order: the channel's parent ranking."""
    seen: set[str] = set()
    out = []
    for hit in hits:
        if hit.parent_id not in seen:
            seen.add(hit.parent_id)
            out.append(hit)
    return out


def page_ranks(hits: Sequence[PageHit]) -> dict[str, tuple[int, PageHit]]:
    """The page channel's parent ranking: each parent takes the rank of its best page."""
    out: dict[str, tuple[int, PageHit]] = {}
    for rank, hit in enumerate(hits, start=1):
        for pid in hit.parent_ids:
            out.setdefault(pid, (rank, hit))
    return out


@dataclass(frozen=True)
class Channels:
    lexical: list[ChildHit]
    dense: list[ChildHit]
    pages: list[PageHit] = field(default_factory=list)


def run_channels(
    query: str, vector: np.ndarray, store: Store, scope: Sequence[str], candidate_k: int, language: str | None = None,
    extra_terms: Sequence[tuple[str, float]] = (), pages: bool = True,
) -> Channels:
    """The channels' candidates: `candidate_k` children each, and as many pages when `pages`."""
    lang = language or detect_language(query)
    # The channels are independent and LanceDB releases the GIL: run them side by side.
    lexical = _POOL.submit(store.lexical, query, lang, scope, candidate_k, extra_terms)
    page = _POOL.submit(store.page_lexical, query, lang, scope, candidate_k, extra_terms) if pages else None
    dense = store.dense(vector, scope, candidate_k)
    return Channels(lexical.result(), dense, page.result() if page else [])


@dataclass(frozen=True)
class ParentRankings:
    """Each channel reduced to parents: best child per parent, and each parent's best page."""

    lexical: list[ChildHit]
    dense: list[ChildHit]
    pages: dict[str, tuple[int, PageHit]]

    @classmethod
    def of(cls, channels: Channels) -> "ParentRankings":
        return cls(best_child_per_parent(channels.lexical), best_child_per_parent(channels.dense),
                   page_ranks(channels.pages))

    def fuse(self, dense_weight: float, page_weight: float) -> list[tuple[str, float]]:
        """Weighted RRF on parents (lexical 1.0)."""
        return fuse_rankings(
            [[h.parent_id for h in self.lexical], [h.parent_id for h in self.dense],
             {pid: rank for pid, (rank, _) in self.pages.items()}],
            weights=[1.0, dense_weight, page_weight],
        )


def fuse_parents(channels: Channels, dense_weight: float = 1.0, page_weight: float = 1.0) -> list[tuple[str, float]]:
    return ParentRankings.of(channels).fuse(dense_weight, page_weight)


def search(
    query: str,
    store: Store,
    embedder: Embedder,
    settings: Settings,
    scope: Sequence[str],
    k: int | None = None,
    candidate_k: int | None = None,
    fusion: str | None = None,
    extra_terms: Sequence[tuple[str, float]] = (),
) -> SearchResult:
    """Ranked parents for `query` within the ready documents `scope` (doc ids).

    `extra_terms` (thesaurus expansion) are weighted lexical terms of both BM25 channels; the
    dense channel sees the question only. The dense and page rankings weigh
    `settings.retrieval.dense_weight` and `page_weight` in the fusion (lexical 1.0).
    """
    started = time.perf_counter()
    k = k or max(settings.retrieval.context_k, 10)
    candidate_k = candidate_k or settings.retrieval.candidate_k
    fusion = fusion or settings.retrieval.fusion
    if not query.strip() or not scope:
        return SearchResult(query=query, parents=[], elapsed_s=time.perf_counter() - started)
    store.check_embedder(embedder.name, embedder.dim)
    language = detect_language(query)
    vector = embedder.embed_query(query)  # once per question
    page_weight = settings.retrieval.page_weight
    channels = run_channels(query, vector, store, scope, candidate_k, language, extra_terms,
                            pages=fusion == "parents" and page_weight > 0)
    reduced = ParentRankings.of(channels)
    lex_best, den_best, on_pages = reduced.lexical, reduced.dense, reduced.pages
    if fusion == "children":
        fused_children = best_child_per_parent(store.hybrid(query, vector, language, scope, 2 * candidate_k))
        ranking = [(h.parent_id, h.score) for h in fused_children]
        best = {h.parent_id: h.child_id for h in fused_children}
    else:
        ranking = reduced.fuse(settings.retrieval.dense_weight, page_weight)
        best = {h.parent_id: h.child_id for h in reversed(den_best)}
        best.update({h.parent_id: h.child_id for h in reversed(lex_best)})
    ranking = ranking[:k]
    parent_ids = [pid for pid, _ in ranking]
    parents = store.parents(parent_ids)
    children = store.children_of_parents(parent_ids)
    in_scope = set(scope)  # the channels prefiltered on it; this only guards against a bug below them
    records = {r.doc_id: r for r in store.documents() if r.doc_id in in_scope}
    lex_info = {h.parent_id: ChannelHit(rank=i, score=h.score, child_id=h.child_id) for i, h in enumerate(lex_best, 1)}
    den_info = {h.parent_id: ChannelHit(rank=i, score=h.score, child_id=h.child_id) for i, h in enumerate(den_best, 1)}
    out: list[RetrievedParent] = []
    for pid, score in ranking:
        parent = parents.get(pid)
        kids = children.get(pid, [])
        if parent is None or not kids or parent.doc_id not in records:
            continue  # deleted between the two reads: the old or the new state, never half
        by_id: dict[str, Child] = {c.id: c for c in kids}
        if pid not in best and pid in on_pages:  # found by its page only: the first child on that page
            page = on_pages[pid][1].page
            best[pid] = next((c.id for c in kids if page in c.pages), kids[0].id)
        out.append(
            RetrievedParent(
                parent=parent, document=records[parent.doc_id], children=kids,
                best_child=by_id.get(best.get(pid, ""), kids[0]),
                fused_rank=len(out) + 1, fused_score=score,
                lexical=lex_info.get(pid), dense=den_info.get(pid),
                page=PageChannelHit(rank=on_pages[pid][0], score=on_pages[pid][1].score, page=on_pages[pid][1].page)
                if pid in on_pages else None,
            )
        )
    return SearchResult(query=query, parents=out, expanded_terms=[t for t, _ in extra_terms],
                        elapsed_s=time.perf_counter() - started)
