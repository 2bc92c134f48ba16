"""User-facing strings: inspect (French and English)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "inspect.title": {"fr": "Inspection d'un document", "en": "Document inspector"},
    "inspect.pick": {"fr": "Document", "en": "Document"},
    "inspect.none": {
        "fr": "Importez d'abord un document dans la Bibliothèque.",
        "en": "Ingest a document in the Library first.",
    },
    "inspect.stats": {"fr": "Découpage du document", "en": "How the document is cut"},
    "inspect.stats_method": {
        "fr": "Détails de la méthode (parents, enfants, jetons)",
        "en": "Method details (parents, children, tokens)",
    },
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
        "fr": "Cadres pointillés : limites des sections ; cadres pleins : passages indexés (une couleur par passage).",
        "en": "Dashed frames: section boundaries; solid frames: indexed passages (one colour per passage).",
    },
    "inspect.child": {"fr": "Passage indexé", "en": "Indexed passage"},
    "inspect.raw": {"fr": "Texte brut", "en": "Raw text"},
    "inspect.context": {"fr": "Texte contextualisé (indexé)", "en": "Contextualised text (indexed)"},
    "inspect.child_meta": {
        "fr": "caractères {start}–{end} de la section · pages {pages} · taille : {tokens} jetons (unités du modèle)",
        "en": "characters {start}–{end} of the section · pages {pages} · size: {tokens} tokens (model units)",
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
    "stat.parents": {"fr": "Sections", "en": "Sections"},
    "stat.children": {"fr": "Passages indexés", "en": "Indexed passages"},
    "stat.parent_tokens": {"fr": "Jetons par parent (min–max)", "en": "Tokens per parent (min–max)"},
    "stat.child_tokens": {"fr": "Jetons par enfant (min–max)", "en": "Tokens per child (min–max)"},
    "stat.max_children": {"fr": "Enfants max. par parent", "en": "Max children per parent"},
}
