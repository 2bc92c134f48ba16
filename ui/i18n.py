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
    "inspect.table_ocr": {"fr": "Lu par OCR dans une image : vérifiez les chiffres sur la page.",
                          "en": "Read by OCR from an image: check the numbers against the page."},
    "inspect.table_text_layer": {"fr": "Lu dans la couche texte du PDF.", "en": "Read from the PDF's text layer."},
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
    "ask.judged.supported": {"fr": "jugé appuyé par ses sources", "en": "judged supported by its sources"},
    "ask.judged.partly": {"fr": "jugé en partie appuyé", "en": "judged partly supported"},
    "ask.judged.not_supported": {"fr": "jugé NON appuyé par ses sources", "en": "judged NOT supported by its sources"},
    "ask.collections": {"fr": "cite plusieurs collections : {names}", "en": "cites several collections: {names}"},
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
    "search.translated": {"fr": "Termes cherchés dans les documents en {language} : {terms}",
                          "en": "Terms searched in the {language} documents: {terms}"},
    "search.translated_none": {"fr": "Aucun terme du glossaire reconnu ; documents en {language} : canal dense seul.",
                               "en": "No glossary term recognised; {language} documents: dense channel only."},
    "search.only_other": {"fr": "Seuls les documents en {language} nomment : {terms} (aucun document dans la langue de la question).",
                          "en": "Only the {language} documents name: {terms} (no document in the question's language does)."},
    "search.placed": {"fr": "Rang {rank} : le meilleur passage des documents en {language}, placé à ce rang.",
                      "en": "Rank {rank}: the best passage of the {language} documents, placed at that rank."},
    "search.glossary": {"fr": "Glossaire bilingue", "en": "Bilingual glossary"},
    "search.glossary_in_use": {"fr": "Glossaire utilisé : {name} ({n} entrées).", "en": "Glossary in use: {name} ({n} entries)."},
    "search.glossary_off": {"fr": "Traduction des termes désactivée (RAG_UNDERSTANDING__TRANSLATION).",
                            "en": "Term translation is off (RAG_UNDERSTANDING__TRANSLATION)."},
    "search.glossary_upload": {"fr": 'Compléter avec votre glossaire (JSON : {"entries": [{"fr": "...", "en": "..."}]})',
                               "en": 'Extend with your own glossary (JSON: {"entries": [{"fr": "...", "en": "..."}]})'},
    "search.glossary_saved": {"fr": "Glossaire ajouté : {n} entrées.", "en": "Glossary added: {n} entries."},
    "lang.fr": {"fr": "français", "en": "French"},
    "lang.en": {"fr": "anglais", "en": "English"},
    "ask.passage_language": {"fr": "Passage en {language}, tel qu'écrit :", "en": "Passage in {language}, as written:"},
    # sign-in and access
    "nav.evaluate": {"fr": "Évaluation", "en": "Evaluate"},
    "nav.access": {"fr": "Accès", "en": "Access"},
    "auth.title": {"fr": "Connexion", "en": "Sign in"},
    "auth.sign_in_intro": {
        "fr": "Connectez-vous pour voir les documents auxquels vous avez accès.",
        "en": "Sign in to see the documents you have access to.",
    },
    "auth.sign_in": {"fr": "Se connecter", "en": "Sign in"},
    "auth.sign_out": {"fr": "Se déconnecter", "en": "Sign out"},
    "auth.local_mode": {"fr": "mode local : vous voyez tous les documents", "en": "local mode: you see every document"},
    "auth.signed_in_as": {"fr": "Connecté : {user} (groupes : {groups})", "en": "Signed in: {user} (groups: {groups})"},
    "auth.admin": {"fr": "administrateur", "en": "administrator"},
    "auth.local_exposed": {
        "fr": "Le mode local montre tous les documents à quiconque atteint l'application : il n'est servi que sur "
        "127.0.0.1. Relancez avec --server.address 127.0.0.1, ou choisissez RAG_AUTH__MODE=oidc ou header.",
        "en": "Local mode shows every document to whoever reaches the app: it is served on 127.0.0.1 only. Restart "
        "with --server.address 127.0.0.1, or set RAG_AUTH__MODE=oidc or header.",
    },
    "auth.oidc_unconfigured": {
        "fr": "La connexion OpenID Connect n'est pas configurée : ajoutez le bloc [auth] à .streamlit/secrets.toml "
        "(voir « Contrôle d'accès » dans le README).",
        "en": "OpenID Connect sign-in is not configured: add the [auth] block to .streamlit/secrets.toml "
        "(see “Access control” in the README).",
    },
    "auth.claims_missing": {
        "fr": "Votre fournisseur d'identité n'a pas transmis l'identifiant attendu ; contactez l'administrateur.",
        "en": "Your identity provider did not send the expected user id; contact the administrator.",
    },
    "auth.header_untrusted": {
        "fr": "Mode en-têtes : les en-têtes d'identité sont ignorés tant que RAG_AUTH__TRUST_PROXY_HEADERS n'est pas "
        "activé (à n'activer que derrière un proxy qui authentifie).",
        "en": "Header mode: identity headers are ignored until RAG_AUTH__TRUST_PROXY_HEADERS is on (turn it on only "
        "behind a proxy that authenticates).",
    },
    "auth.header_missing": {
        "fr": "Le proxy n'a pas indiqué qui vous êtes (en-tête {header} absent).",
        "en": "The proxy did not say who you are (no {header} header).",
    },
    "access.title": {"fr": "Accès", "en": "Access"},
    "access.denied": {
        "fr": "Cette page est réservée aux administrateurs et aux gestionnaires de collection.",
        "en": "This page is for administrators and collection managers.",
    },
    "access.collection": {"fr": "Collection", "en": "Collection"},
    "access.no_collection": {"fr": "Vous ne gérez aucune collection.", "en": "You manage no collection."},
    "access.grants": {"fr": "Droits sur « {collection} »", "en": "Grants on “{collection}”"},
    "access.no_grant": {
        "fr": "Aucun droit : seuls les administrateurs voient cette collection.",
        "en": "No grant: only administrators see this collection.",
    },
    "access.col.kind": {"fr": "type", "en": "kind"},
    "access.col.subject": {"fr": "bénéficiaire", "en": "subject"},
    "access.col.role": {"fr": "droit", "en": "role"},
    "access.col.by": {"fr": "accordé par", "en": "granted by"},
    "access.col.at": {"fr": "accordé le", "en": "granted at"},
    "access.kind.user": {"fr": "utilisateur", "en": "user"},
    "access.kind.group": {"fr": "groupe", "en": "group"},
    "access.role.read": {"fr": "lecture", "en": "read"},
    "access.role.write": {"fr": "écriture", "en": "write"},
    "access.role.manage": {"fr": "gestion", "en": "manage"},
    "access.add": {"fr": "Accorder un droit", "en": "Grant access"},
    "access.subject": {"fr": "E-mail de l'utilisateur ou nom du groupe", "en": "User's email or group name"},
    "access.add_button": {"fr": "Accorder", "en": "Grant"},
    "access.no_subject": {"fr": "Indiquez un utilisateur ou un groupe.", "en": "Give a user or a group."},
    "access.granted": {"fr": "Droit « {role} » accordé à {subject} sur {collection}.",
                       "en": "“{role}” granted to {subject} on {collection}."},
    "access.revoke": {"fr": "Retirer un droit", "en": "Revoke access"},
    "access.revoke_pick": {"fr": "Droit à retirer", "en": "Grant to revoke"},
    "access.revoke_button": {"fr": "Retirer", "en": "Revoke"},
    "access.revoked": {"fr": "Droit de {subject} sur {collection} retiré.", "en": "{subject}'s access to {collection} revoked."},
    "access.map": {"fr": "Qui peut lire quoi", "en": "Who can read what"},
    "access.map_help": {
        "fr": "Lecture : voir, chercher, interroger, ouvrir les pages, exporter ; écriture : lecture + dépôt ; gestion : "
        "écriture + suppression et droits. Les administrateurs voient tout.",
        "en": "Read: see, search, ask, open pages, export; write: read + upload; manage: write + delete and grant. "
        "Administrators see everything.",
    },
    "audit.title": {"fr": "Journal d'audit", "en": "Audit trail"},
    "audit.user": {"fr": "Utilisateur", "en": "User"},
    "audit.since": {"fr": "Depuis le", "en": "Since"},
    "audit.document": {"fr": "Document (identifiant ou nom)", "en": "Document (id or name)"},
    "audit.csv": {"fr": "Télécharger en CSV", "en": "Download CSV"},
    "audit.none": {"fr": "Aucun événement.", "en": "No event."},
    "library.new_help": {
        "fr": "Vous gérerez la nouvelle collection ; elle reste invisible aux autres jusqu'à ce que vous la partagiez "
        "(page Accès).",
        "en": "You will manage the new collection; others do not see it until you share it (Access page).",
    },
    "library.read_only": {
        "fr": "Vous ne gérez aucune de ces collections : pas de suppression possible.",
        "en": "You manage none of these collections: nothing to delete.",
    },
    # evaluate
    "evaluate.title": {"fr": "Évaluation de la recherche", "en": "Evaluate retrieval"},
    "evaluate.set": {"fr": "Jeu de questions", "en": "Question set"},
    "evaluate.source.shared": {"fr": "Jeu partagé", "en": "Shared set"},
    "evaluate.source.upload": {"fr": "Fichier déposé", "en": "Upload"},
    "evaluate.source.reported": {"fr": "Citations signalées", "en": "Reported citations"},
    "evaluate.no_set": {"fr": "Aucun jeu de questions dans {path} (réglez RAG_SHARED_DIR).",
                        "en": "No question set found in {path} (set RAG_SHARED_DIR)."},
    "evaluate.file": {"fr": "Fichier", "en": "File"},
    "evaluate.upload": {"fr": "Questions (JSON lines)", "en": "Questions (JSON lines)"},
    "evaluate.no_reports": {"fr": "Aucune citation signalée pour l'instant.", "en": "No citation has been reported yet."},
    "evaluate.pdf_dir": {"fr": "Dossier des PDF du jeu (tout le dossier est l'espace de recherche)",
                         "en": "Folder of the set's PDFs (the whole folder is the search space)"},
    "evaluate.engines": {"fr": "Moteurs", "en": "Engines"},
    "evaluate.run": {"fr": "Lancer", "en": "Run"},
    "evaluate.starting": {"fr": "Démarrage…", "en": "Starting…"},
    "evaluate.done": {"fr": "Terminé", "en": "Done"},
    "evaluate.summary": {"fr": "{set} : {n} questions avec réponse sur {total}",
                         "en": "{set}: {n} answerable of {total} questions"},
    "evaluate.caption": {
        "fr": "Moteur par défaut : {engine}. Niveau page : une page prend le rang de son meilleur enfant ; moyennes "
        "avec intervalles bootstrap à 95 %.",
        "en": "Default engine: {engine}. Page level: a page takes the rank of its best child; means with 95 % "
        "bootstrap intervals.",
    },
    "evaluate.beats": {"fr": "Le moteur par défaut bat la meilleure référence de METHOD.md §6 sur chaque colonne.",
                       "en": "The default engine beats the best METHOD.md §6 baseline on every column."},
    "evaluate.not_beats": {"fr": "Le moteur par défaut ne bat pas la meilleure référence de METHOD.md §6 sur chaque colonne.",
                           "en": "The default engine does not beat the best METHOD.md §6 baseline on every column."},
    "evaluate.absent": {"fr": "{name} : absent ({why})", "en": "{name}: absent ({why})"},
    "evaluate.metric": {"fr": "Mesure des graphiques", "en": "Metric for the charts"},
    "evaluate.by_type": {"fr": "Par type", "en": "By type"},
    "evaluate.by_language": {"fr": "Par langue", "en": "By language"},
    "evaluate.by_language_match": {"fr": "Même langue / autre langue", "en": "Same language / cross-lingual"},
    "evaluate.language_match_help": {"fr": "(langue de la question et des PDF attendus ; doc@3 : un PDF attendu parmi "
                                     "les trois premiers documents)", "en": "(question language vs the relevant PDFs' "
                                     "language; doc@3: a relevant PDF among the first three documents)"},
    "evaluate.per_question": {"fr": "Par question, moteur", "en": "Per question, engine"},
    "evaluate.download": {"fr": "Télécharger results.json", "en": "Download results.json"},
}



def lang() -> Lang:
    value = st.session_state.get(LANG_KEY, DEFAULT_LANG)
    return "en" if value == "en" else "fr"


def t(key: str, **values: object) -> str:
    """Translated string for `key` in the current language; missing keys show the key (visible, not fatal)."""
    entry = STRINGS.get(key)
    text = entry[lang()] if entry else key
    return text.format(**values) if values else text
