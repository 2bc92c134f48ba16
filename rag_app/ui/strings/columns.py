"""User-facing strings: columns (French and English)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "col.file_name": {"fr": "fichier", "en": "file name"},
    "col.title": {"fr": "titre", "en": "title"},
    "col.author": {"fr": "auteur", "en": "author"},
    "col.date": {"fr": "date", "en": "date"},
    "col.collection": {"fr": "collection", "en": "collection"},
    "col.language": {"fr": "langue", "en": "language"},
    "col.pages": {"fr": "pages", "en": "pages"},
    "col.parents": {"fr": "sections (parents)", "en": "sections (parents)"},
    "col.children": {"fr": "passages (enfants)", "en": "passages (children)"},
    "col.tables": {"fr": "tableaux", "en": "tables"},
    "col.parser": {"fr": "analyseur", "en": "parser"},
    "col.embedder": {"fr": "modèle de plongement (vectoriseur)", "en": "embedding model"},
    "col.ingested_at": {"fr": "importé le", "en": "ingested at"},
    "col.elapsed_s": {"fr": "durée (s)", "en": "elapsed (s)"},
    "col.status": {"fr": "statut", "en": "status"},
}
