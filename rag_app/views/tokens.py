"""API tokens page: each user creates and revokes their personal tokens; administrators see and
revoke everyone's. Thin: calls the façade's token verbs as the signed-in principal, renders."""

from __future__ import annotations

import streamlit as st

from rag_app.ui.auth import page_context
from rag_app.ui.i18n import t
from rag_app.ui.markdown import escape_md
from rag_app.ui.widgets import call
from rag_core import pipeline

CONFIRM = "tokens_revoke_confirm"  # the id of the token whose revocation awaits a confirmation
settings, principal = page_context()
st.title(t("tokens.title"))
st.caption(t("tokens.intro"))
st.markdown(t("tokens.where", url=settings.api.url()))
st.markdown(t("tokens.links"))

with st.form("new-token", clear_on_submit=True):
    name = st.text_input(t("tokens.name"), max_chars=80)
    days = st.number_input(
        t("tokens.days"), min_value=1, max_value=settings.api.token_max_days, value=settings.api.token_days
    )
    if st.form_submit_button(t("tokens.create")):
        ok, made = call(pipeline.create_api_token, settings, name, principal=principal, days=int(days))
        if ok and made is not None:
            st.success(t("tokens.created"))
            st.code(made[0], language=None)  # shown once, in this run only; never stored in the session

_, rows = call(pipeline.list_api_tokens, settings, principal=principal)
if not rows:
    st.info(t("tokens.none"))
for row in rows or []:
    left, right = st.columns([5, 1])
    expired = t("tokens.expired") if row["expired"] else ""
    left.markdown(
        t(
            "tokens.row",
            name=escape_md(row["name"]),
            user=escape_md(row["user"]),
            expires=row["expires_at"][:10],
            expired=expired,
        )
    )
    if right.button(t("tokens.revoke"), key=f"revoke-{row['id']}"):
        st.session_state[CONFIRM] = row["id"]  # asked first: a revoked token cannot be given back
    if st.session_state.get(CONFIRM) == row["id"]:
        st.warning(t("tokens.revoke_confirm", name=escape_md(row["name"])), icon=":material/warning:")
        yes, no = st.columns([1, 1])
        if no.button(t("tokens.revoke_cancel"), key=f"cancel-revoke-{row['id']}"):
            st.session_state.pop(CONFIRM, None)
            st.rerun()
        if yes.button(t("tokens.revoke_yes"), key=f"confirm-revoke-{row['id']}", type="primary"):
            st.session_state.pop(CONFIRM, None)
            if call(pipeline.revoke_api_token, settings, row["id"], principal=principal)[0]:
                st.toast(t("tokens.revoked"))
                st.rerun()
