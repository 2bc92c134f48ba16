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
    "viewer.no_boxes": {
        "fr": "Pas de position connue pour ce passage (document sans pages) ; son texte :",
        "en": "No known position for this passage (document without pages); its text:",
    },
}
