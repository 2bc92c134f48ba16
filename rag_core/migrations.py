"""Versioned stored data: the library's schema version, the ordered migrations that bring an older library up
to it, and the check run when a library is opened.

A library's schema version is the `schema` of its LanceDB `meta` row (`Store.meta`), written with its first
document as `library.SCHEMA_VERSION`, next to the migrations applied to it (`migrations`: name and time of
each). Stored files with a format of their own carry their own version as well: the grants (`version`), each
document's manifest (`schema`). Versions:

- 0: written before versions were kept (the releases up to the one that came before versions): the `meta`
  row has no `schema`; the grants may be of version 1, naming the local operator `local`; the operator's
  conversations are in the folder of the user `local`.
- 1: the schema and the migrations recorded in `meta`; grants of version 2 (the operator is `LOCAL_USER`);
  the operator's conversations in its own folder; manifests carry `schema`.

The rule: code reads only the current schema. A change to what is stored bumps `SCHEMA_VERSION` and appends
to `MIGRATIONS` one `Migration` whose `to` is the new version and which rewrites the older data in place;
no reader keeps a branch for an older format. `check` runs when a library is opened (the pipeline's
`open_store`): a library newer than the code is refused (`library.schema_newer`), an older one is refused
with the command that migrates it (`library.schema_older`), so nothing is ever half-read; `migrate` (the
command `python -m rag_core migrate`, run with the app and its workers stopped) applies the pending
migrations in order, each recorded as it is applied, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rag_core import storage
from rag_core.access.grants import KEY as GRANTS_KEY
from rag_core.access.grants import VERSION as GRANTS_VERSION
from rag_core.access.principal import LEGACY_LOCAL_USER, LOCAL_USER
from rag_core.config import Settings
from rag_core.errors import SchemaError
from rag_core.library import SCHEMA_VERSION
from rag_core.store import Store
from rag_core.understanding.followups import user_folder


@dataclass(frozen=True)
class Migration:
    to: int  # the schema version the library has once it is applied
    name: str
    what: str  # what it changes, for the operator
    run: Callable[[Settings, Store], None]


def found_schema(settings: Settings, store: Store) -> int | None:
    """The library's schema version; None for a library with nothing of an older format (nothing indexed
    yet, and grants, if any, of the current version): it takes the current version with its first document."""
    meta = store.meta()
    if meta is not None:
        return int(meta.get("schema") or 0)
    found = storage.open_library(settings).read(GRANTS_KEY)
    if found is not None and int(json.loads(found[0]).get("version", 1)) < GRANTS_VERSION:
        return 0
    return None


def refusal(found: int, where: str) -> SchemaError:
    """The error for data of schema `found` (another than `SCHEMA_VERSION`) at `where`."""
    key = "library.schema_newer" if found > SCHEMA_VERSION else "library.schema_older"
    return SchemaError.of(key, where=where, found=found, current=SCHEMA_VERSION)


def check(settings: Settings, store: Store) -> None:
    """Refuse a library of another schema version than this code's (`refusal`)."""
    found = found_schema(settings, store)
    if found is not None and found != SCHEMA_VERSION:
        raise refusal(found, _where(settings))


def _where(settings: Settings) -> str:
    return str(settings.library_uri or settings.data_dir)


def migrate(settings: Settings, say: Callable[[str], None] = print) -> list[str]:
    """Apply the migrations the library lacks, in order, each recorded in `meta` once done; their names."""
    store = Store(settings.db_uri)
    found = found_schema(settings, store)
    if found is None or found == SCHEMA_VERSION:
        say(f"the library is at schema {SCHEMA_VERSION}: nothing to migrate")
        return []
    if found > SCHEMA_VERSION:
        raise refusal(found, _where(settings))
    applied = []
    for migration in (m for m in MIGRATIONS if m.to > found):
        migration.run(settings, store)
        _record(store, migration)
        applied.append(migration.name)
        say(f"schema {migration.to}: {migration.name}: {migration.what}")
    return applied


def _record(store: Store, migration: Migration) -> None:
    meta = store.meta()
    if meta is None:  # nothing indexed: the first document writes the current schema
        return
    done = json.loads(meta.get("migrations") or "[]")
    done.append({"name": migration.name, "to": migration.to, "at": datetime.now(UTC).isoformat(timespec="seconds")})
    store.write_meta({**meta, "schema": migration.to, "migrations": json.dumps(done)})


# ----- the migrations, oldest first ---------------------------------------------------------------------


def _operator(name: Any) -> Any:
    return LOCAL_USER if str(name).strip().lower() == LEGACY_LOCAL_USER else name


def _grants_v2(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """Grants of version 1 named the local operator `local`, a name a proxy or an identity provider could
    also give someone: its entries (grants to the user `local`, grantors, creators) become the operator's
    (`LOCAL_USER`); a group called `local` stays a group. None: nothing to change."""
    if data is None or int(data.get("version", 1)) >= 2:
        return None
    grants = [dict(g) for g in data.get("grants", [])]
    for entry in grants:
        if entry.get("subject_kind") == "user":
            entry["subject"] = _operator(entry.get("subject", ""))
        entry["granted_by"] = _operator(entry.get("granted_by", ""))
    created = {name: {**e, "by": _operator(e.get("by", ""))} for name, e in data.get("collections", {}).items()}
    return {**data, "version": 2, "collections": created, "grants": grants}


def _operator_conversations(library: storage.Library) -> None:
    """The local operator's conversations were kept in the folder of its former name `local`: they move to
    its own (`understanding.conversation_key`). A log already in the new folder is from an interrupted run
    of this migration: the old one is only removed."""
    old, new = user_folder(LEGACY_LOCAL_USER), user_folder(LOCAL_USER)
    entries = library.entries(old + "/")
    logs = sorted({e.key[: e.key.index(".jsonl") + len(".jsonl")] for e in entries if ".jsonl" in e.key})
    for log in logs:
        moved = new + log[len(old) :]
        if not library.read_lines(moved):
            library.import_lines(moved, library.read_lines(log))
    library.delete([e.key for e in entries])


def _versioned_data(settings: Settings, store: Store) -> None:
    library = storage.open_library(settings)
    storage.update_json(library, GRANTS_KEY, _grants_v2)
    _operator_conversations(library)


MIGRATIONS: list[Migration] = [
    Migration(
        1,
        "versioned-data",
        "the schema and the migrations recorded in the index; grants of version 2 (the operator's entries, "
        "stored as 'local', renamed); the operator's conversations moved from the folder of that name to its own",
        _versioned_data,
    )
]
