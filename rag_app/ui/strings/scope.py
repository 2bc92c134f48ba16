"""User-facing strings: what is withheld once a document left the user's scope (French and English)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "scope.answer_withheld": {
        "fr": "Cette réponse s'appuyait sur un document auquel vous n'avez plus accès : elle n'est plus affichée "
        "et ne sert plus de contexte aux questions suivantes.",
        "en": "This answer relied on a document you no longer have access to: it is no longer shown and no "
        "longer serves as context for the next questions.",
    },
    "scope.results_withheld": {
        "fr": "{n} résultat(s) retiré(s) : ils viennent de documents auxquels vous n'avez plus accès.",
        "en": "{n} result(s) removed: they come from documents you no longer have access to.",
    },
}
