"""The access rules every verb applies: scope resolution, the checks before bytes, grants, the audit trail.

Every public entry point of `rag_core.pipeline` takes a `Principal`, and so do the flows below it (the
question, the worker, the evaluation), which call this module directly. Reading goes through
`readable_scope` (its document ids are the prefilter of every search channel and the filter of
every listing) and `readable_record` (the independent check the viewer, exports and crops make
before producing bytes; an unreadable document is "not found", exactly like a missing one).
Writing goes through `require`, and an upload's collection through `target_collection` (the
name rules of `access.names`: the reserved default name, look-alikes, a collection another user
created). Grants are changed here and nowhere else; a group is granted only by an administrator
or one of its members. Each change, like every question, upload, deletion, opened page,
inspection and export, is written to the audit trail (`scrubbed` masks the same secrets in a message that
leaves the library another way). The public grant and audit entry points at the end are re-exported by
`rag_core.pipeline`.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from rag_core import storage
from rag_core.access import (
    AccessTable,
    AuditLog,
    Grant,
    GrantStore,
    Principal,
    Role,
    Scope,
    includes,
    names,
    scrub,
    to_csv,
)
from rag_core.access.names import DEFAULT_COLLECTION
from rag_core.config import Settings
from rag_core.errors import AccessDenied, InputError, NotFoundError
from rag_core.messages import message
from rag_core.models import DocumentRecord
from rag_core.services.connection import open_store
from rag_core.store import Store

NOT_FOUND = message("doc.not_found")


def clean_collection(name: str | None) -> str:
    """The stored form of a typed collection name (`access.names.clean`); the default one when blank."""
    return names.clean(name or "") or DEFAULT_COLLECTION


def grants_of(settings: Settings) -> AccessTable:
    return GrantStore(storage.open_library(settings)).load()


def readable_scope(settings: Settings, principal: Principal) -> Scope:
    return Scope.of(grants_of(settings), principal, "read")


def readable_records(
    store: Store, settings: Settings, principal: Principal, collection: str | None = None
) -> list[DocumentRecord]:
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
    raise NotFoundError.of("doc.not_found")


def all_collections(store: Store, table: AccessTable) -> set[str]:
    """Collections with documents, and those created or granted before their first document."""
    return {r.collection for r in store.documents()} | set(table.known_collections())


def require(settings: Settings, collection: str, action: Role, principal: Principal) -> None:
    if not includes(grants_of(settings).role_of(principal, collection), action):
        raise AccessDenied.of(f"access.cannot_{action}", collection=collection)


def require_admin(principal: Principal, what: str) -> None:
    """`what`: the action, as its message key `admin.<what>` names it (rag_core/error_messages.py)."""
    if not principal.is_admin:
        raise AccessDenied.of(f"admin.{what}")


def collections_where(store: Store, settings: Settings, action: Role, principal: Principal) -> list[str]:
    table = grants_of(settings)
    allowed = table.collections_for(principal, action)
    return sorted(all_collections(store, table) if allowed is None else allowed)


def target_collection(
    store: Store, settings: Settings, name: str | None, principal: Principal, into_existing: bool = False
) -> str:
    """The collection an upload goes into: the existing one the name designates (same name up to
    case and Unicode width), or a new one. Refused: no `write` on it; a collection another user
    created, unless `into_existing` says the actor means it; a new name that is reserved (for
    non-administrators), a look-alike of an existing one, or mixed-script. A new collection is
    registered with `manage` for a non-administrator creator."""
    table = grants_of(settings)
    existing = all_collections(store, table)
    target = names.same(clean_collection(name), existing)
    if target is None:
        cleaned = check_new_name(clean_collection(name), existing, settings, principal)
        if principal.is_admin or create(settings, cleaned, principal):
            return cleaned
        target = cleaned  # created by someone else meanwhile: the checks below apply
    if not includes(grants_of(settings).role_of(principal, target), "write"):
        raise AccessDenied.of("access.no_write_target", collection=target)
    creator = creator_of(settings, target)
    if creator is not None and creator.strip().lower() != principal.user_key and not into_existing:
        raise AccessDenied.of("access.created_by_other", collection=target, creator=creator)
    return target


def creator_of(settings: Settings, collection: str) -> str | None:
    """Who created the collection (None for one an administrator filled without registering it)."""
    entry = grants_of(settings).created.get(collection)
    return str(entry.get("by")) if entry and entry.get("by") else None


def check_new_name(name: str, existing: set[str], settings: Settings, principal: Principal) -> str:
    """A name a new collection may take, for this principal: refuses the reserved default name
    (non-administrators), look-alikes of an existing collection and mixed-script names."""
    if names.is_reserved(name) and not principal.is_admin:
        raise AccessDenied.of("access.reserved_name", name=names.clean(name))
    twin = names.lookalike(name, existing)
    if twin is not None:
        shown = f" '{twin}'" if readable_scope(settings, principal).allows(twin) else ""
        raise InputError.of("access.lookalike_name", name=names.clean(name), shown=shown)
    return names.check_new(name)


def create(settings: Settings, collection: str, principal: Principal) -> bool:
    """Register a new collection with `manage` for its creator; False if the name was taken meanwhile."""
    grant = GrantStore(storage.open_library(settings)).register(collection, principal.user)
    if grant is not None:
        audit(settings, "collection_created", principal, collection=collection)
    return grant is not None


def check_existing_copy(
    record: DocumentRecord | None, collection: str, settings: Settings, principal: Principal
) -> None:
    """Uploading bytes that are already stored in another collection moves the document there:
    only those who manage that collection may. Everyone else gets one answer, whether they can
    read the stored copy or not: it neither confirms that the file is in the library nor names
    where."""
    if record is None or record.collection == collection:
        return
    if not includes(grants_of(settings).role_of(principal, record.collection), "manage"):
        raise AccessDenied.of("access.may_not_add", collection=collection)


# ----- grants --------------------------------------------------------------------------------
def subject_of(user: str | None, group: str | None) -> tuple[str, str]:
    if (user is None) == (group is None):
        raise InputError.of("access.user_or_group")
    # the ignore below: the check above leaves exactly one of them set
    return ("user", user) if user is not None else ("group", group)  # type: ignore[return-value]


def change_grant(
    store: Store,
    settings: Settings,
    collection: str,
    principal: Principal,
    user: str | None,
    group: str | None,
    role: Role | None,
) -> Grant | None:
    """Grant `role` (or revoke when None) to the user or group on `collection`; `manage` required."""
    kind, subject = subject_of(user, group)
    named = names.same(collection, all_collections(store, grants_of(settings)))
    if named is None:
        raise InputError.of("access.no_collection", collection=collection)
    collection = named
    require(settings, collection, "manage", principal)
    if kind == "group" and role is not None and not principal.is_admin and subject.strip() not in principal.groups:
        raise AccessDenied.of("access.group_grant", group=subject.strip())
    grants = GrantStore(storage.open_library(settings))
    if role is not None:
        # the ignore below: kind is 'user' or 'group' (_subject)
        grant = grants.grant(collection, kind, subject, role, principal.user)  # type: ignore[arg-type]
        audit(settings, "grant", principal, collection=collection, subject_kind=kind, subject=grant.subject, role=role)
        return grant
    removed = grants.revoke(collection, kind, subject)  # type: ignore[arg-type]  # kind is 'user' or 'group' (_subject)
    if removed is not None:
        audit(
            settings,
            "revoke",
            principal,
            collection=collection,
            subject_kind=kind,
            subject=removed.subject,
            role=removed.role,
        )
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


def scrubbed(settings: Settings, text: str) -> str:
    """`text` with the library's secrets (the model endpoint's key) masked, as the audit trail stores it:
    for a message that leaves the process another way (a failed job's error in the jobs table)."""
    return scrub(text, _secrets(settings))


def audit(settings: Settings, event: str, principal: Principal, **fields: Any) -> dict:
    return AuditLog(storage.open_library(settings)).append(event, principal, fields, _secrets(settings))


def audit_document(settings: Settings, event: str, principal: Principal, record: DocumentRecord, **fields: Any) -> dict:
    """`audit` of an act on one document: its id, file name and collection, then the act's own fields."""
    return audit(
        settings,
        event,
        principal,
        doc_id=record.doc_id,
        file_name=record.file_name,
        collection=record.collection,
        **fields,
    )


# ----- the façade's grant and audit entry points (re-exported by rag_core.pipeline) ------------
def grant(
    settings: Settings,
    collection: str,
    *,
    principal: Principal,
    user: str | None = None,
    group: str | None = None,
    role: Role,
) -> Grant:
    """Give a user or a group `read`, `write` or `manage` on a collection (its managers and administrators)."""
    result = change_grant(open_store(settings), settings, collection, principal, user, group, role)
    assert result is not None
    return result


def revoke(
    settings: Settings, collection: str, *, principal: Principal, user: str | None = None, group: str | None = None
) -> Grant | None:
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
    (up to case and Unicode width) is fine for its managers (nothing changes) and refused to anyone
    else; so are the reserved default name (non-administrators), look-alikes and mixed-script names."""
    store = open_store(settings)
    existing = all_collections(store, grants_of(settings))
    named = names.same(clean_collection(name), existing)
    if named is None:
        named = check_new_name(clean_collection(name), existing, settings, principal)
        if create(settings, named, principal):
            return named
    require(settings, named, "manage", principal)
    return named


def audit_events(
    settings: Settings,
    *,
    principal: Principal,
    user: str | None = None,
    since: str | date | datetime | None = None,
    document: str | None = None,
) -> list[dict]:
    """The audit trail, oldest first, filtered by user, start date and document (administrators only)."""
    require_admin(principal, "audit")
    return AuditLog(storage.open_library(settings)).events(user=user, since=since, document=document)


def audit_csv(
    settings: Settings,
    *,
    principal: Principal,
    user: str | None = None,
    since: str | date | datetime | None = None,
    document: str | None = None,
) -> bytes:
    """`audit_events` as CSV bytes for a download (administrators only); the export is recorded."""
    data = to_csv(audit_events(settings, principal=principal, user=user, since=since, document=document))
    audit(
        settings, "audit_exported", principal, user_filter=user, since=str(since) if since else None, document=document
    )
    return data


def record_sign_in(settings: Settings, *, principal: Principal) -> None:
    """Write the sign-in of the principal to the audit trail (the page calls it once per session)."""
    audit(settings, "sign_in", principal, mode=settings.auth.mode)


def record_event(settings: Settings, event: str, *, principal: Principal, **fields: Any) -> None:
    """Write one audit record (sign-out, and events only the page sees); secrets are never kept."""
    audit(settings, event, principal, **fields)
