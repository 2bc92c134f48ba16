"""Placing the best passage of the documents written in another language than the question.

A French question about an English document found nothing, since the embedding pulls a question
towards the documents of its own language whatever their subject, and BM25 needs shared words.
The documents of the other language are therefore also ranked on their own, by RRF of the
channels of the "other_language" group (the dense channel restricted to them, BM25 of the
question's terms translated into their language over their children and pages). Measured on the
dev sets (benchmarks/crosslingual_dev.py; figures in `config/sections.py`): adding these channels as extra
votes of the main fusion lifted cross-lingual questions only at weights that sank the
same-language ones (each channel has a rank 1 whatever the question), and running the dense
channel per language then fusing the languages did not lift them at all. What works is placing
the best passage of the other-language ranking in the fused list (`place`): at
`other_language_strong_rank` when its evidence is clearly stronger than the question's own
(`evidence_ratio` >= `other_language_strong_ratio`: the translated terms' best BM25 score over
those documents against the question's best BM25 score over its own language's documents) or
when a question term is found only in the other language's documents
(`understanding.term_presence`), else at `other_language_rank`. The question's own best passage
stays first. See docs/method.md. This module does not search.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from rag_core.config import RetrievalSettings, Settings
from rag_core.retrieval.base import OtherLanguage
from rag_core.retrieval.fusion import fuse_group
from rag_core.retrieval.reduction import ParentRankings
from rag_core.retrieval.registry import with_role
from rag_core.retrieval.running import Candidates
from rag_core.store import ChildHit
from rag_core.understanding.glossary import Translation
from rag_core.understanding.term_presence import term_presence

K = TypeVar("K", bound=Hashable)


def other_language(
    languages: Mapping[str, str], scope: Sequence[str], language: str, translation: Translation | None
) -> OtherLanguage | None:
    """The documents of `scope` (doc id -> language in `languages`) in the other language, or None."""
    other = [d for d in scope if languages.get(d, language) != language]
    if not other:
        return None
    target = translation.target if translation is not None else languages[other[0]]
    usable = translation if translation is not None and translation.query else None
    return OtherLanguage([d for d in other if languages[d] == target], target, usable)


def only_in_other_language(
    other: OtherLanguage | None, settings: Settings, languages: Mapping[str, str], scope: Sequence[str]
) -> list[str]:
    """The question's terms that only the other language's documents of `scope` name
    (`understanding.term_presence`); empty without a translation."""
    if other is None or other.translation is None:
        return []
    return term_presence(settings, scope).only_other_language(other.translation, languages, scope)


def evidence_ratio(
    lexical: Sequence[ChildHit], translated: Sequence[ChildHit], languages: Mapping[str, str], language: str
) -> float:
    """Best BM25 score of the translated terms over the other language's children, divided by the
    best BM25 score of the question over its own language's children (inf when only the former)."""
    theirs = translated[0].score if translated else 0.0
    own = next((h.score for h in lexical if languages.get(h.doc_id, language) == language), 0.0)
    if theirs <= 0:
        return 0.0
    return math.inf if own <= 0 else theirs / own


def candidates_evidence_ratio(candidates: Candidates, languages: Mapping[str, str], language: str) -> float:
    """`evidence_ratio` of the hits of the two groups' "lexical" channels (`base.ROLES`; 0.0 without them)."""
    own, theirs = with_role("lexical", "question"), with_role("lexical", "other_language")
    if own is None or theirs is None:
        return 0.0
    return evidence_ratio(candidates.children(own.name), candidates.children(theirs.name), languages, language)


def placement(ratio: float, weights: RetrievalSettings, only_other: Sequence[str] = ()) -> int:
    """Rank given to the best other-language passage (0: not placed); `only_other`: the question's
    terms found only in the other language's documents (`TermPresence.only_other_language`)."""
    if weights.other_language_rank <= 0:
        return 0
    return (
        weights.other_language_strong_rank
        if ratio >= weights.other_language_strong_ratio or only_other
        else weights.other_language_rank
    )


def placed_key(main: Sequence[K], other: Sequence[K], rank: int) -> K | None:
    """The key `place` moves: the best of `other` not already ranked above `rank` (None: nothing moves)."""
    if rank <= 0:
        return None
    above = set(main[: rank - 1])
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


def fuse_with_other_language(
    candidates: Candidates,
    weights: RetrievalSettings,
    languages: Mapping[str, str],
    language: str,
    reduced: ParentRankings | None = None,
    only_other: Sequence[str] = (),
) -> tuple[list[tuple[str, float]], str | None]:
    """The question's channels fused on parents with the best parent of the other language's channels
    placed (`place`), and that parent's id; `only_other` as in `placement`."""
    reduced = reduced or ParentRankings.of(candidates)
    main = fuse_group(reduced, "question", weights)
    other = fuse_group(reduced, "other_language", weights)
    if not other:
        return main, None
    rank = placement(candidates_evidence_ratio(candidates, languages, language), weights, only_other)
    keys, other_keys = [p for p, _ in main], [p for p, _ in other]
    scores = dict(other) | dict(main)  # a placed parent keeps its fused score when it has one
    return [(pid, scores[pid]) for pid in place(keys, other_keys, rank)], placed_key(keys, other_keys, rank)
