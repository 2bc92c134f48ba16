"""Question understanding (METHOD.md §3-4): follow-ups, context budget, sub-questions, thesaurus.

`expansion_terms` gives the thesaurus' weighted lexical terms for a query. This package only
analyses questions: it never searches, answers, stores or indexes (the question flow that calls
it is `rag_core.pipeline.asking`).
"""

from __future__ import annotations

from rag_core.config import Settings
from rag_core.understanding.followups import conversation_path, read_history
from rag_core.understanding.thesaurus import load_thesaurus, save_uploaded_thesaurus, thesaurus_path


def expansion_terms(query: str, settings: Settings) -> tuple[tuple[str, float], ...]:
    thesaurus = load_thesaurus(settings)
    return thesaurus.expand(query).lexical_terms if thesaurus is not None else ()


__all__ = ["conversation_path", "expansion_terms", "load_thesaurus", "read_history",
           "save_uploaded_thesaurus", "thesaurus_path"]
