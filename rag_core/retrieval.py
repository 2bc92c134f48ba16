"""Hybrid retrieval: BM25 and dense channels over children, and BM25 over whole pages, fused by RRF.

Documents written in another language than the question: a French question about an English
document found nothing, since the embedding pulls a question towards the documents of its own
language whatever their subject, and BM25 needs shared words. The documents of the other
language are therefore also ranked on their own, by RRF of the dense channel restricted to them
("dense-other-language") and BM25 of the question's terms translated into their language
(`understanding.glossary`) over their children and pages ("translated"). Measured on the dev
sets (benchmarks/crosslingual_dev.py; figures in `config.py`): adding these channels as extra
votes of the main fusion lifted cross-lingual questions only at weights that sank the
same-language ones (each channel has a rank 1 whatever the question), and running the dense
channel per language then fusing the languages (the simple design) did not lift them at all.
What works is placing the best passage of the other-language ranking in the fused list
(`place`): at `other_language_strong_rank` when its evidence is clearly stronger than the
question's own (`evidence_ratio` >= `other_language_strong_ratio`: the translated terms' best
BM25 score over those documents against the question's best BM25 score over its own language's
documents) or when a question term is found only in the other language's documents (no
document of the question's language holds it, one of the other language holds its translation:
`understanding.term_presence`), else at `other_language_rank`. The question's own best passage
stays first.

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

import math
import time
from collections.abc import Hashable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from rag_core.config import RetrievalSettings, Settings
from rag_core.embedding import Embedder
from rag_core.models import ChannelHit, Child, PageChannelHit, RetrievedParent, SearchResult, TranslatedTerms
from rag_core.store import RRF_K, ChildHit, FullText, PageHit, Store
from rag_core.text import detect_language
from rag_core.understanding.glossary import Translation
from rag_core.understanding.term_presence import term_presence

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


# ----- the other language's documents --------------------------------------------------------
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class OtherLanguage:
    """The documents in scope written in another language than the question, searched on their own."""

    scope: list[str]
    language: str
    translation: Translation | None = None  # the question's terms in that language; None: dense only


def other_language(languages: Mapping[str, str], scope: Sequence[str], language: str,
                   translation: Translation | None) -> OtherLanguage | None:
    """The documents of `scope` (doc id -> language in `languages`) in the other language, or None."""
    other = [d for d in scope if languages.get(d, language) != language]
    if not other:
        return None
    target = translation.target if translation is not None else languages[other[0]]
    usable = translation if translation is not None and translation.query else None
    return OtherLanguage([d for d in other if languages[d] == target], target, usable)


def only_in_other_language(other: OtherLanguage | None, settings: Settings, languages: Mapping[str, str],
                           scope: Sequence[str]) -> list[str]:
    """The question's terms that only the other language's documents of `scope` name
    (`understanding.term_presence`); empty without a translation."""
    if other is None or other.translation is None:
        return []
    return term_presence(settings, scope).only_other_language(other.translation, languages, scope)


def evidence_ratio(lexical: Sequence[ChildHit], translated: Sequence[ChildHit], languages: Mapping[str, str],
                   language: str) -> float:
    """Best BM25 score of the translated terms over the other language's children, divided by the
    best BM25 score of the question over its own language's children (inf when only the former)."""
    theirs = translated[0].score if translated else 0.0
    own = next((h.score for h in lexical if languages.get(h.doc_id, language) == language), 0.0)
    if theirs <= 0:
        return 0.0
    return math.inf if own <= 0 else theirs / own


def placement(ratio: float, weights: RetrievalSettings, only_other: Sequence[str] = ()) -> int:
    """Rank given to the best other-language passage (0: not placed); `only_other`: the question's
    terms found only in the other language's documents (`TermPresence.only_other_language`)."""
    if weights.other_language_rank <= 0:
        return 0
    return weights.other_language_strong_rank if ratio >= weights.other_language_strong_ratio or only_other \
        else weights.other_language_rank


def placed_key(main: Sequence[K], other: Sequence[K], rank: int) -> K | None:
    """The key `place` moves: the best of `other` not already ranked above `rank` (None: nothing moves)."""
    if rank <= 0:
        return None
    above = set(main[:rank - 1])
    return next((key for key in other if key not in above), None)


def place(main: Sequence[K], other: Sequence[K], rank: int) -> list[K]:
    """`main` with the best key of `other` not already ranked above `rank` moved or inserted at `rank`
    (1-based; 0 or an empty `other` leaves `main` as it is)."""
    out = list(main)
    chosen = placed_key(main, other, rank)
    if chosen is None:
        return out
    if chosen in out:
        out.remove(chosen)
    out.insert(min(rank - 1, len(out)), chosen)
    return out


