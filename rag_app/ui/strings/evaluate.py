"""User-facing strings: evaluate (French and English)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "evaluate.title": {"fr": "Évaluation de la recherche", "en": "Evaluate retrieval"},
    "evaluate.set": {"fr": "Jeu de questions", "en": "Question set"},
    "evaluate.source.shared": {"fr": "Jeu partagé", "en": "Shared set"},
    "evaluate.source.upload": {"fr": "Fichier déposé", "en": "Upload"},
    "evaluate.source.reported": {"fr": "Citations signalées", "en": "Reported citations"},
    "evaluate.no_set": {
        "fr": "Aucun jeu de questions dans {path} (réglez RAG_SHARED_DIR).",
        "en": "No question set found in {path} (set RAG_SHARED_DIR).",
    },
    "evaluate.file": {"fr": "Fichier", "en": "File"},
    "evaluate.upload": {"fr": "Questions (JSON lines)", "en": "Questions (JSON lines)"},
    "evaluate.no_reports": {
        "fr": "Aucune citation signalée pour l'instant.",
        "en": "No citation has been reported yet.",
    },
    "evaluate.pdf_dir": {
        "fr": "Dossier des PDF sur le serveur (vide : la bibliothèque ; sinon tout le dossier est l'espace de "
        "recherche, ses fichiers absents sont importés d'abord)",
        "en": "Folder of PDFs on the server (empty: the library; otherwise the whole folder is the search space, "
        "its missing files imported first)",
    },
    "evaluate.engines": {"fr": "Moteurs", "en": "Engines"},
    "evaluate.run": {"fr": "Lancer", "en": "Run"},
    "evaluate.starting": {"fr": "Démarrage…", "en": "Starting…"},
    "evaluate.done": {"fr": "Terminé", "en": "Done"},
    "evaluate.summary": {
        "fr": "{set} : {n} questions avec réponse sur {total}",
        "en": "{set}: {n} answerable of {total} questions",
    },
    "evaluate.caption": {
        "fr": "Moteur par défaut : {engine}. Niveau page : une page prend le rang de son meilleur enfant ; moyennes "
        "avec intervalles bootstrap à 95 %.",
        "en": "Default engine: {engine}. Page level: a page takes the rank of its best child; means with 95 % "
        "bootstrap intervals.",
    },
    "evaluate.beats": {
        "fr": "Le moteur par défaut bat la meilleure référence de docs/method.md sur chaque colonne.",
        "en": "The default engine beats the best docs/method.md baseline on every column.",
    },
    "evaluate.not_beats": {
        "fr": "Le moteur par défaut ne bat pas la meilleure référence de docs/method.md sur chaque colonne.",
        "en": "The default engine does not beat the best docs/method.md baseline on every column.",
    },
    "evaluate.absent": {"fr": "{name} : absent ({why})", "en": "{name}: absent ({why})"},
    "evaluate.metric": {"fr": "Mesure des graphiques", "en": "Metric for the charts"},
    "evaluate.by_type": {"fr": "Par type", "en": "By type"},
    "evaluate.by_language": {"fr": "Par langue", "en": "By language"},
    "evaluate.match.same_language": {"fr": "même langue", "en": "same language"},
    "evaluate.match.cross_lingual": {"fr": "autre langue", "en": "cross-lingual"},
    "evaluate.match.mixed": {"fr": "mixte", "en": "mixed"},
    "evaluate.by_language_match": {"fr": "Même langue / autre langue", "en": "Same language / cross-lingual"},
    "evaluate.language_match_help": {
        "fr": "(langue de la question et des PDF attendus ; doc@3 : un PDF attendu parmi les trois premiers documents)",
        "en": "(question language vs the relevant PDFs' "
        "language; doc@3: a relevant PDF among the first three documents)",
    },
    "evaluate.per_question": {"fr": "Par question, moteur", "en": "Per question, engine"},
    "evaluate.download": {"fr": "Télécharger results.json", "en": "Download results.json"},
    "evaluate.on_library": {
        "fr": "Le jeu est évalué sur les documents de la bibliothèque que vous pouvez lire, tels qu'ils sont "
        "importés : le champ `pdf` de chaque question nomme un fichier de la bibliothèque.",
        "en": "The set is evaluated on the library's documents you can read, as imported: each question's `pdf` "
        "field names a file of the library.",
    },
    "evaluate.folder_option": {
        "fr": "Administrateurs : évaluer plutôt sur un dossier de PDF du serveur",
        "en": "Administrators: evaluate on a folder of PDFs on the server instead",
    },
    "evaluate.format": {
        "fr": 'Une question par ligne, en JSON : {"id", "question", "language": "fr"|"en", '
        '"pdf": nom du fichier, "pages": [pages de la preuve, à partir de 1], "type"} ; '
        "voir docs/question_sets.md.",
        "en": 'One question per line, as JSON: {"id", "question", "language": "fr"|"en", '
        '"pdf": file name, "pages": [evidence pages, from 1], "type"}; see docs/question_sets.md.',
    },
    # column and axis titles of the results (rag_core names them in English for its CLI report)
    "evaluate.col.engine": {"fr": "moteur", "en": "engine"},
    "evaluate.col.language": {"fr": "langue", "en": "language"},
    "evaluate.col.type": {"fr": "type", "en": "type"},
    "evaluate.col.question": {"fr": "question", "en": "question"},
    "evaluate.col.first relevant rank": {"fr": "rang de la 1re page pertinente", "en": "first relevant rank"},
    "evaluate.col.quote in top-3 parents": {
        "fr": "citation dans les 3 premiers parents",
        "en": "quote in top-3 parents",
    },
    "evaluate.col.expected": {"fr": "attendu", "en": "expected"},
    "evaluate.col.top pages": {"fr": "premières pages", "en": "top pages"},
    "evaluate.col.best score": {"fr": "meilleur score", "en": "best score"},
    "evaluate.col.context_tokens": {"fr": "jetons de contexte", "en": "context tokens"},
    "evaluate.col.context_pages": {"fr": "pages de contexte", "en": "context pages"},
    "evaluate.col.95% CI": {"fr": "IC 95 %", "en": "95% CI"},
    "evaluate.unanswerable": {"fr": "(sans réponse)", "en": "(unanswerable)"},
}
