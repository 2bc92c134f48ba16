"""The façade's `search`, and the scope of a question that `ask` shares with it.

A search reaches only the readable ready documents (`resolve_scope`: one read of the documents
table, prefiltered by the principal's grants), and the audit records what was searched
(`scope_fields`). `run_searches` runs the searches a question asks for, each round's at once.
Re-exported by `rag_core.pipeline`, which the pages and the CLI call.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from rag_core import retrieval, understanding
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.embedding import select_embedder
from rag_core.models import Language, SearchResult
from rag_core.pipeline import permissions as perm
from rag_core.pipeline.asking import QuestionRun
from rag_core.pipeline.connection import open_store
from rag_core.pipeline.presentation import search_sources
from rag_core.text import detect_language

_SEARCHES = ThreadPoolExecutor(max_workers=3, thread_name_prefix="search")  # a question's sub-questions at once


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


def resolve_scope(
    settings: Settings, principal: Principal, collections: Sequence[str] | None, doc_ids: Sequence[str] | None
) -> tuple[list[str], list[str]]:
    """The search scope (document ids) and the collections they lie in, from one read of the table."""
    records = open_store(settings).documents()
    scope = perm.readable_scope(settings, principal).document_ids(records, collections, doc_ids)
    in_scope = set(scope)
    return scope, sorted({r.collection for r in records if r.doc_id in in_scope})


def scope_fields(
    settings: Settings,
    searched: list[str],
    text_key: str,
    text: str,
    collections: Sequence[str] | None,
    doc_ids: Sequence[str] | None,
) -> dict[str, Any]:
    """What the audit records of a question's scope: the collections searched, and the filters asked for."""
    fields: dict[str, Any] = {
        "scope": searched,
        "collections": list(collections) if collections is not None else None,
        "documents": [{"doc_id": d} for d in doc_ids] if doc_ids is not None else None,
    }
    if settings.audit.mask_questions:
        fields[f"{text_key}_masked"] = True
    else:
        fields[text_key] = text
    return fields


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
    written in the other language."""
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


def run_searches(run: QuestionRun, settings: Settings, scope: Sequence[str]) -> None:
    """The searches the question asks for, round by round (each round's in parallel), within `scope`."""
    requests = run.searches()
    while requests:
        results = list(_SEARCHES.map(lambda r: _search(r.query, settings, scope, k=r.k, language=r.language), requests))
        requests = run.searched(results)
