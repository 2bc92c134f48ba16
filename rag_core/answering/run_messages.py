"""The messages an answer run writes for the user (refusal, fallback, stop, cut), in French and English."""

NOTHING_FOUND = {
    "en": "Nothing in the accessible documents answers this question.",
    "fr": "Aucun des documents accessibles ne répond à cette question.",
}
ALL_DROPPED = {
    "en": "No paragraph of the model's answer cited a retrieved source; showing an extractive answer.",
    "fr": "Aucun paragraphe de la réponse du modèle ne citait une source retrouvée ; voici une réponse extractive.",
}
STOPPED = {
    "en": "Generation stopped: only the {n} paragraph(s) completed and verified before the stop are kept.",
    "fr": "Rédaction arrêtée : seuls les {n} paragraphe(s) achevés et vérifiés avant l'arrêt sont conservés.",
}
CUT_KEPT = {
    "en": "The model's reply was cut off at its token limit ({limit} tokens): the {n} paragraph(s) it completed "
    "before are kept.",
    "fr": "La réponse du modèle a été coupée à sa limite de jetons ({limit} jetons) : les {n} paragraphe(s) "
    "achevés avant sont conservés.",
}
STOPPED_EMPTY = {
    "en": "Generation stopped before any paragraph was complete; showing an extractive answer.",
    "fr": "Rédaction arrêtée avant qu'un paragraphe soit achevé ; voici une réponse extractive.",
}
