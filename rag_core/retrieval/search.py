"""`search`: ranked parents for a question within a scope, in four steps.

1. `_channel_query`: the question embedded once, the other language's documents (`crosslingual`);
2. `running.run_all`: every registered channel that applies, each pre-filtered on the scope;
3. `_rank`: with fusion "parents" (default), each channel reduced to parents (`reduction`), the
   question's channels fused by weighted RRF and the other language's best parent placed
   (`crosslingual`); with "children", LanceDB's native hybrid query fuses children, then reduced
   to parents (no page channel, no cross-lingual placement) (docs/method.md);
4. `_retrieved`: the parents read back, each with its passage and its hit in every channel.
This module does not embed documents, write the index or build answers.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rag_core.config import Settings
from rag_core.embedding import Embedder
from rag_core.models import (
    ChannelHit,
    Child,
    DocumentRecord,
    PageChannelHit,
    Parent,
    RetrievedParent,
    SearchResult,
    TranslatedTerms,
)
from rag_core.retrieval.base import ChannelQuery, OtherLanguage, weight
from rag_core.retrieval.crosslingual import fuse_with_other_language, only_in_other_language, other_language
from rag_core.retrieval.reduction import ParentRankings, best_child_per_parent
from rag_core.retrieval.registry import channels
from rag_core.retrieval.running import Candidates, run_all
from rag_core.store import Store
from rag_core.text import detect_language
from rag_core.understanding.glossary import Translation
from rag_core.understanding.references import named, names


@dataclass(frozen=True)
class _Ranked:
    ranking: list[tuple[str, float]]  # (parent id, fused score), best first
    passages: dict[str, str]  # parent id -> the child shown for it, when a channel over children chose one
    placed: str | None = None  # the other language's parent placed at its rank
    named: frozenset[str] = frozenset()  # the parents that are a numbered part the question names, placed first
    loaded: Mapping[str, Parent] = field(default_factory=dict)  # parents already read for that (not read again)


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

    `extra_terms` (thesaurus expansion) are weighted terms of the BM25 channels; the dense
    channel sees the question only. Each channel weighs its `weight_setting` in the fusion.
    `language` is the question's (detected when None); given the question's terms in the other
    language (`translation`), the other language's documents are also searched with them, and
    their best passage is placed in the list (`other_language_rank` 0 turns this off).
    """
    started = time.perf_counter()
    k = k or max(settings.retrieval.context_k, 10)
    fusion = fusion or settings.retrieval.fusion
    language = language or detect_language(query)
    names = [c.name for c in channels()]
    labels = {c.name: c.label_key for c in channels()}
    if not query.strip() or not scope:
        return SearchResult(
            query=query,
            parents=[],
            language=language,
            channels=names,
            channel_labels=labels,
            elapsed_s=time.perf_counter() - started,
        )
    store.check_embedder(embedder.name, embedder.dim)
    records = {r.doc_id: r for r in store.documents()}
    languages = {doc_id: r.language for doc_id, r in records.items()}
    asked = _channel_query(
        query, embedder, store, settings, scope, candidate_k, fusion, language, extra_terms, languages, translation
    )
    only_other = only_in_other_language(asked.other, settings, languages, scope)
    candidates = run_all(asked)
    reduced = ParentRankings.of(candidates)
    ranked = _named_first(_rank(asked, candidates, reduced, settings, fusion, languages, only_other), query, store)
    parents = _retrieved(ranked, k, reduced, store, records, scope)
    return SearchResult(
        query=query,
        parents=parents,
        expanded_terms=[t for t, _ in extra_terms],
        language=language,
        translated=_translated_terms(asked.other, only_other),
        channels=names,
        channel_labels=labels,
        elapsed_s=time.perf_counter() - started,
    )


def _channel_query(
    query: str,
    embedder: Embedder,
    store: Store,
    settings: Settings,
    scope: Sequence[str],
    candidate_k: int | None,
    fusion: str,
    language: str,
    extra_terms: Sequence[tuple[str, float]],
    languages: Mapping[str, str],
    translation: Translation | None,
) -> ChannelQuery:
    """What the channels search with: the question embedded once, and the other language's documents
    when the cross-lingual search is on (fusion on parents, `other_language_rank` above 0); the channels over
    pages run with fusion on parents when one of the question's weighs more than 0."""
    weights = settings.retrieval
    parent_fusion = fusion == "parents"
    crossing = parent_fusion and weights.other_language_rank > 0
    other = other_language(languages, scope, language, translation) if crossing else None
    return ChannelQuery(
        query,
        embedder.embed_query(query),
        store,
        scope,
        candidate_k or weights.candidate_k,
        language,
        extra_terms,
        pages=parent_fusion and any(weight(c, weights) > 0 for c in channels("pages") if c.group == "question"),
        other=other,
    )


