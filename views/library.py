"""Library: upload files into a collection, follow their ingestion, list and delete documents.

Scoped by the signed-in principal: the list shows the collections it can read, uploads go only
into collections it can write (or a new one, which it then manages), deletion needs `manage`.
`rag_core` checks each of these again; the page only avoids offering what would be refused.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from rag_core import pipeline
from rag_core.errors import RagError
from rag_core.models import ProgressEvent
from ui import state
from ui.auth import page_context
from ui.i18n import t
from ui.widgets import call, escape_md

log = logging.getLogger(__name__)
UPLOAD_TYPES = ["pdf", "docx", "pptx", "html", "md"]
STAGES = ("parse", "chunk", "embed", "write")
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
    t("library.collection"), options, key="library_collection",
    format_func=lambda c: t("library.new_collection") if c == NEW else c,
)
collection = st.text_input(t("library.new_name"), key="library_new_name").strip() if choice == NEW else choice
if choice == NEW:
    st.caption(t("library.new_help"))

files = st.file_uploader(
    t("library.upload"), type=UPLOAD_TYPES, accept_multiple_files=True, key=f"uploader-{state.upload_nonce()}"
)
st.caption(t("library.limits", mb=f"{settings.parsing.max_file_mb:g}", pages=settings.parsing.max_pages))


def _ingest(uploaded: list, collection: str, picked: bool) -> None:
    bars: dict[str, object] = {}
    with st.status(t("library.ingesting"), expanded=True) as status:
        for f in uploaded:
            bars[f.name] = st.progress(0.0, text=t("library.progress", file=escape_md(f.name), stage="…", done=0,
                                                   total=1))

        def on_progress(event: ProgressEvent) -> None:
            try:
                stage = STAGES.index(event.stage) if event.stage in STAGES else 0
                within = event.done / event.total if event.total else 1.0
                bar = bars.get(event.file_name)
                if bar is not None:
                    bar.progress(  # type: ignore[attr-defined]
                        min(1.0, (stage + within) / len(STAGES)),
                        text=t("library.progress", file=escape_md(event.file_name),
                               stage=t(f"library.stage.{event.stage}"),
                               done=event.done, total=event.total),
                    )
            except Exception:  # a display problem must never stop an ingestion
                log.exception("progress display failed")

        with tempfile.TemporaryDirectory(prefix="rag-upload-") as tmp:
            paths = []
            for i, f in enumerate(uploaded):
                path = Path(tmp) / f"upload-{i}{Path(f.name).suffix.lower()}"
                path.write_bytes(f.getvalue())
                paths.append(path)
            ok, results = call(
                pipeline.ingest, paths, settings, collection=collection, progress=on_progress,
                file_names=[f.name for f in uploaded], principal=principal, into_existing=picked,
            )
        for name, bar in bars.items():
            bar.progress(1.0, text=escape_md(name))  # type: ignore[attr-defined]
        status.update(label=t("library.ingest_done" if ok else "library.ingest_failed"),
                      state="complete" if ok else "error", expanded=not ok)
    st.session_state[state.INGEST_RESULTS] = [
        {"file_name": r.file_name, "status": r.status, "message": r.message,
         "warnings": list(r.record.warnings) if r.record else []} for r in (results or [])
    ]


if st.button(t("library.ingest"), type="primary", disabled=not files, key="library_ingest"):
    if not collection:
        st.error(t("library.no_name"))
    elif collection in writable:
        _ingest(list(files or []), collection, picked=True)  # chosen from the list: meant, whoever created it
    else:  # a new collection: its creator manages it
        ok, created = call(pipeline.create_collection, settings, collection, principal=principal)
        if ok and created:
            _ingest(list(files or []), created, picked=False)

for result in st.session_state.get(state.INGEST_RESULTS, []):
    show = {"ingested": st.success, "already_present": st.info}.get(result["status"], st.error)
    show(escape_md(f"{result['file_name']} — {t('library.result.' + result['status'])} : {result['message']}"))
    for warning in result.get("warnings", []):  # per-page problems of an ingested file (repaired, no text...)
        st.warning(escape_md(f"{result['file_name']} — {warning}"))

st.header(t("library.documents"))
ok, documents = call(pipeline.list_documents, settings, principal=principal)
documents = list(documents or [])
if ok and not documents:
    st.caption(t("library.empty"))
if documents:
    columns = ["file_name", "collection", "language", "pages", "parents", "children", "tables", "parser",
               "embedder", "ingested_at", "elapsed_s", "status"]
    frame = pd.DataFrame([d.model_dump(mode="json", include=set(columns)) for d in documents])[columns]
    frame.columns = [t(f"col.{c}") for c in columns]
    st.dataframe(frame, hide_index=True, width="stretch")

    def _delete(doc_id: str, name: str) -> None:
        try:
            pipeline.delete(doc_id, settings, principal=principal)
            state.flash("success", escape_md(t("library.deleted", name=name)))
        except RagError as err:
            state.flash("error", escape_md(str(err)))
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
            t("library.delete_pick"), list(deletable), key="library_delete_pick",
            format_func=lambda i: f"{deletable[i].file_name} ({deletable[i].collection})",
        )
        name = deletable[doc_id].file_name if doc_id else ""
        confirmed = st.checkbox(escape_md(t("library.delete_confirm", name=name)), key="library_delete_confirm")
        st.button(t("library.delete_button"), disabled=not confirmed, key="library_delete",
                  on_click=_delete, args=(doc_id, name))
