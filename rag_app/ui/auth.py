"""Who is using the app: the `Principal` of this browser session, by `settings.auth.mode`.

- `local`: the local operator (administrator), no sign-in; refused unless the server listens
  on a loopback address only.
- `oidc`: Streamlit's native `st.login` / `st.user` / `st.logout` against the `[auth]` block of
  `.streamlit/secrets.toml`; the user and groups come from the claims named in settings.
- `header`: an authenticating reverse proxy's headers (`st.context.headers`, every value of
  each), read only when `settings.auth.trust_proxy_headers` is on, and beyond loopback only when
  `settings.auth.header_beyond_loopback` is on too (a warning is logged then).

Every page calls `page_context()` first: it renders nothing but the sign-in screen (or the
reason why nobody can be signed in) until a principal exists, and then returns it. A session
whose principal changes (a resumed session id presented with other headers, a sign-out) loses
everything it held before anything renders (`bind_session`). Nothing here decides what a
principal may read: `rag_core` does, from the principal passed to it.
"""

from __future__ import annotations

import logging
from typing import Any

import streamlit as st
from streamlit.runtime.context import StreamlitHeaders

from rag_app.ui.export_urls import forget_exports
from rag_app.ui.i18n import LANG_KEY, t
from rag_app.ui.markdown import escape_md
from rag_app.ui.resources import get_settings
from rag_core import pipeline
from rag_core.errors import AccessDenied, RagError
from rag_core.pipeline import (
    LOOPBACK,
    AmbiguousGroupsHeader,
    DuplicateIdentityHeader,
    Principal,
    ReservedUser,
    Settings,
    exposure_refusal,
    principal_from_claims,
    principal_from_headers,
)

log = logging.getLogger(__name__)

SIGNED_IN = "auth_signed_in"  # session key: the user whose sign-in was recorded in this session
PRINCIPAL = "auth_principal"  # session key: `principal_key` of whom the session's state belongs to
_warned: set[str] = set()  # addresses already warned about (once per process, not per rerun)


def _oidc_configured() -> bool:
    try:
        return "auth" in st.secrets
    except Exception:  # no secrets.toml at all
        return False


def resolve(
    settings: Settings, *, user_info: dict[str, Any] | None = None, headers: StreamlitHeaders | None = None
) -> tuple[Principal | None, str]:
    """(principal, "") when someone is signed in, else (None, reason key) for the sign-in screen.

    From this script run's `st.user` and `st.context.headers`, or from the `user_info` and
    `headers` of a session's connection read outside a script run (`ui.downloads`)."""
    mode = settings.auth.mode
    address = str(st.get_option("server.address") or "")
    refusal = exposure_refusal(settings, address)
    if refusal is not None:
        return None, f"auth.{refusal}_exposed"
    if mode == "local":
        return Principal.local_operator(), ""
    if mode == "oidc":
        if not _oidc_configured():
            return None, "auth.oidc_unconfigured"
        claims = st.user.to_dict() if user_info is None else user_info
        if not claims.get("is_logged_in"):
            return None, "auth.sign_in_needed"
        try:
            return principal_from_claims(claims, settings), ""
        except ReservedUser:
            log.warning("sign-in refused: the user claim names the local operator")
            return None, "auth.user_reserved"
        except RagError as err:
            log.warning("sign-in refused: %s", err)
            return None, "auth.claims_missing"
    if not settings.auth.trust_proxy_headers:
        return None, "auth.header_untrusted"
    if address.strip() not in LOOPBACK and address not in _warned:  # allowed by header_beyond_loopback
        _warned.add(address)
        log.warning(
            "HEADER MODE LISTENS ON %s, BEYOND LOOPBACK: anyone who reaches this port without the "
            "proxy can claim any identity; make sure a firewall lets only the proxy reach it",
            address,
        )
    headers = st.context.headers if headers is None else headers
    try:
        return principal_from_headers({name: headers.get_all(name) for name in headers}, settings), ""
    except DuplicateIdentityHeader as err:
        log.warning("proxy identity refused: %s", err)  # names the header and a count, never a value
        return None, "auth.header_duplicate"
    except AmbiguousGroupsHeader as err:
        log.warning("proxy identity refused: %s", err)  # says why, never a value
        return None, "auth.header_groups_ambiguous"
    except ReservedUser:
        log.warning("proxy identity refused: the user header names the local operator")
        return None, "auth.user_reserved"
    except AccessDenied as err:
        log.warning("proxy identity refused: %s", err)
        return None, "auth.header_missing"


