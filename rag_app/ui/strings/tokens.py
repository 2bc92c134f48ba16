"""Strings of the API tokens page."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "nav.tokens": {"fr": "Jetons d'API", "en": "API tokens"},
    "tokens.title": {"fr": "Jetons d'API personnels", "en": "Personal API tokens"},
    "tokens.intro": {
        "fr": "Un jeton agit en votre nom dans l'API, le point d'accès compatible OpenAI et le serveur MCP : "
        "mêmes droits, même journal d'audit. Il n'est montré qu'une fois ; révoquez-le dès qu'il ne sert plus.",
        "en": "A token acts as you in the API, the OpenAI-compatible endpoint and the MCP server: the same rights, "
        "the same audit trail. It is shown once; revoke it as soon as it is no longer needed.",
    },
    "tokens.name": {"fr": "Nom (à quoi il sert)", "en": "Name (what it is for)"},
    "tokens.days": {"fr": "Durée de validité (jours)", "en": "Lifetime (days)"},
    "tokens.create": {"fr": "Créer un jeton", "en": "Create a token"},
    "tokens.created": {
        "fr": "Votre jeton (copiez-le maintenant, il ne sera plus montré) :",
        "en": "Your token (copy it now, it will not be shown again):",
    },
    "tokens.none": {"fr": "Aucun jeton.", "en": "No token."},
    "tokens.revoke": {"fr": "Révoquer", "en": "Revoke"},
    "tokens.revoked": {"fr": "Jeton révoqué.", "en": "Token revoked."},
    "tokens.revoke_confirm": {
        "fr": "Révoquer le jeton **{name}** ? Les programmes qui l'utilisent seront refusés aussitôt, "
        "et un jeton révoqué ne peut pas être rétabli.",
        "en": "Revoke the token **{name}**? The programs that use it will be refused at once, "
        "and a revoked token cannot be restored.",
    },
    "tokens.revoke_yes": {"fr": "Oui, révoquer", "en": "Yes, revoke"},
    "tokens.revoke_cancel": {"fr": "Annuler", "en": "Cancel"},
    "tokens.row": {
        "fr": "**{name}** · {user} · jusqu'au {expires}{expired}",
        "en": "**{name}** · {user} · until {expires}{expired}",
    },
    "tokens.expired": {"fr": " (expiré)", "en": " (expired)"},
    "tokens.where": {
        "fr": "L'API écoute à l'adresse **{url}** : REST sous `{url}/api`, compatible OpenAI sous `{url}/v1`, "
        "MCP à `{url}/mcp`, contrat et essai à `{url}/docs`. Envoyez le jeton dans l'en-tête "
        "`Authorization: Bearer <jeton>`.",
        "en": "The API listens at **{url}**: REST under `{url}/api`, OpenAI-compatible under `{url}/v1`, "
        "MCP at `{url}/mcp`, contract and try-out at `{url}/docs`. Send the token in the header "
        "`Authorization: Bearer <token>`.",
    },
    "tokens.links": {
        "fr": "Chaque citation renvoyée par l'API porte `links.image` (la page, passage surligné) et `links.pdf` "
        "(les seules pages citées) : ouvrez-les par un GET avec ce même en-tête. Les droits sont vérifiés à "
        "chaque ouverture : un lien ne sert qu'à qui peut lire le document.",
        "en": "Every citation the API returns carries `links.image` (the page, the passage highlighted) and "
        "`links.pdf` (the cited pages alone): open them with a GET and the same header. The rights are checked "
        "each time: a link works only for someone who may read the document.",
    },
}
