"""Library: upload files into a collection, follow their imports (the queue), list and delete documents.

An upload is queued at once (its bytes are then in the library) and ingested by a worker, so
leaving the page, reloading or closing the tab loses nothing; the queue panel (`ui.jobs`)
refreshes itself and offers cancel and retry.

Scoped by the signed-in principal: the list shows the collections it can read, uploads go only
into collections it can write (or a new one, which it then manages), deletion needs `manage`.
`rag_core` checks each of these again; the page only avoids offering what would be refused.
"""

from __future__ import annotations

import logging

import streamlit as st

from rag_app.ui import jobs as jobs_ui
from rag_app.ui import state
from rag_app.ui.auth import page_context
from rag_app.ui.documents_table import show_documents
from rag_app.ui.i18n import t, user_message
from rag_app.ui.markdown import escape_md
from rag_app.ui.widgets import call
from rag_core import pipeline
from rag_core.errors import RagError

log = logging.getLogger(__name__)
UPLOAD_TYPES = ["pdf", "docx", "pptx", "html", "md"]
NEW = "\x00new"

settings, principal = page_context()
st.title(t("library.title"))

for kind, text in state.pop_flash():
    (st.success if kind == "success" else st.error)(text)

_, writable = call(pipeline.writable_collections, settings, principal=principal)
writable = list(writable or [])
# An empty library offers its administrator (the local operator) the usual "default" collection.
options = (writable or (["default"] if principal.is_admin else [])) + [NEW]
choice = st.selectbox(
    t("library.collection"),
    options,
    key="library_collection",
    format_func=lambda c: t("library.new_collection") if c == NEW else c,
)
collection = st.text_input(t("library.new_name"), key="library_new_name").strip() if choice == NEW else choice
if choice == NEW:
    st.caption(t("library.new_help"))

files = st.file_uploader(
    t("library.upload"), type=UPLOAD_TYPES, accept_multiple_files=True, key=f"uploader-{state.upload_nonce()}"
)
st.caption(t("library.limits", mb=f"{settings.parsing.max_file_mb:g}", pages=settings.parsing.max_pages))


def _submit(uploaded: list, collection: str, picked: bool) -> None:
    """Queue each file (the worker ingests it, whatever this page does next); a file refused at
    upload time (too large, unreadable, over the cap) is reported at once."""
    refused, queued = [], []
    for f in uploaded:
        try:
            queued.append(
                pipeline.submit_upload(
                    f.getvalue(), f.name, settings, collection, principal=principal, into_existing=picked
                ).id
            )
        except RagError as err:
            refused.append(
                {
                    "file_name": pipeline.clean_file_name(f.name),
                    "status": "refused",
                    "message": user_message(err),
                    "warnings": [],
                }
            )
        except Exception:  # a bug, not the user's fault: logged, the other files still go
            log.exception("queueing %s failed", f.name)
            refused.append(
                {
                    "file_name": pipeline.clean_file_name(f.name),
                    "status": "refused",
                    "message": t("error.generic"),
                    "warnings": [],
                }
            )
    jobs_ui.remember_submitted(queued)
    st.session_state[state.INGEST_RESULTS] = refused
    if queued:
        state.flash("success", t("jobs.queued_many", n=len(queued)))
    state.bump_upload_nonce()
    st.rerun()


if st.button(t("library.ingest"), type="primary", disabled=not files, key="library_ingest"):
    if not collection:
        st.error(t("library.no_name"))
    elif collection in writable:
        _submit(list(files or []), collection, picked=True)  # chosen from the list: meant, whoever created it
    else:  # a new collection: its creator manages it
        ok, created = call(pipeline.create_collection, settings, collection, principal=principal)
        if ok and created:
            _submit(list(files or []), created, picked=False)

for result in st.session_state.get(state.INGEST_RESULTS, []):
    show = {"ingested": st.success, "already_present": st.info}.get(result["status"], st.error)
    show(escape_md(f"{result['file_name']} — {t('library.result.' + result['status'])} : {result['message']}"))
    for warning in result.get("warnings", []):  # per-page problems of an ingested file (repaired, no text...)
        st.warning(escape_md(f"{result['file_name']} — {user_message(warning)}"))

st.header(t("jobs.title"))
jobs_ui.queue_panel(settings, principal)

st.header(t("library.documents"))
ok, documents = call(pipeline.list_documents, settings, principal=principal)
documents = list(documents or [])
if ok and not documents:
    st.caption(t("library.empty"))
if documents:
    show_documents(documents)  # titles, authors and dates; the full file name on hover

    def _delete(doc_id: str, name: str) -> None:
        try:
            pipeline.delete(doc_id, settings, principal=principal)
            state.flash("success", escape_md(t("library.deleted", name=name)))
        except RagError as err:
            state.flash("error", escape_md(user_message(err)))
        except Exception:
            log.exception("delete failed")
            state.flash("error", t("error.generic"))
        st.session_state.pop("library_delete_confirm", None)

    _, manageable = call(pipeline.manageable_collections, settings, principal=principal)
    deletable = {d.doc_id: d for d in documents if principal.is_admin or d.collection in set(manageable or [])}
    if not deletable:
        st.caption(t("library.read_only"))
        st.stop()
    with st.expander(t("library.delete")):
        doc_id = st.selectbox(
            t("library.delete_pick"),
            list(deletable),
            key="library_delete_pick",
            format_func=lambda i: f"{deletable[i].file_name} ({deletable[i].collection})",
        )
        name = deletable[doc_id].file_name if doc_id else ""
        confirmed = st.checkbox(escape_md(t("library.delete_confirm", name=name)), key="library_delete_confirm")
        st.button(
            t("library.delete_button"),
            disabled=not confirmed,
            key="library_delete",
            on_click=_delete,
            args=(doc_id, name),
        )
