"""Access: who may read what. Grants per collection (add, revoke), the read map, and for
administrators the audit trail with its filters and CSV download.

Thin: reads widgets, calls the `rag_core.pipeline` access functions as the signed-in principal
(which refuse what that principal may not do), renders. Only administrators and collection
managers reach this page; it checks that itself too.
"""

from __future__ import annotations

import datetime as dt
import logging

import pandas as pd
import streamlit as st

from rag_app.ui import state
from rag_app.ui.audit_table import audit_frame
from rag_app.ui.auth import may_manage_access, page_context
from rag_app.ui.downloads import download
from rag_app.ui.i18n import t, user_message
from rag_app.ui.markdown import escape_md
from rag_app.ui.widgets import call
from rag_core import pipeline
from rag_core.errors import RagError

log = logging.getLogger(__name__)

ROLES = ["read", "write", "manage"]

settings, principal = page_context()
st.title(t("access.title"))
if not may_manage_access(settings, principal):
    st.error(t("access.denied"))
    st.stop()

for kind, text in state.pop_flash():
    (st.success if kind == "success" else st.error)(text)

_, manageable = call(pipeline.manageable_collections, settings, principal=principal)
_, grants = call(pipeline.list_grants, settings, principal=principal)
manageable, grants = list(manageable or []), list(grants or [])


def _grant(collection: str, kind: str, subject: str, role: str) -> None:
    subject = subject.strip()
    if not subject:
        state.flash("error", t("access.no_subject"))
        return
    try:  # the page reruns after the form: a refusal must outlive that rerun, as a flash
        # the ignore below: role comes from the form's choice of the three roles
        pipeline.grant(
            settings,
            collection,
            principal=principal,
            role=role,  # type: ignore[arg-type]
            **{"user" if kind == "user" else "group": subject},
        )
    except RagError as err:
        state.flash("error", escape_md(user_message(err)))
        return
    except Exception:
        log.exception("grant failed")
        state.flash("error", t("error.generic"))
        return
    state.flash(
        "success", escape_md(t("access.granted", role=t(f"access.role.{role}"), subject=subject, collection=collection))
    )


def _revoke(collection: str, kind: str, subject: str) -> None:
    ok, _ = call(
        pipeline.revoke, settings, collection, principal=principal, **{"user" if kind == "user" else "group": subject}
    )
    if ok:
        state.flash("success", escape_md(t("access.revoked", subject=subject, collection=collection)))


# ---- in local mode there is one user, the administrator: grants would change nothing
if settings.auth.mode == "local":
    st.info(t("access.local_mode"), icon=":material/person:")
else:
    # ---- grants of one collection
    if not manageable:
        st.info(t("access.no_collection"))
    else:
        collection = st.selectbox(t("access.collection"), manageable, key="access_collection")
        mine = [g for g in grants if g.collection == collection]
        st.subheader(t("access.grants", collection=collection))
        if mine:
            st.dataframe(
                pd.DataFrame(
                    [
                        {
                            t("access.col.kind"): t(f"access.kind.{g.subject_kind}"),
                            t("access.col.subject"): g.subject,
                            t("access.col.role"): t(f"access.role.{g.role}"),
                            t("access.col.by"): g.granted_by,
                            t("access.col.at"): g.granted_at,
                        }
                        for g in mine
                    ]
                ),
                hide_index=True,
                width="stretch",
            )
        else:
            st.caption(t("access.no_grant"))

        left, right = st.columns(2)
        with left, st.form("access_add", clear_on_submit=True, enter_to_submit=False):  # no English keyboard hint
            st.markdown(f"**{t('access.add')}**")
            kind = st.radio(
                t("access.col.kind"),
                ["user", "group"],
                horizontal=True,
                key="access_kind",
                format_func=lambda k: t(f"access.kind.{k}"),
            )
            subject = st.text_input(t("access.subject"), key="access_subject")
            role = st.selectbox(
                t("access.col.role"), ROLES, key="access_role", format_func=lambda r: t(f"access.role.{r}")
            )
            if st.form_submit_button(t("access.add_button"), type="primary"):
                _grant(collection, kind, subject, role)
                st.rerun()
        with right:
            if mine:
                st.markdown(f"**{t('access.revoke')}**")
                by_key = {f"{g.subject_kind}:{g.subject}": g for g in mine}
                pick = st.selectbox(
                    t("access.revoke_pick"),
                    list(by_key),
                    key="access_revoke_pick",
                    format_func=lambda k: (
                        f"{t(f'access.kind.{by_key[k].subject_kind}')} "
                        f"{by_key[k].subject} ({t(f'access.role.{by_key[k].role}')})"
                    ),
                )
                st.button(
                    t("access.revoke_button"),
                    key="access_revoke",
                    on_click=_revoke,
                    args=(collection, by_key[pick].subject_kind, by_key[pick].subject),
                )

    # ---- who can read what
    st.subheader(t("access.map"))
    if grants:
        cells: dict[str, dict[str, str]] = {}
        for g in grants:
            cells.setdefault(f"{t(f'access.kind.{g.subject_kind}')} {g.subject}", {})[g.collection] = t(
                f"access.role.{g.role}"
            )
        st.dataframe(pd.DataFrame.from_dict(cells, orient="index").fillna("—"), width="stretch")
    st.caption(t("access.map_help"))

# ---- audit trail (administrators)
if principal.is_admin:
    st.subheader(t("audit.title"))
    c1, c2, c3 = st.columns(3)
    user = c1.text_input(t("audit.user"), key="audit_user").strip() or None
    since_day = c2.date_input(t("audit.since"), value=None, key="audit_since", format=t("audit.date_format"))
    document = c3.text_input(t("audit.document"), key="audit_document").strip() or None
    since = dt.datetime.combine(since_day, dt.time()).isoformat() if since_day else None
    ok, events = call(pipeline.audit_events, settings, principal=principal, user=user, since=since, document=document)
    if ok and events:
        st.dataframe(audit_frame(events), hide_index=True, width="stretch")
        # Deferred: made (and checked by rag_core) on click only, for this session and whoever is signed in to it then.
        download(
            t("audit.csv"),
            lambda who: pipeline.audit_csv(settings, principal=who, user=user, since=since, document=document),
            "audit.csv",
            "text/csv",
            key="audit_csv",
            settings=settings,
            principal=principal,
            icon=":material/download:",
        )
    elif ok:
        st.caption(t("audit.none"))
