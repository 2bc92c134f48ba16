"""Everything one question needs, gathered once: `QuestionContext` and `build_context`.

The principal's readable scope (one read of the documents table), the question's language
(detected once here, handed to every later step), the earlier turns, the store and the embedder,
the thesaurus and the glossary (loaded once), the term check's view of the library and the
settings. `QuestionContext.search` runs one search within the scope with all of it; nothing after
this module resolves a scope, detects the language or loads a word list again for the question.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from rag_core import retrieval, understanding
from rag_core.access import Principal
from rag_core.answering.coverage import CoverageScope
from rag_core.config import Settings
from rag_core.embedding import Embedder, select_embedder
from rag_core.models import DocumentRecord, Language, SearchResult
from rag_core.question.announced import with_announced_lists
from rag_core.services.connection import open_store
from rag_core.services.rechecks import readable_ids
from rag_core.services.scoping import resolve_scope as resolve_scope
from rag_core.services.scoping import scope_fields as scope_fields
from rag_core.store import Store
from rag_core.text import detect_language
from rag_core.understanding.followups import HISTORY_MESSAGES, Message
from rag_core.understanding.furniture import furniture_words
from rag_core.understanding.glossary import LANGUAGES, Glossary, translate
from rag_core.understanding.thesaurus import Thesaurus


@dataclass(frozen=True)
class SearchRequest:
    """One search a question needs: the query, how many parents, and the question's language."""

    query: str
    k: int
    language: Language


Searcher = Callable[[SearchRequest], SearchResult]


@dataclass(frozen=True)
class QuestionContext:
    """One question, its asker and what answering it reads, built once (`build_context`)."""

    question: str
    settings: Settings
    language: Language
    search: Searcher  # one search within the scope, with the word lists below
    history: tuple[Message, ...] = ()
    library: CoverageScope | None = None  # the term check's view of the scope (None: check off)
    thesaurus: Thesaurus | None = None
    principal: Principal | None = None  # None only for a question run outside the façade
    scope: tuple[str, ...] = ()  # ids of the readable ready documents searched
    searched: tuple[str, ...] = ()  # the collections they lie in (for the audit)
    collections: tuple[str, ...] | None = None  # the filters asked for (for the audit)
    doc_ids: tuple[str, ...] | None = None
    conversation_id: str | None = None


def question_language(question: str) -> Language:
    """The question's language: detected once per question (`detect_language` gives 'fr' or 'en')."""
    return cast(Language, detect_language(question))


def scoped_searcher(
    settings: Settings,
    scope: Sequence[str],
    store: Store,
    embedder: Embedder,
    thesaurus: Thesaurus | None,
    glossary: Glossary | None,
) -> Searcher:
    """A search within `scope`: the thesaurus' weighted terms and the glossary's translation of each query."""

    def search(request: SearchRequest) -> SearchResult:
        terms = thesaurus.expand(request.query).lexical_terms if thesaurus is not None else ()
        others = [lang for lang in LANGUAGES if lang != request.language]
        translation = (
            translate(request.query, request.language, others[0], glossary, thesaurus) if glossary and others else None
        )
        result = retrieval.search(
            request.query,
            store,
            embedder,
            settings,
            scope,
            k=request.k,
            extra_terms=terms,
            language=request.language,
            translation=translation,
        )
        return with_announced_lists(result, store, min(request.k, settings.retrieval.context_k))

    return search


def coverage_scope(
    settings: Settings, scope: Sequence[str], thesaurus: Thesaurus | None = None, glossary: Glossary | None = None
) -> CoverageScope:
    """What the question's term check may look up: the same scope as the search (readable documents only);
    the word lists the context loaded, else loaded here."""
    store = open_store(settings)
    wanted = set(scope)
    records: list[DocumentRecord] = [r for r in store.documents() if r.doc_id in wanted]
    return CoverageScope(
        lambda words, limit: store.passages_with(words, scope, limit),
        frozenset(r.language for r in records),
        thesaurus if thesaurus is not None else understanding.load_thesaurus(settings),
        sum(r.children for r in records),
        glossary if glossary is not None else understanding.load_glossary(settings),
        furniture_words(settings, records),
    )


def build_context(
    question: str,
    settings: Settings,
    principal: Principal,
    conversation_id: str | None = None,
    collections: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    history: Sequence[Message] | None = None,
    language: Language | None = None,
) -> QuestionContext:
    """The question's context: scope, language, earlier turns (`history` as a chat client sends them,
    else the principal's stored conversation without what they may no longer read), word lists, searcher."""
    scope, searched = resolve_scope(settings, principal, collections, doc_ids)
    turns = (
        understanding.read_history(
            settings, conversation_id, user=principal.user, readable=readable_ids(settings, principal)
        )
        if history is None
        else list(history)[-HISTORY_MESSAGES:]
    )
    thesaurus = understanding.load_thesaurus(settings)
    glossary = understanding.load_glossary(settings)
    store = open_store(settings)
    return QuestionContext(
        question=question,
        settings=settings,
        language=language or question_language(question),
        search=scoped_searcher(settings, scope, store, select_embedder(settings), thesaurus, glossary),
        history=tuple(turns),
        library=coverage_scope(settings, scope, thesaurus, glossary) if settings.answer.check_terms else None,
        thesaurus=thesaurus,
        principal=principal,
        scope=tuple(scope),
        searched=tuple(searched),
        collections=tuple(collections) if collections is not None else None,
        doc_ids=tuple(doc_ids) if doc_ids is not None else None,
        conversation_id=conversation_id,
    )
