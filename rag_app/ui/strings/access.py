"""User-facing strings: sign-in and access (French and English)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
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
    "auth.header_exposed": {
        "fr": "Mode en-têtes : l'application écoute au-delà de 127.0.0.1, où n'importe qui pourrait envoyer les "
        "en-têtes d'identité ; personne n'est connecté. Relancez avec --server.address 127.0.0.1, ou, si seul le "
        "proxy atteint ce port (pare-feu), activez RAG_AUTH__HEADER_BEYOND_LOOPBACK.",
        "en": "Header mode: the app listens beyond 127.0.0.1, where anyone could send the identity headers; nobody "
        "is signed in. Restart with --server.address 127.0.0.1, or, if a firewall lets only the proxy reach this "
        "port, set RAG_AUTH__HEADER_BEYOND_LOOPBACK=true.",
    },
    "auth.header_duplicate": {
        "fr": "La requête portait plusieurs fois un en-tête d'identité ({header} ou celui des groupes) ; personne "
        "n'est connecté. Le proxy doit retirer ceux du navigateur et n'en envoyer qu'un.",
        "en": "The request carried an identity header ({header} or the groups one) more than once; nobody is signed "
        "in. The proxy must remove those the browser sent and send one of each.",
    },
    "auth.user_reserved": {
        "fr": "Ce nom d'utilisateur est réservé à l'opérateur local : personne ne peut se connecter sous ce nom.",
        "en": "This user name is reserved for the local operator: nobody can sign in under it.",
    },
    "auth.header_groups_ambiguous": {
        "fr": "L'en-tête des groupes se lit de plusieurs façons (un nom de groupe peut contenir une virgule) ; "
        "personne n'est connecté. Le proxy doit envoyer un tableau JSON ou des noms entre guillemets.",
        "en": "The groups header can be read in more than one way (a group name may contain a comma); nobody is "
        "signed in. The proxy must send a JSON array or quoted names.",
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
    "access.granted": {
        "fr": "Droit « {role} » accordé à {subject} sur {collection}.",
        "en": "“{role}” granted to {subject} on {collection}.",
    },
    "access.revoke": {"fr": "Retirer un droit", "en": "Revoke access"},
    "access.revoke_pick": {"fr": "Droit à retirer", "en": "Grant to revoke"},
    "access.revoke_button": {"fr": "Retirer", "en": "Revoke"},
    "access.revoked": {
        "fr": "Droit de {subject} sur {collection} retiré.",
        "en": "{subject}'s access to {collection} revoked.",
    },
    "access.map": {"fr": "Qui peut lire quoi", "en": "Who can read what"},
    "access.map_help": {
        "fr": "Lecture : voir, chercher, interroger, ouvrir les pages, exporter ; écriture : lecture + dépôt ; gestion "
        ": "
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
    "access.local_mode": {
        "fr": "Mode local : l'application n'a pas de connexion, et quiconque l'ouvre en est l'administrateur, qui "
        "lit et modifie toutes les collections. Les droits par collection ne servent donc à rien ici. Pour que "
        "chacun se connecte avec ses propres droits, relancez l'application avec `RAG_AUTH__MODE=oidc` "
        "(connexion par votre fournisseur d'identité) ou `RAG_AUTH__MODE=header` (derrière un proxy qui "
        "authentifie) : voir la section « Access control » du README.",
        "en": "Local mode: the app has no sign-in, and whoever opens it is its administrator, who reads and "
        "changes every collection. Per-collection grants would therefore change nothing here. For everyone to "
        "sign in with their own rights, restart the app with `RAG_AUTH__MODE=oidc` (sign-in through your identity "
        "provider) or `RAG_AUTH__MODE=header` (behind an authenticating proxy): see the README’s “Access control” "
        "section.",
    },
}