def _rank(
    asked: ChannelQuery,
    candidates: Candidates,
    reduced: ParentRankings,
    settings: Settings,
    fusion: str,
    languages: Mapping[str, str],
    only_other: Sequence[str],
) -> _Ranked:
    """The fused parents, with the passage of each that a channel over children chose."""
    if fusion == "children":
        fused = best_child_per_parent(
            asked.store.hybrid(asked.query, asked.vector, asked.language, asked.scope, 2 * asked.candidate_k)
        )
        return _Ranked([(h.parent_id, h.score) for h in fused], {h.parent_id: h.child_id for h in fused})
    ranking, placed = fuse_with_other_language(
        candidates, settings.retrieval, languages, asked.language, reduced, only_other
    )
    passages: dict[str, str] = {}  # from the parent's most trusted channel (lowest passage_priority)
    for channel in sorted(channels("children"), key=lambda c: c.passage_priority):
        for pid, hit in reduced.by_channel.get(channel.name, {}).items():
            if isinstance(hit, ChannelHit):
                passages.setdefault(pid, hit.child_id)
    return _Ranked(ranking, passages, placed)


NAMED_LOOKUP = 50  # the ranking's first parents read for a numbered part the question names


def _named_first(ranked: _Ranked, query: str, store: Store) -> _Ranked:
    """The parents that are a numbered part the question names ("Guideline 37C", « ligne directrice 37C »,
    `understanding.references`) first, in their fused order, when the channels found them among the first
    `NAMED_LOOKUP`: the reader asked for that part, whatever words it uses."""
    refs = named(query)
    if not refs:
        return ranked
    parents = store.parents([pid for pid, _ in ranked.ranking[:NAMED_LOOKUP]])
    named_ids = frozenset(pid for pid, p in parents.items() if names(p.heading_path, p.text, refs))
    if not named_ids:
        return ranked
    first = [x for x in ranked.ranking if x[0] in named_ids]
    rest = [x for x in ranked.ranking if x[0] not in named_ids]
    return _Ranked(first + rest, ranked.passages, ranked.placed, named_ids, parents)


def _page_of(parent_id: str, reduced: ParentRankings) -> int | None:
    """The page of the parent's best page hit, from the most trusted channel over pages that found it."""
    for channel in sorted(channels("pages"), key=lambda c: c.passage_priority):
        hit = reduced.by_channel.get(channel.name, {}).get(parent_id)
        if isinstance(hit, PageChannelHit):
            return hit.page
    return None


def _retrieved(
    ranked: _Ranked,
    k: int,
    reduced: ParentRankings,
    store: Store,
    records: Mapping[str, DocumentRecord],
    scope: Sequence[str],
) -> list[RetrievedParent]:
    """The first `k` parents of the ranking as read now, each with its passage and its channel hits."""
    ranking = ranked.ranking[:k]
    parent_ids = [pid for pid, _ in ranking]
    parents = {**ranked.loaded, **store.parents([pid for pid in parent_ids if pid not in ranked.loaded])}
    children = store.children_of_parents(parent_ids)
    in_scope = set(scope)  # the channels prefiltered on it; this only guards against a bug below them
    out: list[RetrievedParent] = []
    for pid, score in ranking:
        parent = parents.get(pid)
        kids = children.get(pid, [])
        if parent is None or not kids or parent.doc_id not in records or parent.doc_id not in in_scope:
            continue  # deleted between the two reads: the old or the new state, never half
        out.append(
            RetrievedParent(
                parent=parent,
                document=records[parent.doc_id],
                children=kids,
                best_child=_passage(pid, kids, ranked, reduced),
                fused_rank=len(out) + 1,
                fused_score=score,
                ranks=reduced.hits_of(pid),
                placed=pid == ranked.placed,
                named=pid in ranked.named,
            )
        )
    return out


def _passage(parent_id: str, kids: list[Child], ranked: _Ranked, reduced: ParentRankings) -> Child:
    """The child shown for a parent: the one a channel chose; found by a page only, the first child on that
    page; else its first child."""
    by_id = {c.id: c for c in kids}
    chosen = ranked.passages.get(parent_id)
    if chosen is None:
        page = _page_of(parent_id, reduced)
        if page is not None:
            chosen = next((c.id for c in kids if page in c.pages), kids[0].id)
    return by_id.get(chosen or "", kids[0])


def _translated_terms(other: OtherLanguage | None, only_other: Sequence[str]) -> TranslatedTerms | None:
    """The question's terms as searched in the other language's documents (None: no translation)."""
    shown = other.translation if other is not None else None
    if shown is None:
        return None
    return TranslatedTerms(
        language=shown.target,
        terms=shown.shown(),
        kept=list(shown.kept),
        forms=[f for _, forms in shown.pairs for f in forms],
        only_other=list(only_other),
    )
