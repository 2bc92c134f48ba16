"""User-facing strings: search (French and English)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "ask.budget": {
        "fr": "Réponse cherchée dans les {n} sections les plus proches de la question — {reason}",
        "en": "Answer sought in the {n} sections closest to the question — {reason}",
    },
    "ask.budget_method": {
        "fr": "Méthode : contexte de {n} parents, budget « {kind} » (routeur).",
        "en": "Method: a context of {n} parents, budget '{kind}' (router).",
    },
    "ask.kind.definition": {"fr": "définition", "en": "definition"},
    "ask.kind.explanation": {"fr": "explication", "en": "explanation"},
    "ask.kind.comparison": {"fr": "comparaison", "en": "comparison"},
    "ask.rewritten": {"fr": "Question comprise comme : {q}", "en": "Understood as: {q}"},
    "ask.sub_question": {"fr": "Sous-question : {q}", "en": "Sub-question: {q}"},
    "ask.no_source": {
        "fr": "Aucune source pour la sous-question « {q} ».",
        "en": "No source for the sub-question “{q}”.",
    },
    "ask.reformulated": {"fr": "reformulation essayée : {q}", "en": "reformulation tried: {q}"},
    "search.reranker": {"fr": "Reranker : {status}", "en": "Reranker: {status}"},
    "search.thesaurus": {"fr": "Thésaurus", "en": "Thesaurus"},
    "search.thesaurus_in_use": {
        "fr": "Thésaurus utilisé : {name} ({n} concepts).",
        "en": "Thesaurus in use: {name} ({n} concepts).",
    },
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
    "search.settings": {"fr": "Réglages de la recherche", "en": "Search settings"},
    "search.candidate_k": {
        "fr": "Passages examinés par méthode de recherche",
        "en": "Passages examined per search method",
    },
    "search.candidate_k_help": {
        "fr": "Paramètre `candidate_k` : candidats gardés par chaque canal (lexical, dense…) avant la fusion.",
        "en": "Setting `candidate_k`: candidates each channel (lexical, dense…) keeps before the fusion.",
    },
    "search.context_k": {"fr": "Sections retenues", "en": "Sections kept"},
    "search.context_k_help": {
        "fr": "Paramètre `context_k` : nombre de parents (sections) gardés après la fusion.",
        "en": "Setting `context_k`: number of parents (sections) kept after the fusion.",
    },
    "search.library_empty": {
        "fr": "La bibliothèque ne contient encore aucun document que vous pouvez lire : il n'y a rien à rechercher. "
        "Importez d'abord vos documents dans la page Bibliothèque.",
        "en": "The library holds no document you can read yet: there is nothing to search. "
        "First import your documents on the Library page.",
    },
    "search.run": {"fr": "Rechercher", "en": "Search"},
    "search.none": {"fr": "Aucun résultat.", "en": "No result."},
    "search.elapsed": {"fr": "{n} sections en {s:.2f} s", "en": "{n} sections in {s:.2f} s"},
    "search.expanded": {"fr": "Termes ajoutés : {terms}", "en": "Added terms: {terms}"},
    "search.select": {
        "fr": "Sélectionnez une ligne pour ouvrir le passage.",
        "en": "Select a row to open the passage.",
    },
    "search.absent": {"fr": "absent", "en": "absent"},
    "scol.rank": {"fr": "rang fusionné", "en": "fused rank"},
    "scol.score": {"fr": "score fusionné", "en": "fused score"},
    "scol.page_hit": {"fr": "{rank} (p. {page})", "en": "{rank} (p. {page})"},
    "scol.channel_rank": {"fr": "rang {channel}", "en": "{channel} rank"},
    "scol.channel_score": {"fr": "score {channel}", "en": "{channel} score"},
    # One display name per search channel (`rag_core.retrieval.channels()`), keyed by the channel's name.
    "search.channel.lexical": {"fr": "lexical", "en": "lexical"},
    "search.channel.dense": {"fr": "dense", "en": "dense"},
    "search.channel.page": {"fr": "page (BM25 page entière)", "en": "whole-page BM25"},
    "search.channel.dense_other": {"fr": "dense autre langue", "en": "other-language dense"},
    "search.channel.translated": {"fr": "lexical traduit", "en": "translated lexical"},
    "search.channel.translated_page": {"fr": "page traduite (BM25 page entière)", "en": "translated whole-page BM25"},
    "scol.document": {"fr": "document", "en": "document"},
    "scol.section": {"fr": "section", "en": "section"},
    "scol.pages": {"fr": "pages", "en": "pages"},
    "scol.best_child": {"fr": "meilleur passage", "en": "best passage"},
    "scol.language": {"fr": "langue", "en": "language"},
    "search.translated": {
        "fr": "Termes cherchés dans les documents en {language} : {terms}",
        "en": "Terms searched in the {language} documents: {terms}",
    },
    "search.translated_none": {
        "fr": "Aucun terme du glossaire reconnu ; documents en {language} : canal dense seul.",
        "en": "No glossary term recognised; {language} documents: dense channel only.",
    },
    "search.only_other": {
        "fr": "Seuls les documents en {language} nomment : {terms} (aucun document dans la langue de la question).",
        "en": "Only the {language} documents name: {terms} (no document in the question's language does).",
    },
    "search.placed": {
        "fr": "Rang {rank} : le meilleur passage des documents en {language}, placé à ce rang.",
        "en": "Rank {rank}: the best passage of the {language} documents, placed at that rank.",
    },
    "search.glossary": {"fr": "Glossaire bilingue", "en": "Bilingual glossary"},
    "search.glossary_in_use": {
        "fr": "Glossaire utilisé : {name} ({n} entrées).",
        "en": "Glossary in use: {name} ({n} entries).",
    },
    "search.glossary_off": {
        "fr": "Traduction des termes désactivée (RAG_UNDERSTANDING__TRANSLATION).",
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
    "search.page": {"fr": "p. {pages}", "en": "p. {pages}"},
    "search.open": {"fr": "Ouvrir", "en": "Open"},
    "search.ranks": {"fr": "Rangs et scores par canal de recherche", "en": "Ranks and scores per search channel"},
}
