"""Documents written in another language than the question: their own ranking, and where it goes.

A French question about an English document found nothing: the embedding pulls a question
towards the documents of its own language whatever their subject, and BM25 needs shared
words. The documents of the other language are therefore ranked on their own, by three
channels fused by RRF: the dense channel restricted to them, and BM25 of the question's terms
translated into their language (`understanding.glossary`) over their children and their pages.

Measured on the development sets (benchmarks/crosslingual_dev.py; figures in `config.py`):
adding these channels as extra votes of the main fusion lifted cross-lingual questions only at
weights that sank the same-language ones (each channel has a rank 1 whatever the question), and
running the dense channel per language then fusing the languages (the simple design) did not
lift them at all. What works is placing the best passage of the other-language ranking in the fused list: at
`other_language_strong_rank` when its evidence is clearly stronger than the question's own
(`evidence_ratio` >= `other_language_strong_ratio`: the translated terms' best BM25 score over
those documents against the question's best BM25 score over the documents of its own language),
else at `other_language_rank`. The question's own best passage always stays first; everything
else keeps its fused order. This module does not search.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from rag_core.config import RetrievalSettings
from rag_core.store import ChildHit
from rag_core.understanding.glossary import Translation

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


def evidence_ratio(lexical: Sequence[ChildHit], translated: Sequence[ChildHit], languages: Mapping[str, str],
                   language: str) -> float:
    """Best BM25 score of the translated terms over the other language's children, divided by the
    best BM25 score of the question over its own language's children (inf when only the former)."""
    theirs = translated[0].score if translated else 0.0
    own = next((h.score for h in lexical if languages.get(h.doc_id, language) == language), 0.0)
    if theirs <= 0:
        return 0.0
    return math.inf if own <= 0 else theirs / own


def placement(ratio: float, weights: RetrievalSettings) -> int:
    """Rank given to the best other-language passage (0: not placed)."""
    return weights.other_language_strong_rank if ratio >= weights.other_language_strong_ratio \
        else weights.other_language_rank


def place(main: Sequence[K], other: Sequence[K], rank: int) -> list[K]:
    """`main` with the best key of `other` not already ranked above `rank` moved or inserted at `rank`
    (1-based; 0 or an empty `other` leaves `main` as it is)."""
    out = list(main)
    if rank <= 0:
        return out
    above = set(out[:rank - 1])
    chosen = next((key for key in other if key not in above), None)
    if chosen is None:
        return out
    if chosen in out:
        out.remove(chosen)
    out.insert(min(rank - 1, len(out)), chosen)
    return out
