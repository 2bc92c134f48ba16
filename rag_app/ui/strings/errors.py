"""User-facing strings: errors (French and English)."""

from __future__ import annotations

from rag_app.ui.strings.error_messages import FRENCH_ERRORS

STRINGS: dict[str, dict[str, str]] = {
    "error.generic": {
        "fr": "Une erreur inattendue s'est produite. Elle a été consignée dans le journal ; réessayez ou contactez "
        "l'équipe.",
        "en": "An unexpected error occurred. It has been logged; try again or contact the team.",
    },
    "error.not_ready": {
        "fr": "Cette fonction n'est pas encore disponible dans cette version.",
        "en": "This feature is not available in this version yet.",
    },
    "error.library": {
        "fr": "La bibliothèque (RAG_LIBRARY_URI) ne peut pas être utilisée : {message}",
        "en": "The library (RAG_LIBRARY_URI) cannot be used: {message}",
    },
    "error.settings": {
        "fr": "La configuration (variables RAG_...) est invalide : {fields}. Corrigez-la puis relancez l'application.",
        "en": "The configuration (RAG_... variables) is invalid: {fields}. Fix it and restart the application.",
    },
}

# rag_core's messages (rag_core/messages.py): English as rag_core writes it, French here. The values
# ({name}, {size}...) are rag_core's.
FRENCH_MESSAGES: dict[str, str] = {
    "file.missing": "Le fichier {name} est introuvable.",
    "file.empty": "Le fichier {name} est vide (0 octet) ; déposez-le à nouveau.",
    "file.too_large": "Le fichier {name} pèse {size} ; au-delà de {limit}, les fichiers sont refusés (réglage "
    "RAG_PARSING__MAX_FILE_MB). Compressez-le ou découpez-le, ou demandez à l'administrateur de relever la limite.",
    "file.pdf_is_html": "Ce fichier porte l'extension .pdf mais est une page web (HTML), souvent une page d'erreur ou "
    "de connexion enregistrée à la place du document ; téléchargez à nouveau le PDF.",
    "file.pdf_not_pdf": "Ce fichier porte l'extension .pdf mais n'est pas un PDF (il est peut-être abîmé ou "
    "incomplet) ; téléchargez-le ou exportez-le à nouveau.",
    "file.html_unreadable": "Ce fichier n'est pas une page web lisible.",
    "file.md_not_utf8": "Ce fichier Markdown n'est pas du texte UTF-8 ; enregistrez-le en UTF-8 et déposez-le à "
    "nouveau.",
    "file.md_binary": "Ce fichier Markdown contient des données binaires ; il ne peut pas être lu.",
    "file.unsupported": "Ce type de fichier ne peut pas être lu ; déposez un fichier PDF, Word (.docx), "
    "PowerPoint (.pptx), HTML ou Markdown.",
    "file.office_damaged": "Ce fichier Office est abîmé ou incomplet ; enregistrez-le à nouveau puis déposez-le.",
    "file.excel": "Les classeurs Excel ne peuvent pas être lus ; déposez un fichier PDF, Word (.docx), "
    "PowerPoint (.pptx), HTML ou Markdown.",
    "file.archive": "Cette archive n'est pas un fichier Word ou PowerPoint ; déposez un fichier PDF, Word (.docx), "
    "PowerPoint (.pptx), HTML ou Markdown.",
    "file.pdf_damaged": "Ce PDF est abîmé ou incomplet et ne peut pas être lu ; téléchargez-le ou exportez-le à "
    "nouveau.",
    "file.pdf_password": "Ce PDF est protégé par un mot de passe ; retirez-le puis déposez le fichier à nouveau.",
    "file.pdf_no_page": "Ce PDF n'a aucune page ; il est peut-être abîmé ou incomplet.",
    "file.pdf_too_long": "Ce PDF compte {pages} pages ; au-delà de {limit} pages, les documents sont refusés "
    "(réglage RAG_PARSING__MAX_PAGES). Découpez-le et déposez les parties, ou demandez à l'administrateur de "
    "relever la limite.",
    "file.no_text": "Aucun texte n'a pu être lu dans ce fichier (pas de couche texte, et l'OCR n'a rien trouvé). "
    "S'il s'agit d'un scan, vérifiez qu'il est lisible et déposez-le à nouveau.",
    "file.no_passage": "Du texte a été lu dans ce fichier ({characters} caractères), mais aucun passage n'a pu en "
    "être tiré pour la recherche. Rien n'a été enregistré ; signalez le fichier pour qu'il soit examiné.",
    "ingest.done": "{verb} : {pages} pages, {parents} sections, {children} passages, {seconds} s, analyseur {parser}.",
    "ingest.already_present": "Déjà dans la bibliothèque (collection « {collection} ») ; rien à refaire.",
    "ingest.internal": "Ce fichier n'a pas pu être traité à cause d'une erreur interne ; elle a été consignée.",
}


FRENCH_MESSAGES.update(FRENCH_ERRORS)


# The page's English where rag_core's (kept for the command line and stored records) uses the method's words
PAGE_ENGLISH = {
    "ingest.done": "{verb}: {pages} pages, {parents} sections, {children} passages, {seconds} s, parser {parser}."
}


def _message_strings() -> dict[str, dict[str, str]]:
    from rag_core.pipeline import ENGLISH_MESSAGES as ENGLISH

    return {
        f"msg.{key}": {"fr": FRENCH_MESSAGES[key], "en": PAGE_ENGLISH.get(key, text)} for key, text in ENGLISH.items()
    }


STRINGS.update(_message_strings())
STRINGS.update(
    {
        "msg.verb.Ingested": {"fr": "Importé", "en": "Ingested"},
        "msg.verb.Updated": {"fr": "Mis à jour", "en": "Updated"},
        "label.kind.Table": {"fr": "Tableau", "en": "Table"},
        "label.kind.Figure": {"fr": "Figure", "en": "Figure"},
        "label.kind.Formula": {"fr": "Formule", "en": "Formula"},
        "label.no_heading": {"fr": "(sans titre de section)", "en": "(no heading)"},
        "label.no_caption": {"fr": "sans légende conservée", "en": "no caption kept"},
        "msg.what.glossary": {"fr": "glossaire", "en": "glossary"},
        "msg.what.thesaurus": {"fr": "thésaurus", "en": "thesaurus"},
    }
)
