"""Who is asking: the `Principal` (user, groups, administrator flag) and how it is built.

The page or the CLI builds it: the local operator in `local` mode, the OpenID Connect claims
in `oidc` mode, the headers of an authenticating reverse proxy in `header` mode (only when
the settings declare that proxy; a request carrying an identity header twice is refused),
`--as-user` on the command line. The local operator's name (`LOCAL_USER`) and the name it had
before (`LEGACY_LOCAL_USER`) are refused to every sign-in, so nobody who signs in inherits what
the operator created. This module decides nothing about collections (`grants.py` does) and
never sees a token or a cookie.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from rag_core.config import Settings
from rag_core.errors import AccessDenied, InputError

LOCAL_USER = "(local operator)"
LEGACY_LOCAL_USER = "local"  # the operator's name in grants files written before it became LOCAL_USER
_RESERVED_USERS = frozenset({LOCAL_USER, LEGACY_LOCAL_USER})
Channel = Literal["app", "api", "mcp", "cli"]


@dataclass(frozen=True)
class Principal:
    user: str
    groups: frozenset[str] = field(default_factory=frozenset)
    is_admin: bool = False
    # How the person reached the library (recorded in the audit trail); not part of who they are,
    # so two principals differing only by channel are equal and share every grant.
    channel: Channel = field(default="app", compare=False)

    def __post_init__(self) -> None:
        # a list or a set from the caller becomes a frozenset: the principal stays hashable
        object.__setattr__(self, "groups", frozenset(self.groups))

    @classmethod
    def local_operator(cls) -> Principal:
        """The one operator of `local` mode (and the CLI's default): administrator of everything."""
        return cls(user=LOCAL_USER, is_admin=True)

    @property
    def user_key(self) -> str:
        """The user as grants compare it: e-mail addresses are case-insensitive."""
        return self.user.strip().lower()


def split_groups(value: Any, separator: str = ",") -> frozenset[str]:
    """Groups from a claim or a header: a list, or a string of names joined by `separator`; blanks dropped."""
    if value is None:
        return frozenset()
    items: Iterable[Any] = value.split(separator) if isinstance(value, str) else value
    return frozenset(str(g).strip() for g in items if str(g).strip())


def cli_principal(user: str | None, groups: str | None, settings: Settings) -> Principal:
    """The command line's `--as-user EMAIL [--groups G1,G2]`: administrator when the settings say so;
    without `--as-user`, the local operator. Its channel is `cli` (the audit trail says so). `--groups`
    is read exactly as header mode reads its groups header (`header_groups`: a JSON array, quoted names,
    or plain names joined by `auth.groups_separator` with no blank beside it), so "Finance, board" is
    refused rather than split into two groups."""
    if not user:
        if groups:
            raise InputError.of("auth.groups_alone")
        return replace(Principal.local_operator(), channel="cli")
    names = header_groups(groups or "", settings.auth.groups_separator, settings, source="--groups")
    return replace(make_principal(user, names, settings), channel="cli")


def make_principal(user: str, groups: Iterable[str], settings: Settings) -> Principal:
    """A signed-in user; administrator when the settings list the user or one of the groups."""
    user = user.strip()
    if not user:
        raise AccessDenied.of("auth.not_signed_in")
    if user.lower() in _RESERVED_USERS:
        raise ReservedUser.of("auth.reserved_user", user=user)
    group_set = frozenset(g.strip() for g in groups if g.strip())
    admin = user.lower() in {u.strip().lower() for u in settings.auth.admin_users} or bool(
        group_set & {g.strip() for g in settings.auth.admin_groups}
    )
    return Principal(user=user, groups=group_set, is_admin=admin)


def principal_from_claims(claims: Mapping[str, Any], settings: Settings) -> Principal:
    """The principal of an OpenID Connect sign-in (`st.user`): user and groups claims named by the settings."""
    user = claims.get(settings.auth.user_claim)
    if not isinstance(user, str) or not user.strip():
        raise AccessDenied.of("auth.no_user_claim", claim=settings.auth.user_claim)
    groups = split_groups(claims.get(settings.auth.groups_claim), settings.auth.groups_separator)
    return make_principal(user, groups, settings)


def principal_from_headers(headers: Mapping[str, str | Sequence[str]], settings: Settings) -> Principal:
    """The principal an authenticating reverse proxy passed in request headers (`header` mode only).

    `headers` maps a header name to its value, or to every value it came with. Refused unless
    `auth.trust_proxy_headers` is on (without a proxy that sets these headers on every request,
    anyone could claim to be anyone), and when the user or groups header came more than once: a
    proxy that appends its own value to the client's would otherwise lose to the client. The
    groups header holds names joined by `auth.groups_separator`.
    """
    if not settings.auth.trust_proxy_headers:
        raise AccessDenied.of("auth.no_header_identity")
    values: dict[str, list[str]] = {}
    for name, value in headers.items():
        values.setdefault(str(name).lower(), []).extend([value] if isinstance(value, str) else list(value))

    def single(name: str) -> str:
        found = values.get(name.lower(), [])
        if len(found) > 1:
            raise DuplicateIdentityHeader.of("auth.duplicate_header", name=name, count=len(found))
        return found[0] if found else ""

    user = single(settings.auth.user_header)
    groups = header_groups(single(settings.auth.groups_header), settings.auth.groups_separator, settings)
    return make_principal(user, groups, settings)


_QUOTED_ITEM = re.compile(r'\s*"((?:[^"\\]|\\.)*)"\s*')


def header_groups(value: str, separator: str, settings: Settings, source: str = "") -> frozenset[str]:
    """The groups of a groups header (or of what `source` names, e.g. the CLI's `--groups`), in one of
    three forms that cannot be confused:

    - a JSON array of strings: `["Finance, board", "staff"]`;
    - quoted items joined by the separator: `"Finance, board", "staff"` (a `\\"` inside a name);
    - plain names joined by the separator with nothing around it: `staff,actuaries`.

    A plain list with blanks beside a separator (`Finance, board`) is refused: identity providers
    allow a comma in a group name, and splitting it would grant "board" to a member of
    "Finance, board"; so would reading it whole to members of "Finance" and "board".
    """
    text = value.strip()
    if not text:
        return frozenset()
    if text.startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError:
            items = None
        if not isinstance(items, list) or not all(isinstance(g, str) for g in items):
            raise AmbiguousGroupsHeader(
                _ambiguous(settings, "it starts with '[' but is not a JSON array of names", source)
            )
        return frozenset(g.strip() for g in items if g.strip())
    if text.startswith('"'):
        return _quoted_groups(text, separator, settings, source)
    if '"' in text:
        raise AmbiguousGroupsHeader(_ambiguous(settings, "it mixes quoted and unquoted names", source))
    pieces = text.split(separator)
    if not separator.isspace() and any(p != p.strip() for p in pieces):
        raise AmbiguousGroupsHeader(
            _ambiguous(settings, f"a blank stands beside '{separator}', as in a group name that contains it", source)
        )
    return frozenset(p.strip() for p in pieces if p.strip())


def _quoted_groups(text: str, separator: str, settings: Settings, source: str) -> frozenset[str]:
    groups: list[str] = []
    at = 0
    while True:
        found = _QUOTED_ITEM.match(text, at)
        if found is None:
            raise AmbiguousGroupsHeader(
                _ambiguous(settings, "a quoted name is not closed or text lies outside the quotes", source)
            )
        groups.append(re.sub(r"\\(.)", r"\1", found.group(1)))
        at = found.end()
        if at == len(text):
            return frozenset(g.strip() for g in groups if g.strip())
        if not text.startswith(separator, at):
            raise AmbiguousGroupsHeader(
                _ambiguous(settings, f"two quoted names are not joined by '{separator}'", source)
            )
        at += len(separator)


def _ambiguous(settings: Settings, why: str, source: str = "") -> str:
    if source:
        sep = settings.auth.groups_separator
        return (
            f"{source} cannot be read without guessing ({why}); give a JSON array "
            '(["Finance, board", "staff"]), quoted names ("Finance, board", "staff") or names joined by '
            f"'{sep}' with no blank beside it (staff{sep}actuaries)."
        )
    return (
        f"The groups header '{settings.auth.groups_header}' cannot be read without guessing ({why}); "
        'the proxy must send a JSON array (["Finance, board", "staff"]) or quoted names '
        '("Finance, board", "staff"). Nobody is signed in.'
    )


class AmbiguousGroupsHeader(AccessDenied):
    """A groups header whose names could be read in more than one way."""


class DuplicateIdentityHeader(AccessDenied):
    """A request named its user or its groups more than once."""


class ReservedUser(AccessDenied):
    """A sign-in under the local operator's name."""


LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def exposure_refusal(settings: Settings, address: str) -> str | None:
    """Why nobody may be signed in while the server listens on `address`, or None.

    "local": `local` mode makes whoever reaches the app the administrator, so it listens on
    loopback only. "header": `header` mode believes request headers, so beyond loopback it
    needs `auth.header_beyond_loopback` (a firewall lets only the proxy reach the port).
    `oidc` mode may listen anywhere (behind TLS).
    """
    if str(address or "").strip() in LOOPBACK:
        return None
    if settings.auth.mode == "local":
        return "local"
    if settings.auth.mode == "header" and not settings.auth.header_beyond_loopback:
        return "header"
    return None
