"""Extractive answers: the sentences of the context that best match the question, verbatim.

Used when no language model is configured, and as the fallback when the model fails. One
paragraph per context parent, made of 1 to 3 of its sentences (best child first) that share
the most content words with the question, in document order. The paragraph cites its
parent and quotes its first sentence, so the usual verification marks it supported.
Nothing here is generated: every word comes from the document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.models import Child, Paragraph, RetrievedParent
from rag_core.text import STOP_WORDS, fold

MAX_SENTENCES = 3
MAX_SENTENCE_CHARS = 700  # a whole table row or a run-on list item is not a readable sentence


_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[A-ZÀ-ÖØ-Ý0-9«\"(\[$\\])")
_TABLE_RULE = re.compile(r"^[\s|:\-+=]*$")


def stem(word: str) -> str:
    """Crude, language-neutral stem: enough to match 'provisions' with 'provisionnement'."""
    if len(word) > 3 and word[-1] in "sx":
        word = word[:-1]
    return word[:6]


def content_stems(text: str) -> set[str]:
    return {stem(w) for w in re.findall(r"[a-z0-9]+", fold(text)) if w not in STOP_WORDS and len(w) > 1}


@dataclass(frozen=True)
class _Sentence:
    order: tuple[int, int]  # (child index, position in child): document order
    text: str
    score: float


def split_sentences(text: str) -> list[str]:
    """Verbatim pieces of `text`: lines, then sentences; table rules and empty pieces removed."""
    out: list[str] = []
    for line in text.splitlines():
        if _TABLE_RULE.match(line):
            continue
        for piece in _SENTENCE_END.split(line):
            piece = piece.strip()
            if len(re.findall(r"\w", piece)) >= 3:
                out.append(piece)
    return out


def _clip(sentence: str) -> str:
    if len(sentence) <= MAX_SENTENCE_CHARS:
        return sentence
    cut = sentence[:MAX_SENTENCE_CHARS]
    return cut[: cut.rfind(" ")] if " " in cut else cut


def _candidates(hit: RetrievedParent, query: set[str]) -> list[_Sentence]:
    children: list[Child] = hit.children or [hit.best_child]
    out: list[_Sentence] = []
    for child in children:
        bonus = 0.5 if child.id == hit.best_child.id else 0.0  # the search chose this passage
        for pos, sentence in enumerate(split_sentences(child.text)):
            overlap = len(query & content_stems(sentence))
            out.append(_Sentence(order=(child.index, pos), text=_clip(sentence), score=overlap + (bonus if overlap else 0.0)))
    return out


def best_sentences(hit: RetrievedParent, question: str, limit: int = MAX_SENTENCES) -> list[str]:
    """1 to `limit` verbatim sentences of the parent, best matches, in document order."""
    candidates = _candidates(hit, content_stems(question))
    if not candidates:
        return []
    ranked = sorted(candidates, key=lambda s: (-s.score, s.order))
    top = ranked[0].score
    if top <= 0:
        # Nothing shares a word with the question: show where the search landed.
        best = [s for s in candidates if s.order[0] == hit.best_child.index] or candidates
        return [best[0].text]
    chosen = [s for s in ranked[:limit] if s.score >= max(1.0, top / 2)]
    return [s.text for s in sorted(chosen, key=lambda s: s.order)]


def extractive_paragraphs(
    hits: Sequence[RetrievedParent], question: str, source_ids: Sequence[str], language: str | None = None,
    translated_terms: Sequence[str] = (),
) -> list[Paragraph]:
    """One paragraph per context parent; `source_ids[i]` is the registry id of `hits[i]`.

    A parent written in another language than the question (`language`) is matched with the
    question's translated terms too, and its paragraph, verbatim, is labelled with its language.
    """
    paragraphs: list[Paragraph] = []
    for hit, sid in zip(hits, source_ids, strict=True):
        other = language is not None and hit.document.language != language
        sentences = best_sentences(hit, " ".join([question, *translated_terms]) if other else question)
        if sentences:
            paragraphs.append(Paragraph(text=" ".join(sentences), source_ids=[sid], quote=sentences[0],
                                        language=hit.document.language if other else None))
    return paragraphs
