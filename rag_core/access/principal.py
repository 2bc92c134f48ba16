"""Who is asking: the `Principal` (user, groups, administrator flag) and how it is built.

The page or the CLI builds it: the local operator in `local` mode, the OpenID Connect claims
in `oidc` mode, the headers of an authenticating reverse proxy in `header` mode (only when
the settings declare that proxy), `--as-user` on the command line. This module decides
nothing about collections (`grants.py` does) and never sees a token or a cookie.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rag_core.config import Settings
from rag_core.errors import AccessDenied

LOCAL_USER = "local"


@dataclass(frozen=True)
class Principal:
    user: str
    groups: frozenset[str] = field(default_factory=frozenset)
    is_admin: bool = False

    def __post_init__(self) -> None:
        # a list or a set from the caller becomes a frozenset: the principal stays hashable
        object.__setattr__(self, "groups", frozenset(self.groups))

    @classmethod
    def local_operator(cls) -> "Principal":
        """The one operator of `local` mode (and the CLI's default): administrator of everything."""
        return cls(user=LOCAL_USER, is_admin=True)

    @property
    def user_key(self) -> str:
        """The user as grants compare it: e-mail addresses are case-insensitive."""
        return self.user.strip().lower()


def split_groups(value: Any) -> frozenset[str]:
    """Groups from a claim or a header: a list, or a comma-separated string; blanks dropped."""
    if value is None:
        return frozenset()
    items: Iterable[Any] = value.split(",") if isinstance(value, str) else value
    return frozenset(str(g).strip() for g in items if str(g).strip())


def make_principal(user: str, groups: Iterable[str], settings: Settings) -> Principal:
    """A signed-in user; administrator when the settings list the user or one of the groups."""
    user = user.strip()
    if not user:
        raise AccessDenied("You are not signed in; sign in to see the library.")
    group_set = frozenset(g.strip() for g in groups if g.strip())
    admin = (user.lower() in {u.strip().lower() for u in settings.auth.admin_users}
             or bool(group_set & {g.strip() for g in settings.auth.admin_groups}))
    return Principal(user=user, groups=group_set, is_admin=admin)


def principal_from_claims(claims: Mapping[str, Any], settings: Settings) -> Principal:
    """The principal of an OpenID Connect sign-in (`st.user`): user and groups claims named by the settings."""
    user = claims.get(settings.auth.user_claim)
    if not isinstance(user, str) or not user.strip():
        raise AccessDenied(
            f"Your sign-in did not say who you are (no '{settings.auth.user_claim}' in what the identity "
            "provider sent); ask your administrator to release that claim to this application."
        )
    return make_principal(user, split_groups(claims.get(settings.auth.groups_claim)), settings)


def principal_from_headers(headers: Mapping[str, str], settings: Settings) -> Principal:
    """The principal an authenticating reverse proxy passed in request headers (`header` mode only).

    Refused unless `auth.trust_proxy_headers` is on: without a proxy that sets these headers on
    every request, anyone could claim to be anyone.
    """
    if not settings.auth.trust_proxy_headers:
        raise AccessDenied("This server does not accept identities from request headers "
                           "(RAG_AUTH__TRUST_PROXY_HEADERS is off).")
    lowered = {str(k).lower(): v for k, v in headers.items()}
    user = lowered.get(settings.auth.user_header.lower()) or ""
    return make_principal(user, split_groups(lowered.get(settings.auth.groups_header.lower())), settings)
