"""Scope resolution: from a principal and the grants to the collections and document ids it may see.

The document ids are the prefilter that every search channel applies inside its query
(`store`), and the filter of every listing; nothing is filtered after ranking. `require`
is the second, independent check that the viewer, the exports and the crops make before
producing bytes. This module reads no table: the caller gives the ready documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from rag_core.access.grants import AccessTable, Role
from rag_core.access.principal import Principal


class _Record(Protocol):
    @property
    def doc_id(self) -> str: ...

    @property
    def collection(self) -> str: ...


@dataclass(frozen=True)
class Scope:
    """What one principal may do `action` on: a set of collections, or every one (None)."""

    principal: Principal
    collections: frozenset[str] | None

    @classmethod
    def of(cls, table: AccessTable, principal: Principal, action: Role = "read") -> Scope:
        return cls(principal, table.collections_for(principal, action))

    def allows(self, collection: str) -> bool:
        return self.collections is None or collection in self.collections

    def narrowed(self, wanted: Iterable[str] | None) -> frozenset[str] | None:
        """The collections asked for (None: all) that this scope allows."""
        if wanted is None:
            return self.collections
        wanted = frozenset(wanted)
        return wanted if self.collections is None else wanted & self.collections

    def document_ids(
        self, records: Iterable[_Record], collections: Sequence[str] | None = None, doc_ids: Sequence[str] | None = None
    ) -> list[str]:
        """Ids of the ready documents in scope, within the collections and ids asked for (None: all)."""
        allowed = self.narrowed(collections)
        wanted = None if doc_ids is None else set(doc_ids)
        return [
            r.doc_id
            for r in records
            if (allowed is None or r.collection in allowed) and (wanted is None or r.doc_id in wanted)
        ]
