"""User-facing strings: navigation and entry page (French and English)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "app.title": {"fr": "Questions-réponses sur vos documents", "en": "Question answering on your documents"},
    "app.intro": {
        "fr": "Déposez vos PDF, vérifiez leur découpage, posez vos questions : chaque paragraphe de réponse cite ses "
        "sources, "
        "et un clic sur une citation ouvre le passage surligné.",
        "en": "Upload your PDFs, check how they were parsed, ask questions: every paragraph of an answer cites its "
        "sources, "
        "and clicking a citation opens the highlighted passage.",
    },
    "nav.home": {"fr": "Accueil", "en": "Home"},
    "nav.library": {"fr": "Bibliothèque", "en": "Library"},
    "nav.inspect": {"fr": "Inspection", "en": "Inspect"},
    "nav.ask": {"fr": "Questions", "en": "Ask"},
    "nav.search": {"fr": "Test de recherche", "en": "Search test"},
    "lang.label": {"fr": "Langue", "en": "Language"},
    "backends.title": {"fr": "Moteurs utilisés", "en": "Backends in use"},
    "backends.component": {"fr": "Composant", "en": "Component"},
    "backends.value": {"fr": "Moteur / activation", "en": "Backend / how to enable"},
    "backends.help": {
        "fr": "Les moteurs de production s'activent par variables d'environnement : "
        "RAG_PARSING__DOCLING_ARTIFACTS_PATH "
        "(modèles Docling), RAG_EMBEDDING__BGE_M3_PATH (BGE-M3), RAG_RERANKER__PATH (reranker), OPENAI_API_KEY et "
        "OPENAI_BASE_URL (réponses rédigées par un modèle de langage).",
        "en": "Production backends are enabled with environment variables: RAG_PARSING__DOCLING_ARTIFACTS_PATH "
        "(Docling models), RAG_EMBEDDING__BGE_M3_PATH (BGE-M3), RAG_RERANKER__PATH (reranker), OPENAI_API_KEY and "
        "OPENAI_BASE_URL (answers written by a language model).",
    },
    "backends.parser": {"fr": "Analyse des fichiers", "en": "File parsing"},
    "backends.embedder": {"fr": "Plongements", "en": "Embeddings"},
    "backends.reranker": {"fr": "Reclassement", "en": "Reranking"},
    "backends.answers": {"fr": "Réponses", "en": "Answers"},
    "data_dir": {"fr": "Bibliothèque : {path}", "en": "Library: {path}"},
    "uploader.button": {"fr": "Parcourir", "en": "Browse"},
    "uploader.limit": {"fr": "{mb} Mo au plus par fichier", "en": "{mb} MB at most per file"},
}
