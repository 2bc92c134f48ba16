"""The façade's access rules: scope resolution, the checks before bytes, grants, the audit trail.

Every public entry point of `rag_core.pipeline` takes a `Principal`. Reading goes through
`readable_scope` (its document ids are the prefilter of every search channel and the filter of
every listing) and `readable_record` (the independent check the viewer, exports and crops make
before producing bytes; an unreadable document is "not found", exactly like a missing one).
Writing goes through `require`. Grants are changed here and nowhere else; each change, like
every question, upload, deletion, opened page and export, is written to the audit trail.
The public grant and audit entry points at the end are re-exported by `rag_core.pipeline`.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from rag_core.access import AccessTable, AuditLog, Grant, GrantStore, Principal, Role, Scope, includes, to_csv
from rag_core.config import Settings
from rag_core.errors import AccessDenied, InputError, NotFoundError
from rag_core.models import DocumentRecord
from rag_core.pipeline.connection import open_store
from rag_core.store import Store

NOT_FOUND = "This document is not in the library."
_ROLE_WORDS = {"read": "read", "write": "add documents to", "manage": "manage"}


def clean_collection(name: str) -> str:
    cleaned = "".join(ch for ch in name.strip() if ch.isalnum() or ch in " -_.")[:64].strip()
    return cleaned or "default"


def grants_of(settings: Settings) -> AccessTable:
    return GrantStore(settings.data_dir).load()


def readable_scope(settings: Settings, principal: Principal) -> Scope:
    return Scope.of(grants_of(settings), principal, "read")


def readable_records(store: Store, settings: Settings, principal: Principal,
                     collection: str | None = None) -> list[DocumentRecord]:
    scope = readable_scope(settings, principal)
    return [r for r in store.documents(collection) if scope.allows(r.collection)]


def readable_record(store: Store, doc_id: str, settings: Settings, principal: Principal) -> DocumentRecord:
    """The record of a ready document the principal may read; NotFoundError otherwise, with the
    same message for a missing, a forged and an unreadable id. Reads the grants and the table
    again: it trusts nothing the caller found earlier."""
    scope = readable_scope(settings, principal)
    for record in store.documents():
        if record.doc_id == doc_id and scope.allows(record.collection):
            return record
    raise NotFoundError(NOT_FOUND)


def all_collections(store: Store, table: AccessTable) -> set[str]:
    """Collections with documents, and those created or granted before their first document."""
    return {r.collection for r in store.documents()} | set(table.known_collections())


def require(settings: Settings, collection: str, action: Role, principal: Principal) -> None:
    if not includes(grants_of(settings).role_of(principal, collection), action):
        raise AccessDenied(f"You cannot {_ROLE_WORDS[action]} the collection '{collection}'; "
                           "ask one of its managers or an administrator.")


def require_admin(principal: Principal, what: str) -> None:
    if not principal.is_admin:
        raise AccessDenied(f"Only an administrator can {what}.")


def collections_where(store: Store, settings: Settings, action: Role, principal: Principal) -> list[str]:
    table = grants_of(settings)
    allowed = table.collections_for(principal, action)
    return sorted(all_collections(store, table) if allowed is None else allowed)


def ensure_writable(store: Store, settings: Settings, collection: str, principal: Principal) -> None:
    """Uploads into `collection` are allowed: it is writable, or new and then created for the principal."""
    table = grants_of(settings)
    if includes(table.role_of(principal, collection), "write"):
        return
    if collection not in all_collections(store, table) and create(settings, collection, principal):
        return
    raise AccessDenied(f"You cannot add documents to the collection '{collection}'; "
                       "ask one of its managers for write access, or choose another name.")


def create(settings: Settings, collection: str, principal: Principal) -> bool:
    """Register a new collection with `manage` for its creator; False if the name was taken meanwhile."""
    grant = GrantStore(settings.data_dir).register(collection, principal.user)
    if grant is not None:
        audit(settings, "collection_created", principal, collection=collection)
    return grant is not None


def check_existing_copy(record: DocumentRecord | None, collection: str, settings: Settings,
                        principal: Principal) -> None:
    """Uploading bytes that are already stored in another collection moves the document there:
    only those who manage that collection may. The message does not name a collection the
    principal cannot read."""
    if record is None or record.collection == collection:
        return
    role = grants_of(settings).role_of(principal, record.collection)
    if not includes(role, "manage"):
        where = f" (collection '{record.collection}')" if role is not None else ""
        raise AccessDenied(f"This file is already in the library{where}, in a collection you cannot change; "
                           "ask its managers to share it with you.")


# ----- grants --------------------------------------------------------------------------------
def subject_of(user: str | None, group: str | None) -> tuple[str, str]:
    if (user is None) == (group is None):
        raise InputError("Give either a user or a group, not both.")
    return ("user", user) if user is not None else ("group", group)  # type: ignore[return-value]


def change_grant(store: Store, settings: Settings, collection: str, principal: Principal, user: str | None,
                 group: str | None, role: Role | None) -> Grant | None:
    """Grant `role` (or revoke when None) to the user or group on `collection`; `manage` required."""
    kind, subject = subject_of(user, group)
    table = grants_of(settings)
    if collection not in all_collections(store, table):
        raise InputError(f"There is no collection '{collection}'; create it first (upload into it).")
    require(settings, collection, "manage", principal)
    grants = GrantStore(settings.data_dir)
    if role is not None:
        grant = grants.grant(collection, kind, subject, role, principal.user)  # type: ignore[arg-type]
        audit(settings, "grant", principal, collection=collection, subject_kind=kind, subject=grant.subject,
              role=role)
        return grant
    removed = grants.revoke(collection, kind, subject)  # type: ignore[arg-type]
    if removed is not None:
        audit(settings, "revoke", principal, collection=collection, subject_kind=kind, subject=removed.subject,
              role=removed.role)
    return removed


def visible_grants(settings: Settings, principal: Principal) -> list[Grant]:
    """Administrators see every grant; a manager those of the collections they manage."""
    table = grants_of(settings)
    managed = table.collections_for(principal, "manage")
    shown = [g for g in table.grants if managed is None or g.collection in managed]
    return sorted(shown, key=lambda g: (g.collection, g.subject_kind, g.subject.lower()))


# ----- audit ---------------------------------------------------------------------------------
def _secrets(settings: Settings) -> list[str]:
    key = settings.llm_key()
    return [key.get_secret_value()] if key is not None else []


def audit(settings: Settings, event: str, principal: Principal, **fields: Any) -> dict:
    return AuditLog(settings.data_dir).append(event, principal, fields, _secrets(settings))




# ----- the façade's grant and audit entry points (re-exported by rag_core.pipeline) ------------
def grant(settings: Settings, collection: str, *, principal: Principal, user: str | None = None,
          group: str | None = None, role: Role) -> Grant:
    """Give a user or a group `read`, `write` or `manage` on a collection (its managers and administrators)."""
    result = change_grant(open_store(settings), settings, collection, principal, user, group, role)
    assert result is not None
    return result


def revoke(settings: Settings, collection: str, *, principal: Principal, user: str | None = None,
           group: str | None = None) -> Grant | None:
    """Remove a user's or a group's grant on a collection; returns it (None when there was none)."""
    return change_grant(open_store(settings), settings, collection, principal, user, group, None)


def list_grants(settings: Settings, *, principal: Principal) -> list[Grant]:
    """Administrators: every grant; managers: those of their collections; others: none."""
    return visible_grants(settings, principal)


def can(settings: Settings, collection: str, action: Role, *, principal: Principal) -> bool:
    """May the principal `action` (read, write, manage) on `collection`?"""
    return includes(grants_of(settings).role_of(principal, collection), action)


def manageable_collections(settings: Settings, *, principal: Principal) -> list[str]:
    return collections_where(open_store(settings), settings, "manage", principal)


def writable_collections(settings: Settings, *, principal: Principal) -> list[str]:
    return collections_where(open_store(settings), settings, "write", principal)


def create_collection(settings: Settings, name: str, *, principal: Principal) -> str:
    """A new, empty collection managed by its creator; returns its cleaned name. An existing name
    is fine for its managers (nothing changes) and refused to anyone else."""
    name = clean_collection(name)
    store = open_store(settings)
    if name in all_collections(store, grants_of(settings)) or not create(settings, name, principal):
        require(settings, name, "manage", principal)
    return name


def audit_events(settings: Settings, *, principal: Principal, user: str | None = None,
                 since: str | date | datetime | None = None, document: str | None = None) -> list[dict]:
    """The audit trail, oldest first, filtered by user, start date and document (administrators only)."""
    require_admin(principal, "read the audit trail")
    return AuditLog(settings.data_dir).events(user=user, since=since, document=document)


def audit_csv(settings: Settings, *, principal: Principal, user: str | None = None,
              since: str | date | datetime | None = None, document: str | None = None) -> bytes:
    """`audit_events` as CSV bytes for a download (administrators only); the export is recorded."""
    data = to_csv(audit_events(settings, principal=principal, user=user, since=since, document=document))
    audit(settings, "audit_exported", principal, user_filter=user, since=str(since) if since else None,
          document=document)
    return data


def record_sign_in(settings: Settings, *, principal: Principal) -> None:
    """Write the sign-in of the principal to the audit trail (the page calls it once per session)."""
    audit(settings, "sign_in", principal, mode=settings.auth.mode)


def record_event(settings: Settings, event: str, *, principal: Principal, **fields: Any) -> None:
    """Write one audit record (sign-out, and events only the page sees); secrets are never kept."""
    audit(settings, event, principal, **fields)


def reported_citations(settings: Settings, *, principal: Principal) -> bytes:
    """The reported citations for a download: the principal's own, everyone's for an administrator;
    the export is recorded."""
    from rag_core.evaluation.citation_reports import read_reports

    data = read_reports(settings.data_dir, None if principal.is_admin else principal.user)
    audit(settings, "reports_exported", principal, everyone=principal.is_admin)
    return data
