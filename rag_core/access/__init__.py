"""TEMPORARY STAND-IN for issue-16core's rag_core/access (replaced by issue-16core at merge).

Only what the UI needs to build a Principal, following /work/cache/ACCESS_CONTRACT.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from rag_core.errors import AccessDenied

Role = Literal["read", "write", "manage"]


@dataclass(frozen=True)
class Principal:
    user: str
    groups: frozenset[str] = field(default_factory=frozenset)
    is_admin: bool = False

    @classmethod
    def local_operator(cls) -> "Principal":
        return cls(user="local", is_admin=True)


@dataclass(frozen=True)
class Grant:
    collection: str
    subject_kind: Literal["user", "group"]
    subject: str
    role: Role
    granted_by: str
    granted_at: str


def _groups(value: Any) -> frozenset[str]:
    if isinstance(value, str):
        return frozenset(g.strip() for g in value.split(",") if g.strip())
    return frozenset(str(g) for g in value or ())


def _admin(user: str, groups: frozenset[str], settings: Any) -> bool:
    return user in settings.auth.admin_users or bool(groups & set(settings.auth.admin_groups))


def principal_from_claims(claims: Mapping[str, Any], settings: Any) -> Principal:
    user = str(claims.get(settings.auth.user_claim) or "")
    if not user:
        raise AccessDenied(f"The sign-in did not give the '{settings.auth.user_claim}' claim.")
    groups = _groups(claims.get(settings.auth.groups_claim))
    return Principal(user=user, groups=groups, is_admin=_admin(user, groups, settings))


def principal_from_headers(headers: Mapping[str, str], settings: Any) -> Principal:
    if not settings.auth.trust_proxy_headers:
        raise AccessDenied("Identity headers are ignored: RAG_AUTH__TRUST_PROXY_HEADERS is off.")
    lowered = {k.lower(): v for k, v in headers.items()}
    user = (lowered.get(settings.auth.user_header.lower()) or "").strip()
    if not user:
        raise AccessDenied("The proxy did not say who you are.")
    groups = _groups(lowered.get(settings.auth.groups_header.lower(), ""))
    return Principal(user=user, groups=groups, is_admin=_admin(user, groups, settings))
