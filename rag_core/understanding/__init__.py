"""Question understanding (docs/method.md, "Question understanding"): follow-ups, context budget,
sub-questions, thesaurus, glossary.

`expansion_terms` gives the thesaurus' weighted lexical terms for a query; `translation` its
terms in the other language (`glossary.py`). This package analyses questions: it never
searches, answers or stores passages (the question flow that calls it is `rag_core.question`).
It keeps one record of its own next to each document's chunks: the glossary terms the document
holds (`term_presence.py`), from which cross-lingual search tells a question about the other
language's documents.
"""

from __future__ import annotations

from rag_core.config import Settings
from rag_core.understanding.followups import conversation_key, conversation_path, read_history
from rag_core.understanding.glossary import (
    LANGUAGES,
    Glossary,
    Translation,
    glossary_extension_path,
    load_glossary,
    save_uploaded_glossary,
    translate,
)
from rag_core.understanding.thesaurus import load_thesaurus, save_uploaded_thesaurus, thesaurus_path


def expansion_terms(query: str, settings: Settings) -> tuple[tuple[str, float], ...]:
    thesaurus = load_thesaurus(settings)
    return thesaurus.expand(query).lexical_terms if thesaurus is not None else ()


def translation(query: str, language: str, settings: Settings) -> Translation | None:
    """The query's terms in the product's other language (glossary and thesaurus), or None when off."""
    glossary = load_glossary(settings)
    others = [lang for lang in LANGUAGES if lang != language]
    if glossary is None or not others:
        return None
    return translate(query, language, others[0], glossary, load_thesaurus(settings))


__all__ = [
    "Glossary",
    "Translation",
    "conversation_key",
    "conversation_path",
    "expansion_terms",
    "glossary_extension_path",
    "load_glossary",
    "load_thesaurus",
    "read_history",
    "save_uploaded_glossary",
    "save_uploaded_thesaurus",
    "thesaurus_path",
    "translation",
]
