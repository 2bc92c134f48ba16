"""User-facing strings: the upload queue (Library page panel, indicator and notices on every page)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "jobs.title": {"fr": "Imports", "en": "Imports"},
    "jobs.empty": {"fr": "Aucun import pour l'instant.", "en": "No import yet."},
    "jobs.no_worker": {
        "fr": "Aucun worker ne tourne : les imports attendent. Lancez `make run` ou `python -m rag_core worker`.",
        "en": "No worker is running: the imports are waiting. Start `make run` or `python -m rag_core worker`.",
    },
    "jobs.queued_many": {"fr": "{n} fichier(s) mis en file d'import.", "en": "{n} file(s) queued for import."},
    "jobs.state.queued": {"fr": "en attente", "en": "queued"},
    "jobs.state.running": {"fr": "en cours", "en": "running"},
    "jobs.state.done": {"fr": "terminé", "en": "done"},
    "jobs.state.failed": {"fr": "échec", "en": "failed"},
    "jobs.state.cancelled": {"fr": "annulé", "en": "cancelled"},
    "jobs.line": {"fr": "{file} ({collection}) — {state}", "en": "{file} ({collection}) — {state}"},
    "jobs.line_stage": {
        "fr": "{file} ({collection}) — {stage} {done}/{total}",
        "en": "{file} ({collection}) — {stage} {done}/{total}",
    },
    "jobs.times": {"fr": "écoulé {elapsed}", "en": "elapsed {elapsed}"},
    "jobs.times_left": {"fr": "écoulé {elapsed} · reste environ {left}", "en": "elapsed {elapsed} · about {left} left"},
    "jobs.by": {"fr": "déposé par {user}", "en": "uploaded by {user}"},
    # the queue line: "{place}" alone, or "{place} : {why}"; French ordinals agree with « import » (masculine)
    "jobs.place_first": {"fr": "Premier dans la file", "en": "First in the queue"},
    "jobs.place_nth": {"fr": "{place}ᵉ dans la file", "en": "Place {place} in the queue"},
    "jobs.place_with": {"fr": "{place} : {why}", "en": "{place}: {why}"},
    "jobs.place_ahead_one": {"fr": "1 import en cours avant lui", "en": "1 import running before it"},
    "jobs.place_ahead_many": {
        "fr": "{running} imports en cours avant lui",
        "en": "{running} imports running before it",
    },
    "jobs.place_small": {"fr": "petit fichier, pris avant les grands", "en": "a small file, taken before large ones"},
    "jobs.cancel": {"fr": "Annuler", "en": "Cancel"},
    "jobs.retry": {"fr": "Relancer", "en": "Retry"},
    "jobs.cancelled_now": {"fr": "Import de « {file} » annulé.", "en": "Import of “{file}” cancelled."},
    "jobs.retried_now": {"fr": "Import de « {file} » relancé.", "en": "Import of “{file}” started again."},
    "jobs.key.ingested": {"fr": "importé", "en": "ingested"},
    "jobs.key.already_present": {"fr": "déjà présent, rien à refaire", "en": "already present, nothing to redo"},
    "jobs.key.refused": {"fr": "fichier refusé", "en": "file refused"},
    "jobs.key.internal": {"fr": "erreur interne (consignée dans le journal)", "en": "internal error (logged)"},
    "jobs.key.crashed": {"fr": "l'import s'est interrompu plusieurs fois", "en": "the import stopped several times"},
    "jobs.key.cancelled": {"fr": "annulé", "en": "cancelled"},
    "jobs.failed_detail": {"fr": "Échec — {reason} : {detail}", "en": "Failed — {reason}: {detail}"},
    "jobs.indicator": {
        "fr": ":material/hourglass_top: {n} import(s) en cours",
        "en": ":material/hourglass_top: {n} import(s) in progress",
    },
    "jobs.toast_done": {"fr": "« {file} » est importé et consultable.", "en": "“{file}” is imported and searchable."},
    "jobs.toast_failed": {"fr": "L'import de « {file} » a échoué.", "en": "The import of “{file}” failed."},
    "jobs.toast_cancelled": {"fr": "L'import de « {file} » est annulé.", "en": "The import of “{file}” is cancelled."},
    "jobs.clear": {"fr": "Effacer les imports terminés", "en": "Clear the finished imports"},
}
