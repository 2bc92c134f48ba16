"""User-facing strings: library (French and English)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "library.title": {"fr": "Bibliothèque", "en": "Library"},
    "library.collection": {"fr": "Collection", "en": "Collection"},
    "library.new_collection": {"fr": "Nouvelle collection…", "en": "New collection…"},
    "library.new_name": {"fr": "Nom de la nouvelle collection", "en": "Name of the new collection"},
    "library.upload": {
        "fr": "Déposer des fichiers (PDF, DOCX, PPTX, HTML, MD)",
        "en": "Upload files (PDF, DOCX, PPTX, HTML, MD)",
    },
    "library.ingest": {"fr": "Importer", "en": "Ingest"},
    "library.limits": {
        "fr": "Jusqu'à {mb} Mo et {pages} pages par fichier (réglages `RAG_PARSING__MAX_FILE_MB` et "
        "`RAG_PARSING__MAX_PAGES`).",
        "en": "Up to {mb} MB and {pages} pages per file (settings `RAG_PARSING__MAX_FILE_MB` and "
        "`RAG_PARSING__MAX_PAGES`).",
    },
    "library.ingesting": {"fr": "Import en cours…", "en": "Ingesting…"},
    "library.method_table": {
        "fr": "Découpage et indexation de chaque document (méthode)",
        "en": "How each document was cut and indexed (method)",
    },
    "library.ingest_done": {"fr": "Import terminé", "en": "Ingestion finished"},
    "library.ingest_failed": {"fr": "Import interrompu", "en": "Ingestion stopped"},
    "library.no_name": {"fr": "Donnez un nom à la collection.", "en": "Give the collection a name."},
    "library.stage.parse": {"fr": "analyse", "en": "parsing"},
    "library.stage.chunk": {"fr": "découpage", "en": "chunking"},
    "library.stage.embed": {"fr": "vectorisation", "en": "embedding"},
    "library.stage.write": {"fr": "écriture", "en": "writing"},
    "library.progress": {"fr": "{file} : {stage} ({done}/{total})", "en": "{file}: {stage} ({done}/{total})"},
    "library.result.ingested": {"fr": "importé", "en": "ingested"},
    "library.result.already_present": {"fr": "déjà présent", "en": "already present"},
    "library.result.refused": {"fr": "refusé", "en": "refused"},
    "library.documents": {"fr": "Documents", "en": "Documents"},
    "library.empty": {"fr": "Aucun document pour l'instant.", "en": "No documents yet."},
    "library.delete": {"fr": "Supprimer un document", "en": "Delete a document"},
    "library.delete_pick": {"fr": "Document à supprimer", "en": "Document to delete"},
    "library.delete_confirm": {"fr": "Je confirme la suppression de « {name} »", "en": "I confirm deleting “{name}”"},
    "library.delete_button": {"fr": "Supprimer", "en": "Delete"},
    "library.deleted": {"fr": "« {name} » a été supprimé.", "en": "“{name}” was deleted."},
    "library.filter": {"fr": "Filtrer par collection", "en": "Filter by collection"},
    "library.all": {"fr": "Toutes", "en": "All"},
}
