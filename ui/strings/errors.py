"""User-facing strings: errors (French and English)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "error.generic": {
        "fr": "Une erreur inattendue s'est produite. Elle a été consignée dans le journal ; réessayez ou contactez "
        "l'équipe.",
        "en": "An unexpected error occurred. It has been logged; try again or contact the team.",
    },
    "error.not_ready": {
        "fr": "Cette fonction n'est pas encore disponible dans cette version.",
        "en": "This feature is not available in this version yet.",
    },
    "error.library": {
        "fr": "La bibliothèque (RAG_LIBRARY_URI) ne peut pas être utilisée : {message}",
        "en": "The library (RAG_LIBRARY_URI) cannot be used: {message}",
    },
    "error.settings": {
        "fr": "La configuration (variables RAG_...) est invalide : {fields}. Corrigez-la puis relancez l'application.",
        "en": "The configuration (RAG_... variables) is invalid: {fields}. Fix it and restart the application.",
    },
}
