"""Grants on collections, stored in the library: who may read, write or manage what.

`read` sees, searches, asks, opens pages and exports tables; `write` adds uploads; `manage`
adds deleting documents and granting on the collection. Administrators manage everything.
No grant means no access: a collection nobody was granted (one of a library written before
grants existed, for instance) is visible to administrators only, and a new collection starts
with a `manage` grant for its creator.

The grants live in the library at `access/grants.json`, changed only through these functions:
read-modify-write by compare-and-swap (`rag_core.storage.update_json`: an `fcntl` lock in a
local directory, a conditional put in an object store), written whole, so a crash leaves the old
grants or the new ones, never half, and two servers granting at once both keep their grant.
Readers take the file as it is and keep its parse until its version changes. A file of another
`version` than this code's is refused, never half-read: an older one asks for
`python -m rag_core migrate` (`rag_core.migrations` rewrites it), a newer one for a newer release.
This module does not know documents: `scope.py` maps collections to document ids.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from rag_core.access.principal import Principal
from rag_core.errors import InputError, SchemaError
from rag_core.storage.base import Library, update_json
from rag_core.storage.local import as_library

Role = Literal["read", "write", "manage"]
SubjectKind = Literal["user", "group"]
ROLES: tuple[Role, ...] = ("read", "write", "manage")  # each includes the ones before it
_RANK = {role: i for i, role in enumerate(ROLES)}


@dataclass(frozen=True)
class Grant:
    collection: str
    subject_kind: SubjectKind
    subject: str
    role: Role
    granted_by: str
    granted_at: str


def check_role(role: str) -> Role:
    if role not in _RANK:
        raise InputError.of("access.unknown_role", role=role)
    return role


def includes(held: Role | None, wanted: Role) -> bool:
    """Does the role `held` allow `wanted` (manage > write > read)?"""
    return held is not None and _RANK[held] >= _RANK[check_role(wanted)]


def _matches(grant: Grant, principal: Principal) -> bool:
    if grant.subject_kind == "user":
        return grant.subject.strip().lower() == principal.user_key
    return grant.subject in principal.groups


@dataclass(frozen=True)
class AccessTable:
    """The grants and the registered collections, as one file held them at one moment."""

    grants: tuple[Grant, ...] = ()
    created: dict[str, dict[str, str]] = field(default_factory=dict)  # collection -> {"by", "at"}

    def role_of(self, principal: Principal, collection: str) -> Role | None:
        """The strongest role the principal holds on `collection` (administrators: manage)."""
        if principal.is_admin:
            return "manage"
        best: Role | None = None
        for grant in self.grants:
            if grant.collection == collection and _matches(grant, principal):
                if best is None or _RANK[grant.role] > _RANK[best]:
                    best = grant.role
        return best

    def collections_for(self, principal: Principal, action: Role) -> frozenset[str] | None:
        """Collections on which the principal may do `action`; None means every one (administrators)."""
        if principal.is_admin:
            return None
        return frozenset(g.collection for g in self.grants if _matches(g, principal) and includes(g.role, action))

    def known_collections(self) -> frozenset[str]:
        """Collections that were created or granted, with or without documents."""
        return frozenset(self.created) | frozenset(g.collection for g in self.grants)

    def to_json(self) -> dict:
        return {"version": VERSION, "collections": self.created, "grants": [asdict(g) for g in self.grants]}

    @classmethod
    def from_json(cls, data: dict) -> AccessTable:
        grants = [dict(g) for g in data.get("grants", [])]
        created = {name: dict(entry) for name, entry in dict(data.get("collections", {})).items()}
        return cls(tuple(Grant(**g) for g in grants), created)


VERSION = 2  # of the file's format; 1 named the local operator `local` (`rag_core.migrations`)


def _check_version(data: dict | None, where: str) -> None:
    """Refuse grants of another format than this code's (an empty library has none: the current)."""
    found = int((data or {}).get("version", VERSION if data is None else 1))
    if found != VERSION:
        key = "library.schema_newer" if found > VERSION else "library.schema_older"
        raise SchemaError.of(key, where=where, found=f"grants {found}", current=f"grants {VERSION}")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


