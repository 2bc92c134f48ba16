"""Access control: who is asking (`Principal`), what they may do (`Grant`s on collections),
what they may see (`Scope`: readable collections -> document ids), what a collection may be
called (`names`) and what they did (the audit trail).

The pipeline façade takes a `Principal` in every entry point and enforces these rules below
the UI; pages and the CLI only build the principal and pass it. This package imports no
outside library and reads no LanceDB table.
"""

from __future__ import annotations

from rag_core.access.audit import EVENTS, AuditLog, scrub, to_csv
from rag_core.access.grants import ROLES, AccessTable, Grant, GrantStore, Role, includes
from rag_core.access.principal import (
    LEGACY_LOCAL_USER,
    LOCAL_USER,
    AmbiguousGroupsHeader,
    DuplicateIdentityHeader,
    Principal,
    ReservedUser,
    exposure_refusal,
    header_groups,
    make_principal,
    principal_from_claims,
    principal_from_headers,
    split_groups,
)
from rag_core.access.scope import Scope

__all__ = [
    "EVENTS",
    "LEGACY_LOCAL_USER",
    "LOCAL_USER",
    "ROLES",
    "AccessTable",
    "AmbiguousGroupsHeader",
    "AuditLog",
    "DuplicateIdentityHeader",
    "Grant",
    "GrantStore",
    "Principal",
    "ReservedUser",
    "Role",
    "Scope",
    "exposure_refusal",
    "header_groups",
    "includes",
    "make_principal",
    "principal_from_claims",
    "principal_from_headers",
    "scrub",
    "split_groups",
    "to_csv",
]
