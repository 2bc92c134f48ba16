"""Inspect: how one document was parsed — sections, parents, children with their boxes, tables, figures."""

from __future__ import annotations

import streamlit as st

from rag_app.ui.auth import page_context, principal_key
from rag_app.ui.downloads import inline_image
from rag_app.ui.i18n import t
from rag_app.ui.markdown import escape_md
from rag_app.ui.section_tree import child_label, section_rows
from rag_app.ui.widgets import call, checked_once, show_page, structure_annotations, table_exports
from rag_core import pipeline

EM_SPACE = "\u2003"  # indents a sub-section's button in the section tree

settings, principal = page_context()
st.title(t("inspect.title"))

ok, documents = call(pipeline.list_documents, settings, principal=principal)
documents = list(documents or [])
if not documents:
    if ok:
        st.info(t("inspect.none"))
    st.stop()

by_id = {d.doc_id: d for d in documents}
doc_id = st.selectbox(
    t("inspect.pick"),
    list(by_id),
    key="inspect_doc",
    format_func=lambda i: f"{by_id[i].file_name} ({by_id[i].collection})",
)
record = by_id[doc_id]
inspected = st.session_state.setdefault("inspect_recorded", set())  # once per document and user per session
if (principal_key(principal), doc_id) not in inspected and call(
    pipeline.record_inspection, doc_id, settings, principal=principal
)[0]:
    inspected.add((principal_key(principal), doc_id))
ok, chunked = call(pipeline.load_chunks, doc_id, settings, principal=principal)
if not ok or chunked is None:
    st.stop()
parents, children = chunked.parents, chunked.children
children_by_id = {c.id: c for c in children}

# ---- parse statistics
st.subheader(t("inspect.stats"))
cols = st.columns(2)
cols[0].metric(t("stat.parents"), len(parents))
cols[1].metric(t("stat.children"), len(children))
with st.expander(t("inspect.stats_method")):  # the method's words: parents, children, tokens
    method_cols = st.columns(3)
    if parents:
        method_cols[0].metric(
            t("stat.parent_tokens"), f"{min(p.tokens for p in parents)}–{max(p.tokens for p in parents)}"
        )
        method_cols[2].metric(t("stat.max_children"), max(len(p.child_ids) for p in parents))
    if children:
        method_cols[1].metric(
            t("stat.child_tokens"), f"{min(c.tokens for c in children)}–{max(c.tokens for c in children)}"
        )

left, right = st.columns([5, 6])
with left:
    st.subheader(t("inspect.sections"))
    rows = section_rows(parents)
    if any(row.suspect for row in rows):
        st.caption(t("inspect.suspect_legend"))

    def _open_section(page: int) -> None:
        st.session_state["inspect_page"] = page

    with st.container(height=320):
        if not rows:
            st.markdown("—")
        for i, row in enumerate(rows):
            flag = " ⚠" if row.suspect else ""
            pages = f" — p. {row.page}" if row.page else ""
            st.button(
                f"{EM_SPACE * (row.depth - 1)}{escape_md(row.title)}{pages}{flag}",
                key=f"inspect-section-{i}",
                help=t("inspect.suspect") if row.suspect else t("inspect.open_section"),
                on_click=_open_section,
                args=(row.page or 1,),
                type="tertiary",
            )

    st.subheader(t("inspect.child"))

    def _follow_child() -> None:
        child = children_by_id.get(st.session_state.get("inspect_child", ""))
        if child and child.pages:
            st.session_state["inspect_page"] = child.pages[0]

    if children:
        child_id = st.selectbox(
            t("inspect.child"),
            [c.id for c in children],
            key="inspect_child",
            on_change=_follow_child,
            format_func=lambda i: child_label(children_by_id[i]),
            label_visibility="collapsed",
        )
        child = children_by_id[child_id]
        st.caption(
            t(
                "inspect.child_meta",
                tokens=child.tokens,
                start=child.start,
                end=child.end,
                pages=", ".join(map(str, child.pages)) or "—",
            )
        )
        st.markdown(f"**{t('inspect.raw')}**")
        st.text(child.text)
        st.markdown(f"**{t('inspect.context')}**")
        st.text(child.context_text)

with right:
    st.subheader(t("inspect.page_view"))
    if record.file_name.lower().endswith(".pdf") and record.pages:
        if st.session_state.get("inspect_page", 1) > record.pages:
            st.session_state["inspect_page"] = 1
        page = st.number_input(t("inspect.page"), min_value=1, max_value=record.pages, step=1, key="inspect_page")
        st.caption(t("inspect.legend"))
        show_page(
            doc_id,
            int(page),
            structure_annotations(int(page), parents, children),
            settings,
            principal,
            key="inspect-viewer",
        )

# ---- tables and figures
items = [item for p in parents for item in p.items]
tables = [i for i in items if i.kind == "table"]
figures = [i for i in items if i.kind == "picture"]
st.subheader(t("inspect.tables"))
if not tables:
    st.caption(t("inspect.no_tables"))
for n, item in enumerate(tables, start=1):
    st.markdown(
        f"**{escape_md(t('inspect.table_caption', n=n, page=item.page))}**"
        + (f" — {escape_md(item.caption)}" if item.caption else "")
    )
    if item.source:
        st.caption(t("inspect.table_ocr") if item.source == "OCR of a picture" else t("inspect.table_text_layer"))
    table_exports(item, n, doc_id, record.file_name, settings, principal)

st.subheader(t("inspect.figures"))
if not figures:
    st.caption(t("inspect.no_figures"))
for n, item in enumerate(figures, start=1):
    label = t("inspect.figure_caption", n=n, page=item.page)
    if item.image_path:
        # Checked by rag_core first; sent inside the page's websocket message, never under a /media URL.
        ok, path = call(
            checked_once,
            "figure",
            doc_id,
            item.image_path,
            settings,
            principal,
            lambda item=item: pipeline.artifact_path(doc_id, item.image_path, settings, principal=principal),
        )
        if ok and path is not None:
            inline_image(path, label)
    st.caption(escape_md(label + (f" — {item.caption}" if item.caption else "")))
    if item.inner_text:
        st.markdown(f"*{escape_md(t('inspect.figure_text'))}*  \n" + escape_md(item.inner_text).replace("\n", "  \n"))