_cache: dict[tuple[str, str], AccessTable] = {}  # (library, version of the grants) -> their parse
_cache_lock = threading.Lock()
KEY = "access/grants.json"


class GrantStore:
    """The grants of one library (a directory, or a `rag_core.storage.Library`)."""

    def __init__(self, library: Path | str | Library) -> None:
        self.library = as_library(library)
        self.path = Path(self.library.uri) / KEY  # where a local library keeps them

    def load(self) -> AccessTable:
        """The grants as they are now (parsed again only when they changed)."""
        found = self.library.read(KEY)
        if found is None:
            return AccessTable()
        key = (self.library.uri, found[1])
        with _cache_lock:
            cached = _cache.get(key)
        if cached is not None:
            return cached
        data = json.loads(found[0].decode("utf-8"))
        _check_version(data, self._where)
        table = AccessTable.from_json(data)
        with _cache_lock:
            _cache[key] = table
        return table

    @property
    def _where(self) -> str:
        return f"{self.library.uri} {KEY}"

    def _change(self, change: Callable[[AccessTable], AccessTable | None]) -> None:
        """Read-modify-write by compare-and-swap (`storage.update_json`): a grant changed at the same
        moment by another process or server is kept, and this change is made on top of it. A file of
        another version is refused (`_check_version`)."""

        def on_json(data: dict | None) -> dict | None:
            _check_version(data, self._where)
            new = change(AccessTable.from_json(data or {}))
            return None if new is None else new.to_json()

        update_json(self.library, KEY, on_json)

    def grant(self, collection: str, kind: SubjectKind, subject: str, role: Role, by: str) -> Grant:
        """Give `subject` the role `role` on `collection` (it replaces the subject's earlier role there)."""
        subject = _clean_subject(kind, subject)
        new = Grant(collection, kind, subject, check_role(role), by, _now())

        def change(table: AccessTable) -> AccessTable:
            kept = tuple(g for g in table.grants if not _same_subject(g, collection, kind, subject))
            return AccessTable(kept + (new,), table.created)

        self._change(change)
        return new

    def revoke(self, collection: str, kind: SubjectKind, subject: str) -> Grant | None:
        """Remove the subject's grant on `collection`; returns it (None when there was none)."""
        subject = _clean_subject(kind, subject)
        gone: list[Grant] = []

        def change(table: AccessTable) -> AccessTable | None:
            gone[:] = [g for g in table.grants if _same_subject(g, collection, kind, subject)]
            return AccessTable(tuple(g for g in table.grants if g not in gone), table.created) if gone else None

        self._change(change)
        return gone[0] if gone else None

    def register(self, collection: str, creator: str) -> Grant | None:
        """Record a new collection and give its creator `manage`; None if it was already known
        (created or granted). Whether it already holds documents is the caller's question."""
        made: list[Grant] = []

        def change(table: AccessTable) -> AccessTable | None:
            made.clear()
            if collection in table.known_collections():
                return None
            grant = Grant(collection, "user", creator.strip(), "manage", creator.strip(), _now())
            made.append(grant)
            created = {**table.created, collection: {"by": creator.strip(), "at": grant.granted_at}}
            return AccessTable(table.grants + (grant,), created)

        self._change(change)
        return made[0] if made else None


def _same_subject(grant: Grant, collection: str, kind: SubjectKind, subject: str) -> bool:
    if grant.collection != collection or grant.subject_kind != kind:
        return False
    return grant.subject.lower() == subject.lower() if kind == "user" else grant.subject == subject


def _clean_subject(kind: str, subject: str) -> str:
    if kind not in ("user", "group"):
        raise InputError.of("access.grant_kind")
    cleaned = subject.strip()
    if not cleaned or any(ch in cleaned for ch in "\n\r\t"):
        raise InputError.of(f"access.grant_{kind}")
    return cleaned
