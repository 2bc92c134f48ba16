"""The façade's `search`: ranked passages of the readable documents, recorded in the audit trail.

A search reaches only the readable ready documents (`resolve_scope`: one read of the documents
table, prefiltered by the principal's grants), and the audit records what was searched
(`scope_fields`); both are the question's too (`services.scoping`). Re-exported by
`rag_core.pipeline`, which the pages and the CLI call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from rag_core import retrieval, understanding
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.embedding import select_embedder
from rag_core.models import Language, SearchResult
from rag_core.pipeline.presentation import search_sources
from rag_core.pipeline.question_input import check_question
from rag_core.services import permissions as perm
from rag_core.services.connection import open_store
from rag_core.services.scoping import resolve_scope, scope_fields
from rag_core.text import detect_language


def _search(
    query: str,
    settings: Settings,
    scope: Sequence[str],
    k: int | None = None,
    candidate_k: int | None = None,
    thesaurus: bool | None = None,
    language: Language | None = None,
) -> SearchResult:
    use = settings.understanding.thesaurus if thesaurus is None else thesaurus
    terms = understanding.expansion_terms(query, settings) if use else ()
    language = cast(Language, language or detect_language(query))  # detect_language gives 'fr' or 'en'
    return retrieval.search(
        query,
        open_store(settings),
        select_embedder(settings),
        settings,
        scope,
        k=k,
        candidate_k=candidate_k,
        extra_terms=terms,
        language=language,
        translation=understanding.translation(query, language, settings),
    )


def search(
    query: str,
    settings: Settings,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    k: int | None = None,
    candidate_k: int | None = None,
    thesaurus: bool | None = None,
    language: Language | None = None,
    *,
    principal: Principal,
) -> SearchResult:
    """Ranked parents of the readable documents (within `collections` / `doc_ids` when given);
    the thesaurus (when on, or when `thesaurus` says so) adds weighted lexical terms. `language`
    is the question's (detected when None); the glossary translates its terms for the documents
    written in the other language. The query is checked first, as a question is (`check_question`)."""
    query = check_question(query, settings)
    scope, searched = resolve_scope(settings, principal, collections, doc_ids)
    result = _search(query, settings, scope, k=k, candidate_k=candidate_k, thesaurus=thesaurus, language=language)
    perm.audit(
        settings,
        "search",
        principal,
        results=search_sources(result),
        **scope_fields(settings, searched, "query", query, collections, doc_ids),
    )
    return result
