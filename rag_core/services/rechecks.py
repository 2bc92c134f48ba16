"""Scope checked again on what was produced earlier: a search result still on screen, the answers of
a chat, the stored conversation given to the model as history. Grants change between a question and
the next rerun; whatever names a document the principal can no longer read is withheld.

An answer or a stored exchange is kept whole or withheld whole (its text was written from all its
sources); a search result loses only the ranked parents of unreadable documents. This module reads
the grants and the documents table, never renders, and records nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.models import Answer, SearchResult
from rag_core.services import permissions as perm
from rag_core.services.connection import open_store


def readable_ids(settings: Settings, principal: Principal) -> frozenset[str]:
    """Ids of the ready documents the principal may read now."""
    store = open_store(settings)
    return frozenset(perm.readable_scope(settings, principal).document_ids(store.documents()))


def _answer_docs(answer: Answer) -> set[str]:
    return {s.doc_id for s in [*answer.sources, *answer.uncited]}


def search_in_scope(result: SearchResult, settings: Settings, *, principal: Principal) -> SearchResult:
    """`result` without the ranked parents of documents the principal can no longer read."""
    readable = readable_ids(settings, principal)
    kept = [hit for hit in result.parents if hit.document.doc_id in readable]
    return result if len(kept) == len(result.parents) else result.model_copy(update={"parents": kept})


def answers_in_scope(answers: Sequence[Answer | None], settings: Settings, *, principal: Principal) -> list[bool]:
    """For each answer, whether every document it used is still readable (True for None: no answer)."""
    readable = readable_ids(settings, principal)
    return [answer is None or _answer_docs(answer) <= readable for answer in answers]
