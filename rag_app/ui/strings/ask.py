"""User-facing strings: ask (French and English)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "ask.title": {"fr": "Poser une question", "en": "Ask a question"},
    "ask.scope_collections": {"fr": "Collections interrogées", "en": "Collections searched"},
    "ask.scope_documents": {"fr": "Documents interrogés", "en": "Documents searched"},
    "ask.scope_help": {"fr": "Vide : tout", "en": "Empty: everything"},
    "ask.input": {"fr": "Votre question", "en": "Your question"},
    "ask.thinking": {"fr": "Recherche et rédaction…", "en": "Searching and writing…"},
    "ask.extractive": {
        "fr": "extractif : réponse composée des passages les plus pertinents (aucun modèle de langage configuré)",
        "en": "extractive: answer made of the most relevant passages (no language model configured)",
    },
    "ask.extractive_fallback": {
        "fr": "extractif : la réponse du modèle de langage n'a pas pu être utilisée (la raison est indiquée dessous)",
        "en": "extractive: the language model's answer could not be used (the reason is given below)",
    },
    "ask.refused": {
        "fr": "Aucun passage des documents ne répond à cette question. Passages les plus proches :",
        "en": "No passage of the documents answers this question. Closest passages:",
    },
    "ask.refused_closest": {
        "fr": "Passages les plus proches (ce n'est pas une réponse) :",
        "en": "Closest passages (not an answer):",
    },
    "ask.missing": {"fr": "Information manquante : ", "en": "Missing information: "},
    "ask.uncited": {"fr": "Passages retrouvés mais non cités", "en": "Passages retrieved but not cited"},
    "ask.report": {"fr": "Signaler une citation erronée", "en": "Report a wrong citation"},
    "ask.report_source": {"fr": "Citation concernée", "en": "Citation concerned"},
    "ask.report_comment": {"fr": "Commentaire", "en": "Comment"},
    "ask.report_send": {"fr": "Enregistrer le signalement", "en": "Save the report"},
    "ask.reported": {"fr": "Signalement enregistré.", "en": "Report saved."},
    "ask.export": {"fr": "Exporter les signalements (JSONL)", "en": "Export the reports (JSONL)"},
    "ask.clear": {"fr": "Nouvelle conversation", "en": "New conversation"},
    "ask.viewer_empty": {
        "fr": "Cliquez sur une citation pour ouvrir le passage surligné.",
        "en": "Click a citation to open the highlighted passage.",
    },
    "numbers.cell": {"fr": "{n} · cellule L{row} C{col} · page {page}", "en": "{n} · cell R{row} C{col} · page {page}"},
    "numbers.sentence": {"fr": "{n} · phrase · page {page}", "en": "{n} · sentence · page {page}"},
    "numbers.more": {"fr": "… et {n} autres nombres cités", "en": "… and {n} more quoted numbers"},
    "numbers.computed": {"fr": "calculé (vérifié)", "en": "computed (checked)"},
    "numbers.mismatch": {"fr": "le calcul ne correspond pas", "en": "computation does not match"},
    "numbers.unsupported": {"fr": "non étayé", "en": "unsupported"},
    "numbers.summary": {
        "fr": "Chiffres à vérifier : {unsupported} non étayé(s) par les sources, "
        "{mismatch} calcul(s) qui ne correspondent pas.",
        "en": "Figures to check: {unsupported} not supported by the sources, "
        "{mismatch} computation(s) that do not match.",
    },
    "viewer.title": {"fr": "{label}", "en": "{label}"},
    "viewer.pages": {"fr": "Page(s) affichée(s) : {pages}", "en": "Page(s) shown: {pages}"},
    "viewer.close": {"fr": "Fermer", "en": "Close"},
    "viewer.legend.table": {
        "fr": "Cadre rouge : la cellule d'où vient le chiffre · cadre bleu pointillé : le reste du tableau.",
        "en": "Red frame: the cell the figure comes from · blue dashed frame: the rest of the table.",
    },
    "viewer.legend.passage": {
        "fr": "Cadre rouge : la ligne d'où vient le chiffre · cadre bleu pointillé : le reste du passage.",
        "en": "Red frame: the line the figure comes from · blue dashed frame: the rest of the passage.",
    },
    "viewer.no_boxes": {
        "fr": "Pas de position connue pour ce passage (document sans pages) ; son texte :",
        "en": "No known position for this passage (document without pages); its text:",
    },
    "ask.conversations": {"fr": "Conversations", "en": "Conversations"},
    "ask.conversation_new": {"fr": "Nouvelle conversation (vide)", "en": "New conversation (empty)"},
    "ask.conversation_item": {"fr": "{q} · {when} · {n} réponse(s)", "en": "{q} · {when} · {n} answer(s)"},
    "ask.details": {"fr": "Détails de la recherche", "en": "Search details"},
    "ask.table_rows": {"fr": "Extrait du tableau ({n} lignes)", "en": "Table excerpt ({n} rows)"},
    "ask.refused_nothing": {
        "fr": "Aucun passage des documents accessibles ne répond à cette question, et aucun ne s'en approche.",
        "en": "No passage of the documents you can read answers this question, and none comes close.",
    },
    "ask.viewer_beside": {"fr": "Visionneuse à côté du chat", "en": "Viewer beside the chat"},
    "ask.viewer_beside_help": {
        "fr": "Désactivé : la visionneuse s'ouvre sous les réponses, sur toute la largeur (page lisible à 100 %).",
        "en": "Off: the viewer opens under the answers, at full width (page readable at 100 %).",
    },
    "ask.library_empty": {
        "fr": "La bibliothèque ne contient encore aucun document que vous pouvez lire : importez d'abord vos "
        "documents dans la page Bibliothèque.",
        "en": "The library holds no document you can read yet: first import your documents on the Library page.",
    },
    "ask.library_link": {"fr": "Aller à la Bibliothèque", "en": "Go to the Library"},
    "ask.too_long": {
        "fr": "Cette question compte {n} caractères, au-delà de la limite de {max} : elle n'a pas été posée. "
        "Raccourcissez-la, ou recherchez avec ses {max} premiers caractères.",
        "en": "This question has {n} characters, over the limit of {max}: it was not asked. "
        "Shorten it, or search with its first {max} characters.",
    },
    "ask.search_first_part": {
        "fr": "Rechercher avec les {max} premiers caractères",
        "en": "Search with the first {max} characters",
    },
    # a passage whose extracted text is garbled (mathematics), shown as the page prints it (Ask and Search)
    "crop.caption": {
        "fr": "Formule telle qu'imprimée (le texte extrait est illisible)",
        "en": "Formula as printed (the extracted text is unreadable)",
    },
    "crop.text": {"fr": "Texte extrait", "en": "Extracted text"},
}
