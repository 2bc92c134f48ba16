"""The façade's personal API token verbs: create, list, revoke (pages and the CLI), and the
principal a presented token acts as (the API and the MCP server). Every change is audited."""

from __future__ import annotations

from typing import Any

from rag_core import storage
from rag_core.access import Principal, make_principal
from rag_core.access.principal import Channel
from rag_core.access.tokens import TokenStore, is_local_operator, presented_token_id  # noqa: F401
from rag_core.config import Settings
from rag_core.services import permissions as perm


def _store(settings: Settings) -> TokenStore:
    return TokenStore(storage.open_library(settings))


def create_api_token(
    settings: Settings, name: str, *, principal: Principal, days: int | None = None
) -> tuple[str, dict[str, Any]]:
    """A new personal token of the principal: (the token, shown once; its entry)."""
    token, info = _store(settings).create(principal, name, days or settings.api.token_days, settings.api.token_max_days)
    perm.audit(settings, "token_created", principal, pat_id=info.id, name=info.name, expires_at=info.expires_at)
    return token, info.public()


def list_api_tokens(settings: Settings, *, principal: Principal) -> list[dict[str, Any]]:
    """The principal's tokens (every token for an administrator), newest first, without secrets."""
    return [t.public() for t in _store(settings).visible(principal)]


def revoke_api_token(settings: Settings, token_id: str, *, principal: Principal) -> None:
    """Revoke a token at once: the next call with it is refused."""
    info = _store(settings).revoke(token_id, principal)
    perm.audit(settings, "token_revoked", principal, pat_id=info.id, name=info.name, owner=info.user)


def principal_of_token(settings: Settings, token: str, channel: Channel) -> tuple[Principal, str]:
    """(the principal a presented token acts as, its id); AccessDenied for a revoked, expired,
    malformed or foreign token. The administrator flag is read from today's settings."""
    info = _store(settings).resolve(token)
    if is_local_operator(info):
        base = Principal.local_operator()
    else:
        base = make_principal(info.user, info.groups, settings)
    return Principal(base.user, base.groups, base.is_admin, channel=channel), info.id
