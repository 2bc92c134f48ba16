"""Personal API tokens: created and revoked by their user, stored hashed in the library.

A token is `rag_<id>_<secret>`: the id names its entry, the secret (32 random bytes) is shown
once at creation and kept only as its SHA-256 (a secret of that entropy needs no slow hash).
The entries live at `access/tokens.json`, changed by compare-and-swap (`storage.update_json`),
so they work in a local directory and in an object store alike. A token acts as its user with
the groups the user had when creating it; grants are read live at each call, so revoking a
grant takes effect at once, and so does revoking the token (its entry is removed). A token of
another library (another deployment) has no entry here and is refused like a revoked one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from rag_core.access.principal import LOCAL_USER, Principal
from rag_core.errors import AccessDenied, InputError, NotFoundError
from rag_core.messages import message
from rag_core.storage.base import Library, update_json

KEY = "access/tokens.json"
PREFIX = "rag_"
_SHAPE = re.compile(r"rag_([0-9a-f]{12})_([A-Za-z0-9_-]{43})")
UNKNOWN = message("token.unknown")


@dataclass(frozen=True)
class TokenInfo:
    """What is kept of a token (never its secret)."""

    id: str
    name: str
    user: str
    groups: tuple[str, ...]
    created_at: str
    expires_at: str
    digest: str

    @property
    def expired(self) -> bool:
        return datetime.fromisoformat(self.expires_at) <= datetime.now(UTC)

    def public(self) -> dict[str, Any]:
        """The entry as pages and lists show it."""
        return {k: v for k, v in asdict(self).items() if k != "digest"} | {"expired": self.expired}


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _entries(data: dict | None) -> dict[str, dict]:
    return dict((data or {}).get("tokens") or {})


class TokenStore:
    """The personal API tokens of one library."""

    def __init__(self, library: Library) -> None:
        self.library = library

    def _all(self) -> list[TokenInfo]:
        found = self.library.read(KEY)
        if found is None:
            return []
        data = json.loads(found[0].decode("utf-8"))
        return [_info(entry) for entry in _entries(data).values()]

    def create(self, principal: Principal, name: str, days: int, max_days: int) -> tuple[str, TokenInfo]:
        """A new token of `principal` (the secret is returned once, never stored)."""
        name = " ".join(str(name or "").split())[:80]
        if not name:
            raise InputError.of("token.no_name")
        if not 1 <= int(days) <= max_days:
            raise InputError.of("token.days", max_days=max_days, days=days)
        token_id = secrets.token_hex(6)
        secret = secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        info = TokenInfo(
            id=token_id,
            name=name,
            user=principal.user,
            groups=tuple(sorted(principal.groups)),
            created_at=now.isoformat(timespec="seconds"),
            expires_at=(now + timedelta(days=int(days))).isoformat(timespec="seconds"),
            digest=_digest(secret),
        )

        def add(data: dict | None) -> dict:
            tokens = _entries(data)
            tokens[token_id] = asdict(info) | {"groups": list(info.groups)}
            return {"version": 1, "tokens": tokens}

        update_json(self.library, KEY, add)
        return f"{PREFIX}{token_id}_{secret}", info

    def visible(self, principal: Principal) -> list[TokenInfo]:
        """The principal's own tokens; every token for an administrator. Newest first."""
        rows = [t for t in self._all() if principal.is_admin or t.user.lower() == principal.user_key]
        return sorted(rows, key=lambda t: t.created_at, reverse=True)

    def revoke(self, token_id: str, principal: Principal) -> TokenInfo:
        """Remove a token at once (its user's, or any for an administrator); NotFoundError otherwise."""
        target = next((t for t in self.visible(principal) if t.id == token_id), None)
        if target is None:
            raise NotFoundError.of("token.not_found")

        def drop(data: dict | None) -> dict | None:
            tokens = _entries(data)
            if tokens.pop(token_id, None) is None:
                return None
            return {"version": 1, "tokens": tokens}

        update_json(self.library, KEY, drop)
        return target

    def resolve(self, token: str) -> TokenInfo:
        """The live entry of a presented token; AccessDenied (one message) for anything else."""
        shape = _SHAPE.fullmatch(str(token or "").strip())
        if shape is None:
            raise AccessDenied.of("token.unknown")
        entry = next((t for t in self._all() if t.id == shape.group(1)), None)
        if entry is None or not hmac.compare_digest(entry.digest, _digest(shape.group(2))) or entry.expired:
            raise AccessDenied.of("token.unknown")
        return entry


def presented_token_id(token: str) -> str:
    """The id part of something shaped like a token (`rag_<id>_<secret>`), whether or not it is valid; "" otherwise.
    The id names a token's entry and is safe to record; the secret never is."""
    shape = _SHAPE.fullmatch(str(token or "").strip())
    return shape.group(1) if shape else ""


def _info(entry: dict) -> TokenInfo:
    return TokenInfo(
        id=str(entry["id"]),
        name=str(entry.get("name", "")),
        user=str(entry["user"]),
        groups=tuple(entry.get("groups") or ()),
        created_at=str(entry["created_at"]),
        expires_at=str(entry["expires_at"]),
        digest=str(entry["digest"]),
    )


def is_local_operator(info: TokenInfo) -> bool:
    return info.user == LOCAL_USER
