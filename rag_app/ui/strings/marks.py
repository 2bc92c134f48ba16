"""User-facing strings: the guard-rails' marks on paragraphs and answers, keyed by `Mark.key` (French and English).

A new check (`rag_core/answering/guardrails`) adds the messages of its marks here.
"""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "mark.quote.partial": {"fr": "partiellement étayé", "en": "partially supported"},
    "mark.support.supported": {"fr": "jugé appuyé par ses sources", "en": "judged supported by its sources"},
    "mark.support.partly": {"fr": "jugé en partie appuyé", "en": "judged partly supported"},
    "mark.support.not_supported": {
        "fr": "jugé NON appuyé par ses sources",
        "en": "judged NOT supported by its sources",
    },
    "mark.support.skipped_extractive": {
        "fr": "contrôle d'appui non fait : une réponse extractive n'a pas de modèle pour la juger",
        "en": "support check not run: an extractive answer has no model to judge it",
    },
    "mark.support.skipped_stopped": {
        "fr": "contrôle d'appui non fait : la rédaction a été arrêtée",
        "en": "support check not run: the writing was stopped",
    },
    "mark.numbers.unsupported": {
        "fr": "partiellement étayé : {n} chiffre(s) introuvable(s) dans les sources ou mal calculé(s)",
        "en": "partially supported: {n} figure(s) found in no source or miscomputed",
    },
    "mark.subject.elsewhere": {
        "fr": "partiellement étayé : sa citation ne parle de rien de ce que la question demande",
        "en": "partially supported: its quote names nothing the question asks about",
    },
    "mark.collections.several": {
        "fr": "cite plusieurs collections : {names}",
        "en": "cites several collections: {names}",
    },
}