@dataclass(frozen=True)
class Channels:
    lexical: list[ChildHit]
    dense: list[ChildHit]
    pages: list[PageHit] = field(default_factory=list)
    dense_other: list[ChildHit] = field(default_factory=list)
    translated: list[ChildHit] = field(default_factory=list)
    translated_pages: list[PageHit] = field(default_factory=list)


def run_channels(
    query: str, vector: np.ndarray, store: Store, scope: Sequence[str], candidate_k: int, language: str | None = None,
    extra_terms: Sequence[tuple[str, float]] = (), pages: bool = True, other: OtherLanguage | None = None,
) -> Channels:
    """The channels' candidates: `candidate_k` children each, and as many pages when `pages`.

    With `other`, also the other language's: the dense channel over its documents, and BM25 of
    the translated terms in its analyser. Those BM25 queries run over the whole scope and keep the
    other language's hits (2 x `candidate_k` asked): a pre-filtered full-text query costs about
    twice as much, and translated terms seldom match the question's own language's documents.
    """
    lang = language or detect_language(query)
    theirs = set(other.scope) if other is not None else set()
    target = other.language if other is not None else ""
    text = other.translation.query if other is not None and theirs and other.translation else ""
    requests = {"lexical": FullText("children", query, lang, candidate_k, extra_terms)}
    if pages:
        requests["pages"] = FullText("pages", query, lang, candidate_k, extra_terms)
    if text:
        requests["translated"] = FullText("children", text, target, 2 * candidate_k)
        if pages:
            requests["translated_pages"] = FullText("pages", text, target, 2 * candidate_k)
    # The full-text queries go to LanceDB together (`Store.full_text`) while this thread runs the
    # dense channels (numpy on the scope's vectors, or the ANN index; LanceDB releases the GIL).
    pending = _POOL.submit(store.full_text, list(requests.values()), scope)
    dense, dense_other = store.dense_many(vector, [scope, sorted(theirs)], candidate_k)
    found = dict(zip(requests, pending.result(), strict=True))
    return Channels(
        found["lexical"], dense, found.get("pages", []), dense_other,  # type: ignore[arg-type]
        [h for h in found.get("translated", []) if h.doc_id in theirs][:candidate_k],  # type: ignore[misc]
        [h for h in found.get("translated_pages", []) if h.doc_id in theirs][:candidate_k])  # type: ignore[misc]


@dataclass(frozen=True)
class ParentRankings:
    """Each channel reduced to parents: best child per parent, and each parent's best page."""

    lexical: list[ChildHit]
    dense: list[ChildHit]
    pages: dict[str, tuple[int, PageHit]]
    dense_other: list[ChildHit] = field(default_factory=list)
    translated: list[ChildHit] = field(default_factory=list)
    translated_pages: dict[str, tuple[int, PageHit]] = field(default_factory=dict)

    @classmethod
    def of(cls, channels: Channels) -> ParentRankings:
        return cls(best_child_per_parent(channels.lexical), best_child_per_parent(channels.dense),
                   page_ranks(channels.pages), best_child_per_parent(channels.dense_other),
                   best_child_per_parent(channels.translated), page_ranks(channels.translated_pages))

    def fuse(self, dense_weight: float, page_weight: float) -> list[tuple[str, float]]:
        """Weighted RRF on parents (lexical 1.0)."""
        return fuse_rankings(
            [[h.parent_id for h in self.lexical], [h.parent_id for h in self.dense],
             {pid: rank for pid, (rank, _) in self.pages.items()}],
            weights=[1.0, dense_weight, page_weight],
        )

    def fuse_other(self, dense_weight: float, translated_weight: float) -> list[tuple[str, float]]:
        """The other language's documents ranked on their own: weighted RRF of their dense channel
        and of the translated terms' BM25 over their children and pages."""
        return fuse_rankings(
            [[h.parent_id for h in self.dense_other], [h.parent_id for h in self.translated],
             {pid: rank for pid, (rank, _) in self.translated_pages.items()}],
            weights=[dense_weight, translated_weight, translated_weight],
        )


def fuse_parents(channels: Channels, dense_weight: float = 1.0, page_weight: float = 1.0) -> list[tuple[str, float]]:
    return ParentRankings.of(channels).fuse(dense_weight, page_weight)


def fuse_with_other_language(channels: Channels, weights: RetrievalSettings, languages: Mapping[str, str],
                             language: str, reduced: ParentRankings | None = None, only_other: Sequence[str] = ()
                             ) -> tuple[list[tuple[str, float]], str | None]:
    """The fused parents with the best other-language parent placed (`place`), and that parent's id;
    `only_other` as in `placement`."""
    reduced = reduced or ParentRankings.of(channels)
    main = reduced.fuse(weights.dense_weight, weights.page_weight)
    other = reduced.fuse_other(weights.other_language_weight, weights.translated_weight)
    if not other:
        return main, None
    rank = placement(evidence_ratio(channels.lexical, channels.translated, languages, language), weights, only_other)
    keys, other_keys = [p for p, _ in main], [p for p, _ in other]
    scores = dict(other) | dict(main)  # a placed parent keeps its fused score when it has one
    return [(pid, scores[pid]) for pid in place(keys, other_keys, rank)], placed_key(keys, other_keys, rank)


