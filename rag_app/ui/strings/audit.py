"""User-facing strings: the audit trail's table (French and English)."""

from __future__ import annotations

_EVENTS = {
    "sign_in": ("connexion", "sign-in"),
    "sign_out": ("déconnexion", "sign-out"),
    "question": ("question posée", "question asked"),
    "search": ("recherche", "search"),
    "page_opened": ("page ouverte", "page opened"),
    "document_opened": ("document ouvert", "document opened"),
    "document_inspected": ("document inspecté", "document inspected"),
    "table_exported": ("tableau exporté", "table exported"),
    "figure_exported": ("figure exportée", "figure exported"),
    "upload": ("import", "upload"),
    "deletion": ("suppression", "deletion"),
    "collection_created": ("collection créée", "collection created"),
    "grant": ("accès accordé", "access granted"),
    "revoke": ("accès retiré", "access revoked"),
    "audit_exported": ("journal exporté", "audit trail exported"),
    "reports_exported": ("signalements exportés", "reports exported"),
    "evaluation_exported": ("évaluation exportée", "evaluation exported"),
    "job_queued": ("tâche mise en file", "job queued"),
    "job_done": ("tâche terminée", "job done"),
    "job_failed": ("tâche en échec", "job failed"),
    "job_cancelled": ("tâche annulée", "job cancelled"),
    "job_retried": ("tâche relancée", "job retried"),
    "jobs_cleared": ("tâches effacées", "jobs cleared"),
    "token_created": ("jeton d'API créé", "API token created"),
    "token_revoked": ("jeton d'API révoqué", "API token revoked"),
    "api_request": ("requête à l'API", "API request"),
}
_COLUMNS = {
    "at": ("date et heure (UTC)", "date and time (UTC)"),
    "event": ("événement", "event"),
    "user": ("utilisateur", "user"),
    "groups": ("groupes", "groups"),
    "admin": ("administrateur", "administrator"),
    "channel": ("accès par", "reached through"),
    "collection": ("collection", "collection"),
    "doc_id": ("identifiant du document", "document id"),
    "file_name": ("fichier", "file"),
    "pages": ("pages", "pages"),
    "question": ("question", "question"),
    "scope": ("périmètre", "scope"),
    "context": ("passages lus", "passages read"),
    "cited": ("passages cités", "passages cited"),
    "details": ("autres détails", "other details"),
}
_CHANNELS = {
    "app": ("application", "app"),
    "api": ("API", "API"),
    "mcp": ("serveur MCP", "MCP server"),
    "cli": ("ligne de commande", "command line"),
}

STRINGS: dict[str, dict[str, str]] = {
    **{f"audit.event.{k}": {"fr": fr, "en": en} for k, (fr, en) in _EVENTS.items()},
    **{f"audit.col.{k}": {"fr": fr, "en": en} for k, (fr, en) in _COLUMNS.items()},
    **{f"audit.channel.{k}": {"fr": fr, "en": en} for k, (fr, en) in _CHANNELS.items()},
    "audit.local_user": {"fr": "(opérateur local)", "en": "(local operator)"},
    "audit.yes": {"fr": "oui", "en": "yes"},
    "audit.no": {"fr": "non", "en": "no"},
    "audit.date_format": {"fr": "DD/MM/YYYY", "en": "YYYY/MM/DD"},
    # the date field's empty parts, which Streamlit writes in English only ("dd", "mm", "yyyy")
    "date.day": {"fr": "jj", "en": "dd"},
    "date.month": {"fr": "mm", "en": "mm"},
    "date.year": {"fr": "aaaa", "en": "yyyy"},
}