def _record_sign_in(settings: Settings, principal: Principal) -> None:
    """One audit record per session and user (not one per rerun)."""
    if st.session_state.get(SIGNED_IN) == principal.user:
        return
    try:
        pipeline.record_sign_in(settings, principal=principal)
    except Exception:  # the audit trail must not lock people out; its failure is logged
        log.exception("could not record the sign-in of %s", principal.user)
    st.session_state[SIGNED_IN] = principal.user


def sign_in_screen(settings: Settings | None, reason: str) -> None:
    """What someone who is not signed in sees: a title, the reason, and a sign-in button in OIDC mode."""
    st.title(t("auth.title"))
    if reason == "auth.sign_in_needed":
        st.write(t("auth.sign_in_intro"))
        if st.button(t("auth.sign_in"), type="primary", key="auth_sign_in", icon=":material/login:"):
            st.login()
        return
    header = settings.auth.user_header if settings is not None else ""
    st.error(t(reason, header=header))


def bind_session(principal: Principal | None, keep: frozenset[str] = frozenset()) -> None:
    """Before anything renders: when this session's state belongs to another principal than the
    one signed in now (or nobody is signed in now), drop all of it but the `keep` keys (the
    language); then remember whom it belongs to. A fresh session has nothing to drop."""
    key = principal_key(principal) if principal is not None else None
    if PRINCIPAL in st.session_state and st.session_state[PRINCIPAL] != key:
        for name in [k for k in st.session_state if k not in keep]:
            del st.session_state[name]
        forget_exports()
        log.info("session state and export URLs dropped: the signed-in principal changed")
    st.session_state[PRINCIPAL] = key


def page_context() -> tuple[Settings, Principal]:
    """Settings and principal for a page; stops the page (sign-in screen shown) when there is none."""
    settings = get_settings()
    if settings is None:
        st.stop()
    principal, reason = resolve(settings)
    bind_session(principal, frozenset({LANG_KEY}))
    if principal is None:
        sign_in_screen(settings, reason)
        st.stop()
    _record_sign_in(settings, principal)
    return settings, principal


def identity_sidebar(settings: Settings, principal: Principal) -> None:
    """Who is signed in, and the way out."""
    mode = settings.auth.mode
    if mode == "local":
        st.caption(t("auth.local_mode"))
        return
    groups = ", ".join(sorted(principal.groups)) or "—"
    st.caption(
        escape_md(t("auth.signed_in_as", user=principal.user, groups=groups))
        + (f" · {t('auth.admin')}" if principal.is_admin else "")
    )
    if mode == "oidc":
        if st.button(t("auth.sign_out"), key="auth_sign_out", icon=":material/logout:"):
            try:
                pipeline.record_event(settings, "sign_out", principal=principal)
            except Exception:
                log.exception("could not record the sign-out of %s", principal.user)
            st.session_state.clear()  # nothing of this user's session survives the sign-out
            forget_exports()  # nor the /media URLs of the exports it downloaded
            st.logout()


def may_manage_access(settings: Settings, principal: Principal) -> bool:
    """The Access page is for administrators and collection managers only."""
    if principal.is_admin:
        return True
    try:
        return bool(pipeline.manageable_collections(settings, principal=principal))
    except RagError:
        return False


def principal_key(principal: Principal) -> tuple[Any, ...]:
    """A hashable identity for per-session caches of scoped data."""
    return (principal.user, tuple(sorted(principal.groups)), principal.is_admin)
