"""User-facing strings in French (default) and English.

Only our own strings live here; document text is never translated nor formatted as markdown.
"""

from __future__ import annotations

from typing import Literal

import streamlit as st

Lang = Literal["fr", "en"]
LANG_KEY = "lang"
DEFAULT_LANG: Lang = "fr"

STRINGS: dict[str, dict[Lang, str]] = {
    # navigation and entry page
    "app.title": {"fr": "Questions-réponses sur vos documents", "en": "Question answering on your documents"},
    "app.intro": {
        "fr": "Déposez vos PDF, vérifiez leur découpage, posez vos questions : chaque paragraphe de réponse cite ses sources, "
        "et un clic sur une citation ouvre le passage surligné.",
        "en": "Upload your PDFs, check how they were parsed, ask questions: every paragraph of an answer cites its sources, "
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
        "fr": "Les moteurs de production s'activent par variables d'environnement : RAG_PARSING__DOCLING_ARTIFACTS_PATH "
        "(modèles Docling), RAG_EMBEDDING__BGE_M3_PATH (BGE-M3), RAG_RERANKER__PATH (reranker), OPENAI_API_KEY et "
        "OPENAI_BASE_URL (réponses rédigées par un modèle de langage).",
        "en": "Production backends are enabled with environment variables: RAG_PARSING__DOCLING_ARTIFACTS_PATH "
        "(Docling models), RAG_EMBEDDING__BGE_M3_PATH (BGE-M3), RAG_RERANKER__PATH (reranker), OPENAI_API_KEY and "
        "OPENAI_BASE_URL (answers written by a language model).",
    },
    "data_dir": {"fr": "Dossier de données : {path}", "en": "Data folder: {path}"},
    # errors
    "error.generic": {
        "fr": "Une erreur inattendue s'est produite. Elle a été consignée dans le journal ; réessayez ou contactez l'équipe.",
        "en": "An unexpected error occurred. It has been logged; try again or contact the team.",
    },
    "error.not_ready": {
        "fr": "Cette fonction n'est pas encore disponible dans cette version.",
        "en": "This feature is not available in this version yet.",
    },
    "error.settings": {
        "fr": "La configuration (variables RAG_...) est invalide : {fields}. Corrigez-la puis relancez l'application.",
        "en": "The configuration (RAG_... variables) is invalid: {fields}. Fix it and restart the application.",
    },
    # library
    "library.title": {"fr": "Bibliothèque", "en": "Library"},
    "library.collection": {"fr": "Collection", "en": "Collection"},
    "library.new_collection": {"fr": "Nouvelle collection…", "en": "New collection…"},
    "library.new_name": {"fr": "Nom de la nouvelle collection", "en": "Name of the new collection"},
    "library.upload": {"fr": "Déposer des fichiers (PDF, DOCX, PPTX, HTML, MD)", "en": "Upload files (PDF, DOCX, PPTX, HTML, MD)"},
    "library.ingest": {"fr": "Importer", "en": "Ingest"},
    "library.limits": {
        "fr": "Jusqu'à {mb} Mo et {pages} pages par fichier (réglages `RAG_PARSING__MAX_FILE_MB` et `RAG_PARSING__MAX_PAGES`).",
        "en": "Up to {mb} MB and {pages} pages per file (settings `RAG_PARSING__MAX_FILE_MB` and `RAG_PARSING__MAX_PAGES`).",
    },
    "library.ingesting": {"fr": "Import en cours…", "en": "Ingesting…"},
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
    # columns
    "col.file_name": {"fr": "fichier", "en": "file name"},
    "col.collection": {"fr": "collection", "en": "collection"},
    "col.language": {"fr": "langue", "en": "language"},
    "col.pages": {"fr": "pages", "en": "pages"},
    "col.parents": {"fr": "parents", "en": "parents"},
    "col.children": {"fr": "enfants", "en": "children"},
    "col.tables": {"fr": "tableaux", "en": "tables"},
    "col.parser": {"fr": "analyseur", "en": "parser"},
    "col.embedder": {"fr": "vectoriseur", "en": "embedder"},
    "col.ingested_at": {"fr": "importé le", "en": "ingested at"},
    "col.elapsed_s": {"fr": "durée (s)", "en": "elapsed (s)"},
    "col.status": {"fr": "statut", "en": "status"},
    # inspect
    "inspect.title": {"fr": "Inspection d'un document", "en": "Document inspector"},
    "inspect.pick": {"fr": "Document", "en": "Document"},
    "inspect.none": {"fr": "Importez d'abord un document dans la Bibliothèque.", "en": "Ingest a document in the Library first."},
    "inspect.stats": {"fr": "Statistiques du découpage", "en": "Parse statistics"},
    "inspect.sections": {"fr": "Sections", "en": "Sections"},
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
    "inspect.figure_caption": {"fr": "Figure {n} · p. {page}", "en": "Figure {n} · p. {page}"},
    "inspect.csv": {"fr": "Télécharger en CSV", "en": "Download CSV"},
    "inspect.xlsx": {"fr": "Télécharger en Excel", "en": "Download Excel"},
    "stat.parents": {"fr": "Parents", "en": "Parents"},
    "stat.children": {"fr": "Enfants", "en": "Children"},
    "stat.parent_tokens": {"fr": "Jetons par parent (min–max)", "en": "Tokens per parent (min–max)"},
    "stat.child_tokens": {"fr": "Jetons par enfant (min–max)", "en": "Tokens per child (min–max)"},
    "stat.max_children": {"fr": "Enfants max. par parent", "en": "Max children per parent"},
    # ask
    "ask.title": {"fr": "Poser une question", "en": "Ask a question"},
    "ask.scope_collections": {"fr": "Collections interrogées", "en": "Collections searched"},
    "ask.scope_documents": {"fr": "Documents interrogés", "en": "Documents searched"},
    "ask.scope_help": {"fr": "Vide : tout", "en": "Empty: everything"},
    "ask.input": {"fr": "Votre question", "en": "Your question"},
    "ask.thinking": {"fr": "Recherche et rédaction…", "en": "Searching and writing…"},
    "ask.partial": {"fr": "partiellement étayé", "en": "partially supported"},
    "ask.extractive": {
        "fr": "extractif : réponse composée des passages les plus pertinents (aucun modèle de langage configuré)",
        "en": "extractive: answer made of the most relevant passages (no language model configured)",
    },
    "ask.refused": {
        "fr": "Aucun passage des documents ne répond à cette question. Passages les plus proches :",
        "en": "No passage of the documents answers this question. Closest passages:",
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
        "fr": "Chiffres à vérifier : {unsupported} non étayé(s) par les sources, {mismatch} calcul(s) qui ne correspondent pas.",
        "en": "Figures to check: {unsupported} not supported by the sources, {mismatch} computation(s) that do not match.",
    },
    "viewer.title": {"fr": "{label}", "en": "{label}"},
    "viewer.pages": {"fr": "Page(s) affichée(s) : {pages}", "en": "Page(s) shown: {pages}"},
    "viewer.close": {"fr": "Fermer", "en": "Close"},
    "viewer.no_boxes": {
        "fr": "Pas de position connue pour ce passage (document sans pages) ; son texte :",
        "en": "No known position for this passage (document without pages); its text:",
    },
    # search
    "ask.budget": {"fr": "Contexte : {n} parents ({kind}) — {reason}", "en": "Context: {n} parents ({kind}) — {reason}"},
    "ask.kind.definition": {"fr": "définition", "en": "definition"},
    "ask.kind.explanation": {"fr": "explication", "en": "explanation"},
    "ask.kind.comparison": {"fr": "comparaison", "en": "comparison"},
    "ask.rewritten": {"fr": "Question comprise comme : {q}", "en": "Understood as: {q}"},
    "ask.sub_question": {"fr": "Sous-question : {q}", "en": "Sub-question: {q}"},
    "ask.no_source": {"fr": "Aucune source pour la sous-question « {q} ».", "en": "No source for the sub-question “{q}”."},
    "ask.reformulated": {"fr": "reformulation essayée : {q}", "en": "reformulation tried: {q}"},
    "search.reranker": {"fr": "Reranker : {status}", "en": "Reranker: {status}"},
    "search.thesaurus": {"fr": "Thésaurus", "en": "Thesaurus"},
    "search.thesaurus_in_use": {"fr": "Thésaurus utilisé : {name} ({n} concepts).", "en": "Thesaurus in use: {name} ({n} concepts)."},
    "search.thesaurus_off": {
        "fr": "L'expansion par thésaurus est désactivée (RAG_UNDERSTANDING__THESAURUS=false).",
        "en": "Thesaurus expansion is off (RAG_UNDERSTANDING__THESAURUS=false).",
    },
    "search.thesaurus_upload": {
        "fr": "Remplacer par votre thésaurus (JSON : concepts avec prefLabel, altLabel)",
        "en": "Replace with your own thesaurus (JSON: concepts with prefLabel, altLabel)",
    },
    "search.thesaurus_saved": {"fr": "Thésaurus enregistré : {n} concepts.", "en": "Thesaurus saved: {n} concepts."},
    "search.title": {"fr": "Test de la recherche", "en": "Retrieval test"},
    "search.query": {"fr": "Question", "en": "Question"},
    "search.candidate_k": {"fr": "Candidats par canal (candidate_k)", "en": "Candidates per channel (candidate_k)"},
    "search.context_k": {"fr": "Parents retenus (context_k)", "en": "Parents kept (context_k)"},
    "search.run": {"fr": "Rechercher", "en": "Search"},
    "search.none": {"fr": "Aucun résultat.", "en": "No result."},
    "search.elapsed": {"fr": "{n} parents en {s:.2f} s", "en": "{n} parents in {s:.2f} s"},
    "search.expanded": {"fr": "Termes ajoutés : {terms}", "en": "Added terms: {terms}"},
    "search.select": {"fr": "Sélectionnez une ligne pour ouvrir le passage.", "en": "Select a row to open the passage."},
    "search.absent": {"fr": "absent", "en": "absent"},
    "scol.rank": {"fr": "rang fusionné", "en": "fused rank"},
    "scol.score": {"fr": "score fusionné", "en": "fused score"},
    "scol.lex_rank": {"fr": "rang lexical", "en": "lexical rank"},
    "scol.lex_score": {"fr": "score lexical", "en": "lexical score"},
    "scol.dense_rank": {"fr": "rang dense", "en": "dense rank"},
    "scol.dense_score": {"fr": "score dense", "en": "dense score"},
    "scol.page_rank": {"fr": "rang page (BM25 page entière)", "en": "page rank (BM25 whole page)"},
    "scol.page_hit": {"fr": "{rank} (p. {page})", "en": "{rank} (p. {page})"},
    "scol.document": {"fr": "document", "en": "document"},
    "scol.section": {"fr": "section", "en": "section"},
    "scol.pages": {"fr": "pages", "en": "pages"},
    "scol.best_child": {"fr": "meilleur enfant", "en": "best child"},
    "scol.other_rank": {"fr": "rang dense autre langue", "en": "dense rank, other language"},
    "scol.translated_rank": {"fr": "rang lexical traduit", "en": "translated lexical rank"},
    "scol.language": {"fr": "langue", "en": "language"},
    "search.translated": {
        "fr": "Termes cherchés dans les documents en {language} : {terms}",
        "en": "Terms searched in the {language} documents: {terms}",
    },
    "search.translated_none": {
        "fr": "Aucun terme du glossaire reconnu ; les documents en {language} sont cherchés par le canal dense seul.",
        "en": "No glossary term recognised; the {language} documents are searched by the dense channel only.",
    },
    "search.glossary": {"fr": "Glossaire bilingue", "en": "Bilingual glossary"},
    "search.glossary_in_use": {
        "fr": "Glossaire utilisé : {name} ({n} entrées).", "en": "Glossary in use: {name} ({n} entries).",
    },
    "search.glossary_off": {
        "fr": "La traduction des termes est désactivée (RAG_UNDERSTANDING__TRANSLATION).",
        "en": "Term translation is off (RAG_UNDERSTANDING__TRANSLATION).",
    },
    "search.glossary_upload": {
        "fr": 'Compléter avec votre glossaire (JSON : {"entries": [{"fr": "...", "en": "..."}]})',
        "en": 'Extend with your own glossary (JSON: {"entries": [{"fr": "...", "en": "..."}]})',
    },
    "search.glossary_saved": {"fr": "Glossaire ajouté : {n} entrées.", "en": "Glossary added: {n} entries."},
    "lang.fr": {"fr": "français", "en": "French"},
    "lang.en": {"fr": "anglais", "en": "English"},
    "ask.passage_language": {"fr": "Passage en {language}, tel qu'écrit :", "en": "Passage in {language}, as written:"},
}


def lang() -> Lang:
    value = st.session_state.get(LANG_KEY, DEFAULT_LANG)
    return "en" if value == "en" else "fr"


def t(key: str, **values: object) -> str:
    """Translated string for `key` in the current language; missing keys show the key (visible, not fatal)."""
    entry = STRINGS.get(key)
    text = entry[lang()] if entry else key
    return text.format(**values) if values else text