def _channel_hits(hits: Sequence[ChildHit]) -> dict[str, ChannelHit]:
    return {h.parent_id: ChannelHit(rank=i, score=h.score, child_id=h.child_id) for i, h in enumerate(hits, 1)}


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
    language: str | None = None,
    translation: Translation | None = None,
) -> SearchResult:
    """Ranked parents for `query` within the ready documents `scope` (doc ids).

    `extra_terms` (thesaurus expansion) are weighted lexical terms of both BM25 channels; the
    dense channel sees the question only. The dense and page rankings weigh
    `settings.retrieval.dense_weight` and `page_weight` in the fusion (lexical 1.0). `language`
    is the question's (detected when None); the documents in scope written in another language
    are also ranked on their own (their dense channel and, given the question's terms in their
    language, `translation`, BM25 of those terms) and the best of them is placed in the list
    (`place`; `other_language_rank` 0 turns this off).
    """
    started = time.perf_counter()
    k = k or max(settings.retrieval.context_k, 10)
    candidate_k = candidate_k or settings.retrieval.candidate_k
    fusion = fusion or settings.retrieval.fusion
    language = language or detect_language(query)
    if not query.strip() or not scope:
        return SearchResult(query=query, parents=[], language=language,  # type: ignore[arg-type]
                            elapsed_s=time.perf_counter() - started)
    store.check_embedder(embedder.name, embedder.dim)
    vector = embedder.embed_query(query)  # once per question
    weights = settings.retrieval
    page_weight = weights.page_weight
    parent_fusion = fusion == "parents"
    records = {r.doc_id: r for r in store.documents()}
    languages = {doc_id: r.language for doc_id, r in records.items()}
    crossing = parent_fusion and weights.other_language_rank > 0
    other = other_language(languages, scope, language, translation) if crossing else None
    only_other = only_in_other_language(other, settings, languages, scope)
    channels = run_channels(query, vector, store, scope, candidate_k, language, extra_terms,
                            pages=parent_fusion and page_weight > 0, other=other)
    reduced = ParentRankings.of(channels)
    on_pages = {**reduced.translated_pages, **reduced.pages}
    if fusion == "children":
        fused_children = best_child_per_parent(store.hybrid(query, vector, language, scope, 2 * candidate_k))
        ranking = [(h.parent_id, h.score) for h in fused_children]
        best = {h.parent_id: h.child_id for h in fused_children}
        placed = None
    else:
        ranking, placed = fuse_with_other_language(channels, weights, languages, language, reduced, only_other)
        best = {}  # each parent's passage: from its best channel, lexical first
        for hits in (reduced.dense_other, reduced.translated, reduced.dense, reduced.lexical):
            best.update({h.parent_id: h.child_id for h in reversed(hits)})
    ranking = ranking[:k]
    parent_ids = [pid for pid, _ in ranking]
    parents = store.parents(parent_ids)
    children = store.children_of_parents(parent_ids)
    in_scope = set(scope)  # the channels prefiltered on it; this only guards against a bug below them
    info = {name: _channel_hits(getattr(reduced, name)) for name in ("lexical", "dense", "dense_other", "translated")}
    out: list[RetrievedParent] = []
    for pid, score in ranking:
        parent = parents.get(pid)
        kids = children.get(pid, [])
        if parent is None or not kids or parent.doc_id not in records or parent.doc_id not in in_scope:
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
                lexical=info["lexical"].get(pid), dense=info["dense"].get(pid),
                page=PageChannelHit(rank=reduced.pages[pid][0], score=reduced.pages[pid][1].score,
                                    page=reduced.pages[pid][1].page) if pid in reduced.pages else None,
                dense_other=info["dense_other"].get(pid), translated=info["translated"].get(pid),
                placed=pid == placed,
            )
        )
    shown = other.translation if other is not None and other.translation is not None else None
    return SearchResult(
        query=query, parents=out, expanded_terms=[t for t, _ in extra_terms], language=language,  # type: ignore[arg-type]
        translated=TranslatedTerms(language=shown.target, terms=shown.shown(), kept=list(shown.kept),  # type: ignore[arg-type]
                                   forms=[f for _, forms in shown.pairs for f in forms], only_other=only_other)
        if shown is not None else None,
        elapsed_s=time.perf_counter() - started,
    )
