"""User-facing strings: inspect (French and English)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "inspect.title": {"fr": "Inspection d'un document", "en": "Document inspector"},
    "inspect.pick": {"fr": "Document", "en": "Document"},
    "inspect.none": {
        "fr": "Importez d'abord un document dans la Bibliothèque.",
        "en": "Ingest a document in the Library first.",
    },
    "inspect.stats": {"fr": "Statistiques du découpage", "en": "Parse statistics"},
    "inspect.sections": {"fr": "Sections", "en": "Sections"},
    "inspect.open_section": {
        "fr": "Ouvrir la première page de la section, avec ses cadres.",
        "en": "Open the section's first page, with its boxes.",
    },
    "inspect.suspect": {
        "fr": "Section peut-être mal détectée : aucun texte, ou une seule ligne courte.",
        "en": "This section may be mis-detected: no text, or a single short line.",
    },
    "inspect.suspect_legend": {
        "fr": "⚠ : section peut-être mal détectée (vide ou d'une ligne).",
        "en": "⚠: section that may be mis-detected (empty or one line long).",
    },
    "inspect.page_view": {"fr": "Vue de page", "en": "Page view"},
    "inspect.page": {"fr": "Page", "en": "Page"},
    "inspect.legend": {
        "fr": "Cadres pointillés : limites des parents ; cadres pleins : enfants (une couleur par enfant).",
        "en": "Dashed frames: parent boundaries; solid frames: children (one colour per child).",
    },
    "inspect.child": {"fr": "Enfant", "en": "Child"},
    "inspect.raw": {"fr": "Texte brut", "en": "Raw text"},
    "inspect.context": {"fr": "Texte contextualisé (indexé)", "en": "Contextualised text (indexed)"},
    "inspect.child_meta": {
        "fr": "{tokens} jetons · caractères {start}–{end} du parent · pages {pages}",
        "en": "{tokens} tokens · characters {start}–{end} of the parent · pages {pages}",
    },
    "inspect.tables": {"fr": "Tableaux", "en": "Tables"},
    "inspect.no_tables": {"fr": "Aucun tableau détecté.", "en": "No table detected."},
    "inspect.figures": {"fr": "Figures", "en": "Figures"},
    "inspect.no_figures": {"fr": "Aucune figure détectée.", "en": "No figure detected."},
    "inspect.table_caption": {"fr": "Tableau {n} · p. {page}", "en": "Table {n} · p. {page}"},
    "inspect.table_ocr": {
        "fr": "Lu par OCR dans une image : vérifiez les chiffres sur la page.",
        "en": "Read by OCR from an image: check the numbers against the page.",
    },
    "inspect.table_text_layer": {"fr": "Lu dans la couche texte du PDF.", "en": "Read from the PDF's text layer."},
    "inspect.figure_caption": {"fr": "Figure {n} · p. {page}", "en": "Figure {n} · p. {page}"},
    "inspect.figure_text": {"fr": "Texte dans la figure", "en": "Text in the figure"},
    "inspect.csv": {"fr": "Télécharger en CSV", "en": "Download CSV"},
    "inspect.xlsx": {"fr": "Télécharger en Excel", "en": "Download Excel"},
    "stat.parents": {"fr": "Parents", "en": "Parents"},
    "stat.children": {"fr": "Enfants", "en": "Children"},
    "stat.parent_tokens": {"fr": "Jetons par parent (min–max)", "en": "Tokens per parent (min–max)"},
    "stat.child_tokens": {"fr": "Jetons par enfant (min–max)", "en": "Tokens per child (min–max)"},
    "stat.max_children": {"fr": "Enfants max. par parent", "en": "Max children per parent"},
}
