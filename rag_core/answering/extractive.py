"""Extractive answers: the documents' own sentences (or table rows) that answer the question.

Used when no language model is configured, and as the fallback when the model fails. The
sentences are chosen across the context parents by `evidence.select` (relevance floor,
redundancy removed, code and console output never offered); each parent that gives
sentences gets one paragraph, in context order, made of its sentences in document order,
citing the parent and quoting its first sentence, so the usual verification marks it
supported. When the question names a row label of a table in the context (an accident
year, "IBNR"), the answer starts with those rows (`table_rows`). When no sentence reaches
the floor, the answer shows where the search landed (the best passage's first sentence).
Nothing here is generated: every word comes from the document.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.answering.evidence import candidates, is_code_like, select, split_sentences
from rag_core.answering.table_rows import table_paragraphs
from rag_core.models import Paragraph, RetrievedParent


def _landing(hit: RetrievedParent) -> str:
    """The first prose sentence of the passage the search chose (or of the parent)."""
    for text in (hit.best_child.text, *(c.text for c in hit.children)):
        for sentence in split_sentences(text):
            if not is_code_like(sentence):
                return sentence
    sentences = split_sentences(hit.best_child.text)
    return sentences[0] if sentences else ""


def extractive_paragraphs(
    hits: Sequence[RetrievedParent],
    question: str,
    source_ids: Sequence[str],
    language: str = "",
    extra_terms: Sequence[str] = (),
) -> list[Paragraph]:
    """Table rows the question names, then one paragraph per context parent that holds relevant
    sentences; `source_ids[i]` is the registry id of `hits[i]`. A parent written in another
    language than the question's (`language`) is quoted as written and its paragraph labelled
    with its language (`extra_terms` carries the question's translated terms to match it)."""
    paragraphs = table_paragraphs(hits, question)
    chosen = select(candidates(hits, question, language, extra_terms))
    for p, (hit, sid) in enumerate(zip(hits, source_ids, strict=True)):
        sentences = [c.text for c in chosen if c.parent == p]
        if sentences:
            other = bool(language) and hit.document.language != language
            paragraphs.append(
                Paragraph(
                    text=" ".join(sentences),
                    source_ids=[sid],
                    quote=sentences[0],
                    language=hit.document.language if other else None,
                )
            )
    if not paragraphs and hits:
        sentence = _landing(hits[0])
        if sentence:
            other = bool(language) and hits[0].document.language != language
            paragraphs.append(
                Paragraph(
                    text=sentence,
                    source_ids=[source_ids[0]],
                    quote=sentence,
                    language=hits[0].document.language if other else None,
                )
            )
    return paragraphs
