"""User-facing strings: the answer while it is written, and what it cost (French and English)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "stream.stop": {"fr": "Arrêter la rédaction", "en": "Stop writing"},
    "stream.draft": {"fr": "en cours de rédaction, pas encore vérifié", "en": "being written, not yet verified"},
    "stream.checked": {"fr": "paragraphe vérifié", "en": "paragraph verified"},
    "stream.partial": {"fr": "vérifié : citation non retrouvée", "en": "verified: quote not found"},
    "stream.removed": {"fr": "paragraphe retiré : {reason}", "en": "paragraph removed: {reason}"},
    "stream.final": {
        "fr": "Brouillon : la réponse vérifiée en entier le remplacera.",
        "en": "Draft: the fully verified answer will replace it.",
    },
    "stream.cost": {
        "fr": "Jetons : {prompt} en entrée, {completion} en sortie · sortie structurée : {dialect} · "
        "premier paragraphe en {first:.1f} s · {total:.1f} s en tout",
        "en": "Tokens: {prompt} in, {completion} out · structured output: {dialect} · "
        "first paragraph in {first:.1f} s · {total:.1f} s in all",
    },
    "stream.estimated": {
        "fr": " (jetons estimés localement : le point d'accès n'a pas donné son compte)",
        "en": " (tokens estimated locally: the endpoint gave no count)",
    },
    "stream.queued": {
        "fr": "Le modèle rédige une autre réponse : la vôtre attend, position {n} dans la file.",
        "en": "The model is writing another answer: yours waits, position {n} in the queue.",
    },
    "stream.cost_check": {
        "fr": " · contrôle d'appui : {prompt} + {completion} jetons",
        "en": " · support check: {prompt} + {completion} tokens",
    },
}
